package jobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/store"
)

// agentLine is one line as the test's agent appends it.
func agentLine(t *testing.T, n int) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"session": "s-order", "role": "user", "text": fmt.Sprintf("line %d", n)})
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// appendLine appends as the agents do: open the path, write one whole
// line, close (opened with delete sharing, as Node's libuv and Rust do on
// Windows).
func appendLine(t *testing.T, path string, line []byte) {
	t.Helper()
	f, err := platform.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(line); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// asideMethods are the ways a replaced file stays readable that work on
// this OS: Windows replaces no file anyone holds, so it has no asideOpen.
func asideMethods() map[string]asideMethod {
	m := map[string]asideMethod{"link": asideLink}
	if platform.ReplaceKeepsOpenFiles {
		m["open"] = asideOpen
	}
	return m
}

// The interleavings that put two appended lines out of order (a Windows
// run under load: "appended lines out of order: 8 after 10"): the agent
// appends line 1 to the transcript after compactd's last read of it and
// before the rename (or, on Unix, writes it through a file it opened
// before the rename), then line 2 to the new file at the path; compactd
// only sees line 1 afterwards. The hooks run those steps at exactly those
// points, so the test needs no timing.
func TestInPlaceLateAppendKeepsTheAgentsOrder(t *testing.T) {
	orig := conversationBytes("s-order", 4, "o")
	content := conversationBytes("s-order", 1, "compacted")
	type step func(t *testing.T, path string, held **os.File)
	// Lines 1..n by step: what the agent does before each rename and after
	// each swap (by swap number, from 1).
	cases := []struct {
		name         string
		openOnly     bool // needs a file held open across the rename
		before       map[int]step
		after        map[int]step
		lines        int
		wantRenames  int
		holdAtTheEnd bool
	}{
		{
			name:   "appended between the last read and the rename",
			before: map[int]step{1: func(t *testing.T, p string, _ **os.File) { appendLine(t, p, agentLine(t, 1)) }},
			after:  map[int]step{1: func(t *testing.T, p string, _ **os.File) { appendLine(t, p, agentLine(t, 2)) }},
			lines:  2, wantRenames: 2,
		},
		{
			name:     "written through the file held across the rename",
			openOnly: true,
			after: map[int]step{1: func(t *testing.T, p string, held **os.File) {
				if _, err := (*held).Write(agentLine(t, 1)); err != nil {
					t.Fatal(err)
				}
				(*held).Close()
				appendLine(t, p, agentLine(t, 2))
			}},
			lines: 2, wantRenames: 2, holdAtTheEnd: true,
		},
		{
			// The rescue's own rename has the same window: a line lands in
			// the first new file just before it is replaced in turn.
			name: "again during the rescue's rename",
			before: map[int]step{
				1: func(t *testing.T, p string, _ **os.File) { appendLine(t, p, agentLine(t, 1)) },
				2: func(t *testing.T, p string, _ **os.File) { appendLine(t, p, agentLine(t, 3)) },
			},
			after: map[int]step{
				1: func(t *testing.T, p string, _ **os.File) { appendLine(t, p, agentLine(t, 2)) },
				2: func(t *testing.T, p string, _ **os.File) { appendLine(t, p, agentLine(t, 4)) },
			},
			lines: 4, wantRenames: 3,
		},
	}
	for name, method := range asideMethods() {
		for _, c := range cases {
			if c.openOnly && method != asideOpen {
				continue
			}
			t.Run(name+"/"+c.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "chat.tjsonl")
				if err := os.WriteFile(path, orig, 0o600); err != nil {
					t.Fatal(err)
				}
				var held *os.File
				if c.holdAtTheEnd {
					f, err := platform.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
					if err != nil {
						t.Fatal(err)
					}
					held = f
					defer f.Close()
				}
				renames, swaps := 0, 0
				ip := inPlace{aside: method, schedule: []time.Duration{0}}
				ip.beforeRename = func() {
					renames++
					if s := c.before[renames]; s != nil {
						s(t, path, &held)
					}
				}
				ip.afterSwap = func() {
					swaps++
					if s := c.after[swaps]; s != nil {
						s(t, path, &held)
					}
				}
				res, err := ip.replace(path, int64(len(orig)), sha256.Sum256(orig), content, true, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := append([]byte(nil), content...)
				for i := 1; i <= c.lines; i++ {
					want = append(want, agentLine(t, i)...)
				}
				got, _ := os.ReadFile(path)
				if !bytes.Equal(got, want) {
					t.Errorf("the transcript after the replacement ends:\n%s\nwant it to end:\n%s", tail(got, c.lines+1), tail(want, c.lines+1))
				}
				if res.Carried != int64(len(want)-len(content)) {
					t.Errorf("carried %d bytes, want %d", res.Carried, len(want)-len(content))
				}
				if swaps != c.wantRenames {
					t.Errorf("%d renames, want %d (the rescue puts late lines in order with one more)", swaps, c.wantRenames)
				}
				if len(res.Notes) > 0 {
					t.Errorf("notes: %q", res.Notes)
				}
				leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".compactd-*"))
				if len(leftovers) > 0 {
					t.Errorf("left behind: %v", leftovers)
				}
			})
		}
	}
}

// tail is the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) > n+1 {
		lines = lines[len(lines)-n-1:]
	}
	return strings.Join(lines, "")
}

