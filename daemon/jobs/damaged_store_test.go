package jobs

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/daemon/store"
)

// A store that finds content by its hash can still have lost the pages
// behind it. In-place writes replace nothing until the store has given the
// prior content back byte for byte, and a store failing its integrity
// check takes no writes at all: the transcript stays byte-identical, and
// the error says so and how to repair the store. (Before: exit 0, the
// transcript replaced, and `restore v1` failed with "no rows".)
func TestInPlaceOnDamagedStoreLeavesTranscriptUntouched(t *testing.T) {
	damage := map[string]func(t *testing.T, r *Runner){
		// Rows gone but the database consistent: only reading back finds it.
		"segments deleted": func(t *testing.T, r *Runner) {
			if _, err := r.Store.DB().Exec(`DELETE FROM blobs`); err != nil {
				t.Fatal(err)
			}
		},
		// Pages overwritten: the integrity check finds it.
		"random bytes in the middle": func(t *testing.T, r *Runner) {
			path := r.Store.Path()
			if err := r.Store.Checkpoint(context.Background()); err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(path)
			junk := make([]byte, 4096)
			rand.Read(junk)
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			// Every page past the first: which one holds what varies.
			for off := int64(4096); off < fi.Size(); off += 3 * 4096 {
				f.WriteAt(junk, off)
			}
			f.Close()
		},
	}
	for name, spoil := range damage {
		for _, op := range []string{"compact", "restore"} {
			t.Run(name+"/"+op, func(t *testing.T) {
				root := isolate(t)
				ctx := context.Background()
				r := realRunner(t)
				path, _ := claudeSession(t, filepath.Join(root, "p"), 31, 30)
				if _, err := r.Compact(ctx, Request{Path: path}); err != nil {
					t.Fatal(err)
				}
				if op == "restore" {
					// The file now differs from every stored version, so
					// restoring must record it first.
					f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
					f.Write([]byte(`{"type":"summary","summary":"appended","leafUuid":"x"}` + "\n"))
					f.Close()
				}
				before, _ := os.ReadFile(path)
				spoil(t, r)
				// A new process finds the damage (this one caches pages).
				r.Store.Close()
				s, err := store.Open(ctx, r.Store.Path())
				if err == nil {
					defer s.Close()
					r = New(s)
				}
				if err != nil {
					// Refused at open: as good, when it says how to repair.
					if !strings.Contains(err.Error(), "compactd doctor --fix") {
						t.Fatalf("open of the damaged store: %v; want it to say how to repair", err)
					}
					return
				}
				if op == "compact" {
					_, err = r.Compact(ctx, Request{Path: path, InPlace: true})
				} else {
					_, err = r.Restore(ctx, path, "v2", true)
				}
				after, _ := os.ReadFile(path)
				if !bytes.Equal(before, after) {
					t.Fatalf("%s --in-place on a damaged store changed the transcript (err = %v)", op, err)
				}
				if err == nil {
					t.Fatalf("%s --in-place on a damaged store succeeded; want a refusal", op)
				}
				msg := err.Error()
				for _, want := range []string{path + " is untouched", r.Store.Path(), "compactd doctor --fix"} {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q does not say %q", msg, want)
					}
				}
				if strings.Count(msg, "\n") > 0 {
					t.Errorf("error is not one sentence: %q", msg)
				}
				if temps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".compactd-*.tmp")); len(temps) > 0 {
					t.Errorf("temporary files left: %v", temps)
				}
			})
		}
	}
}
