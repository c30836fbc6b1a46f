package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Recover keeps every version whose content reads back whole, with its
// label and lineage, drops the rest, keeps the damaged file beside the
// store, and leaves a store that passes its integrity check — for a store
// truncated to a fraction of its size and for one with pages overwritten.
func TestRecoverKeepsWhatReadsBack(t *testing.T) {
	for _, damage := range []string{"truncated", "overwritten"} {
		t.Run(damage, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "compactd.db")
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]byte{}
			var parent int64
			for i := 0; i < 40; i++ {
				c, _ := s.EnsureConversation(ctx, Conversation{Key: fmt.Sprintf("path:/c%d", i%4), SourcePath: fmt.Sprintf("/c%d", i%4)})
				// Incompressible, so versions spread over many pages.
				var b strings.Builder
				for j := 0; j < 30; j++ {
					noise := make([]byte, 300)
					rand.Read(noise)
					fmt.Fprintf(&b, "{\"turn\":%d,\"text\":\"%x\"}\n", i, noise)
				}
				content := []byte(b.String())
				v, _, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindCompact, ParentID: parent, SourcePath: c.SourcePath, Content: content, Cuts: LineCuts(content)})
				if err != nil {
					t.Fatal(err)
				}
				parent = 0
				want[c.Key+" "+v.Label] = content
			}
			s.Checkpoint(ctx)
			s.Close()
			fi, _ := os.Stat(path)
			switch damage {
			case "truncated":
				os.Truncate(path, fi.Size()*2/3)
			case "overwritten":
				f, _ := os.OpenFile(path, os.O_WRONLY, 0)
				f.WriteAt(bytes.Repeat([]byte{0xA5}, 3*4096), fi.Size()/2/4096*4096)
				f.Close()
			}
			rec, err := Recover(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(rec.DamagedKept); err != nil {
				t.Errorf("the damaged store was not kept: %v", err)
			}
			// Truncation can take every page of the versions table; pages
			// overwritten in the middle leave most of them.
			if damage == "overwritten" && rec.Versions == 0 || rec.Versions+len(rec.Lost) > len(want) {
				t.Errorf("recovered %d versions, lost %d, of %d", rec.Versions, len(rec.Lost), len(want))
			}
			s, err = Open(ctx, path)
			if err != nil {
				t.Fatalf("open the recovered store: %v", err)
			}
			defer s.Close()
			if probs, err := s.IntegrityCheck(ctx); err != nil || len(probs) > 0 {
				t.Fatalf("recovered store: %v %v", probs, err)
			}
			all, err := s.AllVersions(ctx)
			if err != nil || len(all) != rec.Versions {
				t.Fatalf("AllVersions = %d, %v; want %d", len(all), err, rec.Versions)
			}
			cs, _ := s.Conversations(ctx)
			keys := map[int64]string{}
			for _, c := range cs {
				keys[c.ID] = c.Key
			}
			for _, v := range all {
				got, err := s.Content(ctx, v.ContentHash)
				if err != nil || !bytes.Equal(got, want[keys[v.ConversationID]+" "+v.Label]) {
					t.Errorf("%s %s: recovered content differs (%v)", keys[v.ConversationID], v.Label, err)
				}
			}
			t.Logf("%s: %d versions recovered, %d lost, %d unreadable rows", damage, rec.Versions, len(rec.Lost), rec.LostRows)
		})
	}
}

// A store once opened while read-only left its -wal and -shm read-only
// (SQLite gives them the database file's mode), and every later write
// failed with "attempt to write a readonly database" until fixed by hand.
// Open makes them writable again; a read-only store file is refused
// before SQLite creates anything beside it.
func TestOpenFixesReadOnlySidecars(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "compactd.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, suffix := range []string{"-wal", "-shm"} {
		os.WriteFile(path+suffix, nil, 0o400)
		os.Chmod(path+suffix, 0o400)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("open with read-only sidecars: %v", err)
	}
	c, err := s.EnsureConversation(ctx, Conversation{Key: "path:/x", SourcePath: "/x"})
	if err != nil {
		t.Fatalf("write after the fix: %v", err)
	}
	_ = c
	for _, suffix := range []string{"-wal", "-shm"} {
		if fi, err := os.Stat(path + suffix); err == nil && fi.Mode().Perm()&0o200 == 0 {
			t.Errorf("%s is still %04o", suffix, fi.Mode().Perm())
		}
	}
	s.Close()

	os.Chmod(path, 0o400)
	_, err = Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "chmod 600 "+path) {
		t.Errorf("open of a read-only store: %v; want a refusal saying chmod 600", err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if fi, err := os.Stat(path + suffix); err == nil && fi.Mode().Perm()&0o200 == 0 {
			t.Errorf("refusing a read-only store left %s at %04o", suffix, fi.Mode().Perm())
		}
	}
}
