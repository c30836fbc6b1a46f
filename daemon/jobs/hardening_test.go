package jobs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/platform/platformtest"
	"github.com/compactd/compactd/daemon/store"
)

// An in-place compaction whose source keeps being rewritten gives up, and
// the compact versions it recorded ahead of each failed write are gone:
// history lists no result that never reached the disk.
func TestFailedInPlaceRetryLeavesNoOrphanVersion(t *testing.T) {
	root := isolate(t)
	r := realRunner(t)
	path, _ := claudeSession(t, filepath.Join(root, "p"), 21, 6)
	rewrites := 0
	r.Pipeline = func(ctx context.Context, tr *transcript.Transcript, c *tokens.Counter, o strategy.Options) (*transcript.View, *strategy.Report, error) {
		// Another writer rewrites (not appends to) the file each time.
		rewrites++
		data, _ := claudeBytes(uint64(100 + rewrites))
		os.WriteFile(path, data, 0o644)
		return strategy.Run(ctx, tr, c, o)
	}
	_, err := r.Compact(context.Background(), Request{Path: path, InPlace: true})
	if err == nil || !strings.Contains(err.Error(), "kept being rewritten") {
		t.Fatalf("err = %v; want the give-up error", err)
	}
	for _, k := range kinds(t, r) {
		if strings.HasSuffix(k, ":"+store.KindCompact) {
			t.Errorf("an unwritten compact version is in history: %v", kinds(t, r))
		}
	}
	d, err := r.Doctor(context.Background())
	if err != nil || len(d.OrphanedForks) != 0 {
		t.Errorf("doctor = %+v, %v", d, err)
	}
}

func claudeBytes(seed uint64) ([]byte, error) {
	return sessiongenClaude(seed, 5), nil
}

// Doctor lists .compactd-*.tmp files a killed job left beside known
// transcripts, and --fix removes them; fresh ones (a live job's) and
// files elsewhere are left alone.
func TestDoctorStaleTemps(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := realRunner(t)
	dir := filepath.Join(root, "p")
	path, _ := claudeSession(t, dir, 2, 4)
	if _, err := r.Compact(ctx, Request{Path: path}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	stale := filepath.Join(dir, ".compactd-123456.tmp")
	fresh := filepath.Join(dir, ".compactd-999999.tmp")
	elsewhere := filepath.Join(root, "unrelated", ".compactd-1.tmp")
	lookalike := filepath.Join(dir, ".compactd-notes.txt")
	for _, p := range []string{stale, fresh, elsewhere, lookalike} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("partial"), 0o600)
	}
	for _, p := range []string{stale, elsewhere, lookalike} {
		os.Chtimes(p, old, old)
	}
	d, err := r.Doctor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.StaleTemps) != 1 || d.StaleTemps[0] != stale {
		t.Fatalf("stale temps = %v; want only %s", d.StaleTemps, stale)
	}
	if err := r.RemoveStaleTemps(d); err != nil {
		t.Fatal(err)
	}
	if len(d.Removed) != 1 {
		t.Errorf("removed = %v", d.Removed)
	}
	for p, want := range map[string]bool{stale: false, fresh: true, elsewhere: true, lookalike: true, path: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v; want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// A read-only transcript is not replaced in place, and a read-only folder
// gets no fork; each says so in one sentence and leaves no trace.
func TestReadOnlyFileAndFolder(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := realRunner(t)

	dir := filepath.Join(root, "ro-file")
	path, orig := claudeSession(t, dir, 31, 6)
	os.Chmod(path, 0o444)
	_, err := r.Compact(ctx, Request{Path: path, InPlace: true})
	if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), "untouched") || strings.Contains(err.Error(), "\n") {
		t.Errorf("in place on a read-only file: err = %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Error("the read-only transcript changed")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o444 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	// A fork beside a read-only file is fine.
	if _, err := r.Compact(ctx, Request{Path: path}); err != nil {
		t.Errorf("fork of a read-only transcript: %v", err)
	}
	// Restoring over it in place is refused the same way.
	if _, err := r.Restore(ctx, path, "v1", true); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("restore over a read-only file: err = %v", err)
	}

	if !platformtest.ReadOnlyFolders {
		t.Skip("skip the read-only folder: on Windows a folder's read-only attribute does not keep files from being created in it (only an ACL does)")
	}
	rodir := filepath.Join(root, "ro-dir")
	path2, orig2 := claudeSession(t, rodir, 32, 6)
	os.Chmod(rodir, 0o555)
	t.Cleanup(func() { os.Chmod(rodir, 0o755) })
	before := kinds(t, r)
	for _, req := range []Request{{Path: path2}, {Path: path2, InPlace: true}} {
		_, err := r.Compact(ctx, req)
		if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), "untouched") || strings.Contains(err.Error(), "\n") {
			t.Errorf("compact (in place %v) in a read-only folder: err = %v", req.InPlace, err)
		}
	}
	if got := dirNames(t, rodir); len(got) != 1 {
		t.Errorf("files in the read-only folder: %v", got)
	}
	if got, _ := os.ReadFile(path2); !bytes.Equal(got, orig2) {
		t.Error("the transcript in the read-only folder changed")
	}
	after := kinds(t, r)
	for _, k := range after[len(before):] {
		if strings.HasSuffix(k, ":"+store.KindCompact) {
			t.Errorf("a refused compaction recorded %s", k)
		}
	}
}

