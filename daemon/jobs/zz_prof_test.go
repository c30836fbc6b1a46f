package jobs

import (
	"context"
	"os"
	"testing"

	"github.com/compactd/compactd/daemon/store"
)

func TestZZProf(t *testing.T) {
	p := os.Getenv("PROF_FILE")
	if p == "" {
		t.Skip()
	}
	s, err := store.Open(context.Background(), t.TempDir()+"/s.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := New(s)
	res, err := r.Compact(context.Background(), Request{Path: p, Out: t.TempDir() + "/out.jsonl"})
	t.Log(res, err)
}
