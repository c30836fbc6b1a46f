package platform

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// WalkDir visits what filepath.WalkDir visits, in its order, and honours
// SkipDir from a folder and from a file.
func TestWalkDirIsFilepathWalkDir(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a/x.jsonl", "a/skip/y.jsonl", "b/c/z.jsonl", "b/stop", "b/then", "top.jsonl"} {
		p = filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	walk := func(w func(string, fs.WalkDirFunc) error) []string {
		var seen []string
		err := w(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			seen = append(seen, p)
			switch d.Name() {
			case "skip":
				return fs.SkipDir // a folder: not entered
			case "stop":
				return fs.SkipDir // a file: the rest of its folder is left
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return seen
	}
	got, want := walk(WalkDir), walk(filepath.WalkDir)
	if !slices.Equal(got, want) {
		t.Fatalf("WalkDir visited\n%q\nfilepath.WalkDir\n%q", got, want)
	}
	if err := WalkDir(filepath.Join(root, "missing"), func(string, fs.DirEntry, error) error { return fs.SkipDir }); err != nil {
		t.Fatalf("a missing root whose error is skipped: %v", err)
	}
}

// A folder compactd holds open to list it can be removed by another
// program meanwhile (on Windows only with delete sharing).
func TestListedFolderCanBeRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	if err := os.MkdirAll(filepath.Join(dir, "2026"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(dir, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadDir(-1); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "2026")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatalf("remove a folder compactd is listing: %v", err)
	}
}
