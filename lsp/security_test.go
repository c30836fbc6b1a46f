package lsp

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/platform/platformtest"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

// treeDigest maps every path under root to its mode and content digest,
// without following links.
func treeDigest(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		sum := ""
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		out[p] = fmt.Sprintf("%v %s", fi.Mode(), sum)
		return nil
	})
	return out
}

// TestSymlinksEscapingTheWorkspace: a transcript reached through a link
// from outside the workspace (the file itself, or its folder) is shown
// but every writing command on it is refused, auto-compaction included;
// nothing is written on either side of the link. A link that stays
// inside the workspace works for forks and is never written through.
func TestSymlinksEscapingTheWorkspace(t *testing.T) {
	platformtest.NeedSymlinks(t)
	testEnv(t)
	ws, outside := t.TempDir(), t.TempDir()
	real := filepath.Join(outside, "real.jsonl")
	writeSession(t, real, outside, 8)
	fileLink := filepath.Join(ws, "chat.jsonl")
	dirLink := filepath.Join(ws, "sessions")
	if err := os.Symlink(real, fileLink); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, dirLink); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}})
	// Auto-compaction on at 2 turns: it would fire on the first growth.
	c.initialize(ws, map[string]any{"autoCompact": map[string]any{"enabled": true, "turns": 2, "minTurns": 1}})
	beforeOut, beforeWs := treeDigest(t, outside), treeDigest(t, ws)
	for _, p := range []string{fileLink, filepath.Join(dirLink, "real.jsonl")} {
		u := pathURI(p)
		c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1}})
		c.waitNote(0, methodGauge, gaugeFor(u), 10*time.Second)
		for _, cmd := range []string{cmdCompact, cmdCompactInPlace, cmdDryRun, cmdRestore} {
			_, err := c.execute(cmd, map[string]any{"uri": u, "strategies": []string{"strip-tool-results"}, "version": "v1"})
			if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
				t.Errorf("%s on %s: %v, want refused", cmd, p, err)
			}
		}
	}
	// The agent appends through the real path: the trigger is crossed,
	// but nothing may be compacted.
	data, _ := os.ReadFile(real)
	links := []string{fileLink, filepath.Join(dirLink, "real.jsonl")}
	var g0 []Gauge
	for _, p := range links {
		g0 = append(g0, lastGauge(t, c, pathURI(p), nil, 10*time.Second))
	}
	appendTo(t, real, sessiongen.Continue(transcript.FormatClaudeCode, data, 5, 30))
	for i, p := range links {
		c.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: pathURI(p)}})
		lastGauge(t, c, pathURI(p), func(g Gauge) bool { return g.Turns > g0[i].Turns }, 10*time.Second)
	}
	if st := c.autoSettled(); st.AutoCompactions != 0 {
		t.Errorf("%d automatic compactions started on a transcript outside the workspace", st.AutoCompactions)
	}
	for _, m := range c.notesOf(protocol.MethodWindowShowMessage) {
		if strings.Contains(string(m), "automatic compaction") || strings.Contains(string(m), "auto-compaction") {
			t.Errorf("auto-compaction ran on a transcript outside the workspace: %s", m)
		}
	}
	if after := treeDigest(t, outside); fmt.Sprint(after) != fmt.Sprint(treeDigestWith(beforeOut, real, after)) {
		t.Errorf("files written outside the workspace: before %v after %v", beforeOut, after)
	}
	if after := treeDigest(t, ws); fmt.Sprint(after) != fmt.Sprint(beforeWs) {
		t.Errorf("files written beside the links: before %v after %v", beforeWs, after)
	}

	// The control: a link inside the workspace to a transcript inside it.
	inner := filepath.Join(ws, "data", "conv.jsonl")
	writeSession(t, inner, ws, 8)
	innerLink := filepath.Join(ws, "linked.jsonl")
	if err := os.Symlink(inner, innerLink); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(inner)
	res, err := c.execute(cmdCompact, map[string]any{"uri": pathURI(innerLink), "strategies": []string{"strip-tool-results"}})
	if err != nil {
		t.Fatalf("compact through a link inside the workspace: %v", err)
	}
	if fork := uriPath(protocol.DocumentURI(res.Open)); !strings.HasPrefix(fork, ws+string(filepath.Separator)) {
		t.Fatalf("fork %s is outside the workspace", fork)
	}
	if _, err := c.execute(cmdCompactInPlace, map[string]any{"uri": pathURI(innerLink), "strategies": []string{"strip-tool-results"}}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("in place through a link: %v, want refused", err)
	}
	if got, _ := os.ReadFile(inner); string(got) != string(orig) {
		t.Error("the link's target was rewritten")
	}
	if fi, err := os.Lstat(innerLink); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
}

// treeDigestWith is before with path's entry taken from after (the file
// the test itself appended to).
func treeDigestWith(before map[string]string, path string, after map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range before {
		out[k] = v
	}
	out[path] = after[path]
	return out
}
