package match

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestRunsGiveWhatTheExpressionGives(t *testing.T) {
	re := regexp.MustCompile(`\b[a-z]+/[a-z.]+\b|x\d`)
	runs := NewRuns(re, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./", func(run string) bool {
		return strings.ContainsAny(run, "/x")
	})
	for _, text := range []string{
		"", "nothing here", "see src/main.go and lib/a.b, then x1", "(pkg/file.go)x2", "a/b/c/d", "é/ü src/x.go",
		"trailing src/", "/root/", "x9x8 ab/cd", "ab/cd\n\tef/gh", "αβγ/δ ok/fine",
	} {
		if got, want := runs.FindAll(text), re.FindAllString(text, -1); !reflect.DeepEqual(got, want) {
			t.Errorf("FindAll(%q) = %q, the expression gives %q", text, got, want)
		}
		if got, want := runs.FindAllSubmatch(text), re.FindAllStringSubmatch(text, -1); !reflect.DeepEqual(got, want) {
			t.Errorf("FindAllSubmatch(%q) = %q, the expression gives %q", text, got, want)
		}
		repl := func(s string) string { return "<" + strings.ToUpper(s) + ">" }
		if got, want := runs.ReplaceAllFunc(text, repl), re.ReplaceAllStringFunc(text, repl); got != want {
			t.Errorf("ReplaceAllFunc(%q) = %q, the expression gives %q", text, got, want)
		}
	}
}

// TestMayHoldIsExactUnderCaseFolding: MayHold says false only where a
// case-folded expression of the words cannot match, beyond ASCII too.
func TestMayHoldIsExactUnderCaseFolding(t *testing.T) {
	words := []string{"must", "never"}
	for text, want := range map[string]bool{
		"You MUST test": true, "Never again": true, "nothing": false, "muſt (long s)": true, "": false,
		"NEVER — ever": true, "névér": false, "ＭＵＳＴ fullwidth": false, "İ must": true, "tick ✓ only": false,
	} {
		if got := MayHold(text, words); got != want {
			t.Errorf("MayHold(%q) = %v, want %v", text, got, want)
		}
		if re := regexp.MustCompile(`(?i)must|never`); re.MatchString(text) && !MayHold(text, words) {
			t.Errorf("MayHold(%q) = false, the expression matches", text)
		}
	}
}

func FuzzMayHold(f *testing.F) {
	for _, s := range []string{"MUST", "muſt", "Kelvin K", "névér", "exIt", ""} {
		f.Add(s)
	}
	re := regexp.MustCompile(`(?i)must|never|kick|exit`)
	words := []string{"must", "never", "kick", "exit"}
	f.Fuzz(func(t *testing.T, s string) {
		if re.MatchString(s) && !MayHold(s, words) {
			t.Fatalf("MayHold(%q) = false, the expression matches", s)
		}
	})
}
