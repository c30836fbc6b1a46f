package jsonl

import (
	"testing"

	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/newid"
)

func TestChainLinksRecords(t *testing.T) {
	c := Chain{IDKey: "uuid", ParentKey: "parentUuid", Seed: "fork-1"}
	for _, raw := range []string{`{"uuid":"a","parentUuid":"x","n":1}`, `{"n":2}`, `{"uuid":"","n":3}`} {
		o, err := jsonx.ParseObject([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		c.Emit(o)
	}
	id1, id2 := newid.Derived("fork-1", 1), newid.Derived("fork-1", 2)
	want := `{"uuid":"a","parentUuid":null,"n":1}` + "\n" +
		`{"n":2,"uuid":"` + id1 + `","parentUuid":"a"}` + "\n" +
		`{"uuid":"` + id2 + `","n":3,"parentUuid":"` + id1 + `"}` + "\n"
	if got := c.Out.String(); got != want {
		t.Fatalf("chain:\n%s\nwant:\n%s", got, want)
	}
}
