package jobs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/platform"
	"github.com/compactd/compactd/daemon/store"
)

// inPlaceSteps runs one in-place compaction of a generated Claude Code
// session and lists the steps it went through, in order, each once.
func inPlaceSteps(t *testing.T) []string {
	t.Helper()
	var steps []string
	_, _, _ = inPlaceRun(t, func(_, name string) {
		if !slices.Contains(steps, name) {
			steps = append(steps, name)
		}
	})
	if len(steps) < 6 {
		t.Fatalf("the in-place path named only %v", steps)
	}
	return steps
}

// inPlaceRun compacts a generated session in place with hook run between
// the steps (given the transcript's path); it returns the path, the result
// and the error.
func inPlaceRun(t *testing.T, hook func(path, step string)) (string, *Result, error) {
	t.Helper()
	root := isolate(t)
	r := realRunner(t)
	data := sessiongen.ClaudeCode(sessiongen.Options{Seed: 11, Turns: 12})
	dir := filepath.Join(root, "claude", "projects", "-home-dev-src-inventory-service")
	path := filepath.Join(dir, parse(t, "x.jsonl", data).Meta.SessionID+".jsonl")
	// Looked at once: the test acts at named steps, it never waits.
	r.inPlace = inPlace{schedule: []time.Duration{0}, step: func(step string) { hook(path, step) }}
	writeShape(t, path, data)
	res, err := r.Compact(context.Background(), Request{Path: path, InPlace: true,
		Options: strategy.Options{Strategies: []string{"turn-window"}, Turns: 3, KeepLast: new(1)}})
	return path, res, err
}

var versionInMessage = regexp.MustCompile(`compacted version (v[0-9]+)`)

// TestInPlaceWhenTheTranscriptGoes is issue 34's item 5: a transcript
// deleted (an agent's retention sweep, its user) or replaced by another
// file while `compact --in-place` runs on it. At every step of the in-place
// path, one run deletes it and another puts another file there, at exactly
// that step (a hook between steps, no timing). Up to the rename compactd
// writes nothing at the path — a deleted session stays deleted, another
// file stays as it is — keeps the compacted version in the store once it
// has one, and says so: an error naming the version and how to restore it.
// After the rename the file compactd wrote may go; it is not written again.
// Before, a deletion between the job's last read and the rename brought
// the transcript back ("v2 (from v1) written to …", exit 0), and a file
// put there was replaced.
func TestInPlaceWhenTheTranscriptGoes(t *testing.T) {
	steps := inPlaceSteps(t)
	t.Logf("steps: %v", steps)
	written := slices.Index(steps, "renamed")
	if written < 0 {
		t.Fatalf("no rename step in %v", steps)
	}
	other := sessiongen.ClaudeCode(sessiongen.Options{Seed: 12, Turns: 4})
	for i, step := range steps {
		for _, action := range []string{"delete", "replace"} {
			t.Run(action+"@"+step, func(t *testing.T) {
				acted, refused := false, false
				path, res, err := inPlaceRun(t, func(path, name string) {
					if name != step || acted {
						return
					}
					acted = true
					switch action {
					case "delete":
						if err := os.Remove(path); err != nil {
							t.Fatalf("delete at %s: %v", step, err)
						}
					case "replace":
						// As a program saves a file: a new one renamed over it.
						tmp := path + ".new"
						writeShape(t, tmp, other)
						err := os.Rename(tmp, path)
						if err != nil && !platform.ReplaceKeepsOpenFiles && platform.InUse(err) {
							// Windows: no program replaces a file compactd
							// holds open at this step.
							refused = true
							os.Remove(tmp)
						} else if err != nil {
							t.Fatalf("replace at %s: %v", step, err)
						}
					}
				})
				if !acted {
					t.Fatalf("step %s never ran", step)
				}
				if refused {
					if err != nil {
						t.Fatalf("the replacement was refused, the transcript stayed, yet: %v", err)
					}
					t.Skipf("Windows refuses to replace the transcript while compactd holds it open at %s; the compaction went on (%s)", step, res.Version)
				}
				now, statErr := os.ReadFile(path)
				switch action {
				case "delete":
					if statErr == nil {
						t.Errorf("the deleted transcript is back at its path (%d bytes)", len(now))
					}
				case "replace":
					if !bytes.Equal(now, other) {
						t.Errorf("the file put at the path was overwritten (%d bytes, want the %d it had)", len(now), len(other))
					}
				}
				if i >= written {
					// The compaction was written; the file went after.
					if err != nil {
						t.Fatalf("compacted and written before the file went, yet: %v", err)
					}
					assertStored(t, path, res.Version)
					return
				}
				if err == nil {
					t.Fatalf("exit 0 (%s written to %s) for a transcript that went before it was written", res.Version, res.ForkPath)
				}
				msg := err.Error()
				m := versionInMessage.FindStringSubmatch(msg)
				if m == nil {
					// Gone before the job had a result: nothing to keep.
					if !strings.Contains(msg, "does not exist") && !strings.Contains(msg, "was deleted") && !strings.Contains(msg, "replaced by another file") {
						t.Errorf("the error says neither that the file went nor where the version is: %v", err)
					}
					return
				}
				if !strings.Contains(msg, "compactd restore "+path+" "+m[1]) {
					t.Errorf("the error does not say how to restore %s: %v", m[1], err)
				}
				assertStored(t, path, m[1])
			})
		}
	}
}

// assertStored checks that the store holds version label of the
// conversation at path, a compaction whose content is a transcript.
func assertStored(t *testing.T, path, label string) {
	t.Helper()
	s, err := store.Open(context.Background(), os.Getenv("COMPACTD_STORE"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := New(s)
	conv, err := r.findConversation(context.Background(), path)
	if err != nil {
		t.Fatalf("the conversation is not in the store: %v", err)
	}
	v, err := s.Version(context.Background(), conv.ID, label)
	if err != nil {
		t.Fatalf("%s is not in the store: %v", label, err)
	}
	if v.Kind != store.KindCompact {
		t.Errorf("%s is a %s, want the compaction", label, v.Kind)
	}
	content, err := s.Content(context.Background(), v.ContentHash)
	if err != nil {
		t.Fatalf("the content of %s: %v", label, err)
	}
	if tr := parse(t, path, content); len(tr.Messages) == 0 {
		t.Errorf("%s holds no conversation", label)
	}
}
