package formattest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is the -update flag every golden test shares: registered once,
// here, so `go test ./compaction/... -update` rewrites every golden.
var update = flag.Bool("update", false, "rewrite golden files in testdata")

// Golden compares got with testdata/name, or, under -update, writes got
// there. Review a rewritten golden before committing it.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (run with -update to create it)", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden at byte %d (run with -update after checking):\n%s", path, firstDifference(got, want), got)
	}
}

func firstDifference(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
