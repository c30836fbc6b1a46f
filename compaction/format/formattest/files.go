package formattest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
)

// Read returns the file at path, failing the test when it cannot.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Fixture returns testdata/name of the package under test.
func Fixture(t testing.TB, name string) []byte {
	t.Helper()
	return Read(t, filepath.Join("testdata", name))
}

// Fixtures lists the files of the package's testdata folder (not its
// subfolders) whose base name matches one of patterns, sorted; it fails
// the test when none does, so a misspelt pattern cannot pass silently.
func Fixtures(t testing.TB, patterns ...string) []string {
	t.Helper()
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && matches(e.Name(), patterns) {
			files = append(files, filepath.Join("testdata", e.Name()))
		}
	}
	if len(files) == 0 {
		t.Fatalf("no testdata file matches %q", patterns)
	}
	return files
}

// IsGolden reports whether path names a golden file (an expected output,
// not an input).
func IsGolden(path string) bool { return strings.Contains(filepath.Base(path), ".golden.") }

// RepoRoot is the repository's root folder: the nearest folder above the
// working directory (go test runs a test in its package's folder) that holds
// compactd's go.mod. Not runtime.Caller: make builds with -trimpath, which
// leaves the file's name without its folder. Failing that, the working
// directory itself, so a missing file is reported where it was looked for.
func RepoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	if root, ok := ModuleRoot(wd); ok {
		return root
	}
	return wd
}

// ModuleRoot returns the nearest folder from dir up that holds compactd's
// go.mod (not another module's, such as a test project's).
func ModuleRoot(dir string) (string, bool) {
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/compactd/compactd\n")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// CorpusDir is the shared sample corpus (../shared/corpus beside the
// repository), or "" when it is absent: tests must pass without it.
func CorpusDir() string {
	dir := filepath.Join(RepoRoot(), "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// NoCorpus ends a test that needs the shared corpus when it is missing:
// it skips, saying so, except under CI (CI=true), where the corpus sits
// beside the clone and a missing one must fail rather than pass silently.
func NoCorpus(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: the corpus tests must run; ../shared/corpus belongs beside the clone)", why)
	}
	t.Skip(why)
}

// Corpus returns the files below the corpus folder dir (its subfolders
// included) whose base name matches one of patterns (filepath.Match; no
// pattern means every file but the provenance notes, SOURCES.md), sorted.
// It skips the test when the folder is absent and fails it when the
// folder holds no matching file.
func Corpus(t *testing.T, dir string, patterns ...string) []string {
	t.Helper()
	root := CorpusDir()
	if root == "" {
		NoCorpus(t, "shared corpus not present beside "+RepoRoot())
	}
	base := filepath.Join(root, dir)
	if _, err := os.Stat(base); err != nil {
		NoCorpus(t, "corpus "+base+" not present")
	}
	var files []string
	err := filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "SOURCES.md" && (len(patterns) == 0 || matches(d.Name(), patterns)) {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatalf("walk corpus %s: %v", base, err)
	}
	if len(files) == 0 {
		t.Fatalf("corpus %s has no file matching %q", base, patterns)
	}
	return files
}

func matches(name string, patterns []string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool {
		ok, _ := filepath.Match(p, name)
		return ok
	})
}

// A Sample is a file detectors are tried on: a codec's fixture or a
// corpus file.
type Sample struct {
	Path string
	// Owner is the codec package whose testdata holds the file ("claude",
	// "gemini", …) or, for a corpus file, its corpus folder ("claude-code",
	// "gemini-cli", …).
	Owner  string
	Corpus bool
}

// Samples lists every codec's testdata files (fuzz corpora and the
// SOURCES.md that says where fixtures came from left out) and, when the
// shared corpus is present, every corpus file but SOURCES.md.
// Fixture paths are relative to the package under test, which must be a
// codec folder beside the others.
func Samples(t testing.TB) []Sample {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join("..", "*", "testdata"))
	var out []Sample
	for _, d := range dirs {
		owner := filepath.Base(filepath.Dir(d))
		_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case e.IsDir() && e.Name() == "fuzz":
				return filepath.SkipDir
			case !e.IsDir() && e.Name() != "SOURCES.md":
				out = append(out, Sample{Path: p, Owner: owner})
			}
			return nil
		})
	}
	if len(out) == 0 {
		t.Fatal("no codec testdata found beside the package under test")
	}
	root := CorpusDir()
	if root == "" {
		t.Log("shared corpus absent: corpus samples left out")
		return out
	}
	_ = filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && e.Name() != "SOURCES.md" {
			rel, _ := filepath.Rel(root, p)
			out = append(out, Sample{Path: p, Owner: strings.Split(filepath.ToSlash(rel), "/")[0], Corpus: true})
		}
		return nil
	})
	return out
}

// Head returns what a detector sees of the file at path: its first
// format.DetectBytes bytes.
func Head(t testing.TB, path string) []byte {
	t.Helper()
	b := Read(t, path)
	return b[:min(len(b), format.DetectBytes)]
}