// A volume without hard links (FAT, exFAT: USB sticks, SD cards) makes
// the second name fail: the compaction still goes in place, by the rename
// alone, says so, and the prior content is in the store.
func TestInPlaceWithoutHardLinks(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	orig := conversationBytes("s-fat", 6, "f")
	path := writeTranscript(t, root, orig)
	links := 0
	r.inPlace = inPlace{aside: asideLink, schedule: []time.Duration{0},
		link: func(oldname, newname string) error {
			links++
			return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: errors.New("incorrect function")}
		}}
	appended := agentLine(t, 1)
	pipeline := r.Pipeline
	r.Pipeline = func(ctx context.Context, tr *transcriptT, c *counterT, o strategy.Options) (*viewT, *strategy.Report, error) {
		appendLine(t, path, appended)
		return pipeline(ctx, tr, c, o)
	}
	res, err := r.Compact(ctx, Request{Path: path, InPlace: true})
	if err != nil {
		t.Fatalf("in place without hard links: %v", err)
	}
	got, _ := os.ReadFile(path)
	if bytes.Contains(got, []byte("f prompt 0")) || !bytes.HasSuffix(got, appended) {
		t.Errorf("the transcript was not compacted with the appended line carried:\n%s", got)
	}
	if links != 1 {
		t.Errorf("%d links tried, want 1 (then the fallback)", links)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "without hard links") {
		t.Errorf("no note says the volume has no hard links: %q", res.Notes)
	}
	vs, err := r.Store.AllVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kept := false
	for _, v := range vs {
		if v.Kind == store.KindSource {
			b, _ := r.Store.Content(ctx, v.ContentHash)
			kept = kept || bytes.Equal(b, orig)
		}
	}
	if !kept {
		t.Error("the prior content is not in the store")
	}
}

// While a program holds the transcript open where Windows then refuses
// the rename (a viewer, an antivirus scan), the new content is written
// into the file itself once the wait is over, appends carried, and the
// note says so. The refusal is injected, so this runs on every OS.
func TestInPlaceWhileTheFileIsInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.tjsonl")
	orig := conversationBytes("s-use", 4, "u")
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	content := conversationBytes("s-use", 1, "compacted")
	tries := 0
	ip := inPlace{wait: time.Millisecond, schedule: []time.Duration{0},
		rename: func(tmp, p string) error {
			tries++
			if tries == 1 {
				appendLine(t, path, agentLine(t, 1))
			}
			return errors.Join(platform.ErrInUse, errors.New("access denied"))
		}}
	res, err := ip.replace(path, int64(len(orig)), sha256.Sum256(orig), content, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := append(append([]byte(nil), content...), agentLine(t, 1)...)
	if !bytes.Equal(got, want) {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "wrote the new content into the file itself") {
		t.Errorf("notes: %q", res.Notes)
	}
}

// A restore is not appended to: a line the agent writes into the file
// the restore replaces, too late to be seen before, is kept as a version
// of its own, and the note names it.
func TestRestoreInPlaceKeepsALateLine(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	path := writeTranscript(t, root, conversationBytes("s-rest", 6, "r"))
	if _, err := r.Compact(ctx, Request{Path: path, InPlace: true}); err != nil {
		t.Fatal(err)
	}
	compacted, _ := os.ReadFile(path)
	late := agentLine(t, 1)
	renames := 0
	r.inPlace = inPlace{schedule: []time.Duration{0}, beforeRename: func() {
		if renames++; renames == 1 {
			appendLine(t, path, late)
		}
	}}
	res, err := r.Restore(ctx, path, "v1", true)
	if err != nil {
		t.Fatal(err)
	}
	note := strings.Join(res.Notes, "\n")
	if !strings.Contains(note, "while it was restored") {
		t.Fatalf("no note about the late line: %q", res.Notes)
	}
	vs, err := r.Store.AllVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte(nil), compacted...), late...)
	for _, v := range vs {
		if b, _ := r.Store.Content(ctx, v.ContentHash); bytes.Equal(b, want) {
			if !strings.Contains(note, v.Label) {
				t.Errorf("the note does not name %s: %s", v.Label, note)
			}
			return
		}
	}
	t.Errorf("the file with the late line is in no version")
}

// A reader holding the transcript open the way most programs open a file
// (Go's os.Open, like the C runtime's fopen, shares no delete): on Unix
// the rename goes ahead and the reader keeps the old file; on Windows the
// rename is refused until the wait is over, then the content is written
// into the file. Either way the transcript is compacted, the late line
// carried, and the reader is not disturbed.
func TestInPlaceWhileAReaderHoldsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.tjsonl")
	orig := conversationBytes("s-hold", 4, "h")
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	content := conversationBytes("s-hold", 1, "compacted")
	renames := 0
	ip := inPlace{wait: 20 * time.Millisecond, schedule: []time.Duration{0}, beforeRename: func() {
		if renames++; renames == 1 {
			appendLine(t, path, agentLine(t, 1))
		}
	}}
	res, err := ip.replace(path, int64(len(orig)), sha256.Sum256(orig), content, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := append(append([]byte(nil), content...), agentLine(t, 1)...)
	if !bytes.Equal(got, want) {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	inUse := strings.Contains(strings.Join(res.Notes, "\n"), "into the file itself")
	if inUse == platform.ReplaceKeepsOpenFiles {
		t.Errorf("wrote into the file: %v, on an OS where a held file can be replaced: %v (notes %q)", inUse, platform.ReplaceKeepsOpenFiles, res.Notes)
	}
	if _, err := reader.ReadAt(make([]byte, 1), 0); err != nil {
		t.Errorf("the reader was disturbed: %v", err)
	}
}
