package summarize

import (
	"reflect"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/sessiongen"
)

// FuzzMentionsOnRuns holds the run-by-run matching of paths and
// identifiers (see match) to the expressions, on any text.
func FuzzMentionsOnRuns(f *testing.F) {
	for _, s := range []string{
		"", "edit `ReconcileLedger` in internal/ledger/apply.go", "../up/one.py and ~/x/y.go", "main.go:12: undefined: fooBar",
		"pkg.Name and snake_case_name and CamelCase", "`Map<K, V>` `(x)` `a-b`", "http.Handler.ServeHTTP", "x.Y", "aB",
		"see https://example.com/a/b.html or ./rel/path.md:12", "é/ü src/x.go", "ÄB cD", "9Z _a",
	} {
		f.Add(s)
	}
	formattest.SeedLines[string](f, sessiongen.ClaudeCode(sessiongen.Options{Seed: 9, Turns: 12}))
	mark := func(s string) string { return "<" + s + ">" }
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := pathRuns().ReplaceAllFunc(text, mark), rePath().ReplaceAllStringFunc(text, mark); got != want {
			t.Fatalf("paths of %q: %q, the expression gives %q", text, got, want)
		}
		if got, want := identifierRuns().FindAllSubmatch(text), reIdentifier().FindAllStringSubmatch(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("identifiers of %q: %q, the expression finds %q", text, got, want)
		}
	})
}