// A transcript that is a symbolic link to a file outside its folder is
// read but never written through; a fork folder that is a link leaving the
// workspace is refused.
func TestSymlinksAreNotWrittenThrough(t *testing.T) {
	platformtest.NeedSymlinks(t)
	root := isolate(t)
	ctx := context.Background()
	r := realRunner(t)
	outside := filepath.Join(root, "outside")
	target, orig := claudeSession(t, outside, 41, 6)
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	link := filepath.Join(ws, "chat.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}

	_, err := r.Compact(ctx, Request{Path: link, InPlace: true})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), "outside its folder") {
		t.Errorf("in place through a link: err = %v", err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	if got, _ := os.ReadFile(target); !bytes.Equal(got, orig) {
		t.Error("the link's target changed")
	}

	// A fork of the link goes beside the link, not beside its target.
	res, err := r.Compact(ctx, Request{Path: link})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(res.ForkPath) != ws {
		t.Errorf("fork written to %s; want beside the link in %s", res.ForkPath, ws)
	}
	if got := dirNames(t, outside); len(got) != 1 {
		t.Errorf("files written beside the link's target: %v", got)
	}
	if _, err := r.Restore(ctx, link, "v1", true); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("restore in place through a link: err = %v", err)
	}
	if got, _ := os.ReadFile(target); !bytes.Equal(got, orig) {
		t.Error("a refused restore changed the link's target")
	}

	// --out into a folder that is a link escaping the workspace.
	escape := filepath.Join(ws, "escape")
	os.Symlink(outside, escape)
	_, err = r.Compact(ctx, Request{Path: link, Out: filepath.Join(escape, "fork.jsonl")})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("fork through an escaping link: err = %v", err)
	}
	if got := dirNames(t, outside); len(got) != 1 {
		t.Errorf("files written through the escaping link: %v", got)
	}
	// A link that stays inside the workspace is fine.
	inside := filepath.Join(ws, "sub")
	os.MkdirAll(inside, 0o755)
	os.Symlink(inside, filepath.Join(ws, "alias"))
	if _, err := r.Compact(ctx, Request{Path: link, Out: filepath.Join(ws, "alias", "fork.jsonl"), Workspace: ws}); err != nil {
		t.Errorf("fork through a link inside the workspace: %v", err)
	}
}

// Temporary files killed jobs left beside a transcript are removed by the
// next job that writes in that folder (before, 120 kill -9 trials left
// 15 MB of them there for good); a fresh one — a live job's — is kept.
func TestNextJobRemovesStaleTemps(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := realRunner(t)
	dir := filepath.Join(root, "p")
	path, _ := claudeSession(t, dir, 5, 4)
	stale := filepath.Join(dir, ".compactd-111.tmp")
	fresh := filepath.Join(dir, ".compactd-222.tmp")
	for _, p := range []string{stale, fresh} {
		os.WriteFile(p, []byte("partial"), 0o600)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	if _, err := r.Compact(ctx, Request{Path: path}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale temporary file survived the next job in its folder")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temporary file (a live job's) was removed")
	}
}
