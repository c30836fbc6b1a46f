package facts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/sessiongen"
)

// FuzzExpressionsOnRuns holds the prefilters and the run-by-run matching
// (see match) to the expressions they stand in for, on any text: paths,
// identifiers, decisions, rules, error lines and exit codes.
func FuzzExpressionsOnRuns(f *testing.F) {
	for _, s := range []string{
		"", "edit `ReconcileLedger` in internal/ledger/apply.go", "C:/Users/me/app.ts and ~/x/y.go", "a/b.c/d.e",
		"We decided to go with pgx instead of lib/pq.", "You MUST never push", "muſt (long s)", "DECIſION", "`a.b.c` `x`",
		"see https://example.com/a/b.html or ./rel/path.md:12", "foo/bar.baz\u00a0qux/x.go", "@scope/pkg/index.js", "`bad``ok_1`",
		"ErRoR: mixed case", "C:\\x\\a.go:12: bad", "--- FAIL: TestX", "Process exited with code 2", "EXIT CODE: 1", "eXit ſtatus 3",
		"Traceback (most recent call last):", "ＥＲＲＯＲ: fullwidth", "exit_code\":1",
		`edit C:\Users\ada\calc\main.go and D:\a\b.c\d.txt`, `a\b.go \\server\share\x.md c:\x`,
	} {
		f.Add(s)
	}
	formattest.SeedLines[string](f, sessiongen.ClaudeCode(sessiongen.Options{Seed: 7, Turns: 12}))
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := pathRuns().FindAll(text), pathToken().FindAllString(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("paths of %q: %q, the expression finds %q", text, got, want)
		}
		if got, want := identRuns().FindAllSubmatch(text), identToken().FindAllStringSubmatch(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("identifiers of %q: %q, the expression finds %q", text, got, want)
		}
		code, ok := ExitCode(text)
		if m := exitCode().FindStringSubmatch(edges(text)); (m != nil) != ok || ok && m[1] != code {
			t.Fatalf("ExitCode(%q) = %q, %v; the expression finds %q", text, code, ok, m)
		}
		for _, line := range strings.Split(text, "\n") {
			if got, want := isDecision(line), decisionLine().MatchString(line); got != want {
				t.Fatalf("isDecision(%q) = %v, the expression says %v", line, got, want)
			}
			if got, want := LaysDownRule(line), ruleWord().MatchString(line); got != want {
				t.Fatalf("LaysDownRule(%q) = %v, the expression says %v", line, got, want)
			}
			if got, want := IsErrorLine(line), errorLine().MatchString(line); got != want {
				t.Fatalf("IsErrorLine(%q) = %v, the expression says %v", line, got, want)
			}
		}
	})
}

// Paths as agents on Windows write them are facts too, whatever OS reads
// the session: C:\Users\…\main.go with backslashes, E:/AI/… with slashes.
func TestWindowsPathsAreFacts(t *testing.T) {
	for text, want := range map[string][]string{
		`I edited C:\Users\ada\calc\main.go and C:\Users\ada\calc\go.mod.`: {`C:\Users\ada\calc\main.go`, `C:\Users\ada\calc\go.mod`},
		"Run E:/AI/proj/app.py first.":                                     {"E:/AI/proj/app.py"},
		`a regex \d+\.txt is no path`:                                      nil,
	} {
		if got := pathRuns().FindAll(text); !reflect.DeepEqual(got, want) {
			t.Errorf("paths of %q: %q, want %q", text, got, want)
		}
	}
}
