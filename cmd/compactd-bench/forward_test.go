package main

import (
	"slices"
	"sort"
	"testing"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

func entityKeys(s entitySet) []string {
	var out []string
	for e := range s {
		out = append(out, e.Kind+":"+e.Key)
	}
	sort.Strings(out)
	return out
}

func TestMeasureEntities(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"edit /Users/dev/repo/cmd/entire/cli/reset.go and reset_test.go", []string{"path:cli/reset.go", "path:reset_test.go"}},
		{"call paths.RepoRoot() not os.Getwd, see fileExists", []string{"identifier:RepoRoot", "identifier:fileExists", "identifier:os.Getwd", "identifier:paths.RepoRoot"}},
		{"read and/or write, e.g. the docs", nil},
		{"see https://github.com/x/y/pull/3. TS2345 and ENOENT", []string{"error-code:ENOENT", "error-code:TS2345", "url:https://github.com/x/y/pull/3"}},
		{"MAX_RETRIES is 3; the String method", []string{"identifier:MAX_RETRIES"}},
	}
	for _, tt := range tests {
		got := entitySet{}
		textEntities(tt.text, got)
		if keys := entityKeys(got); !slices.Equal(keys, tt.want) {
			t.Errorf("textEntities(%q) = %v, want %v", tt.text, keys, tt.want)
		}
	}
}

func TestMeasureCommands(t *testing.T) {
	got := entitySet{}
	argsEntities(`{"command":"cd /repo && GOFLAGS=-x go test ./redact -count=1 | tail -5"}`, got)
	argsEntities(`{"command":["bash","-lc","git status --short"]}`, got)
	for _, want := range []string{"command:go test", "command:tail", "command:git status"} {
		if !slices.Contains(entityKeys(got), want) {
			t.Errorf("commands %v lack %s", entityKeys(got), want)
		}
	}
}

func TestMeasureContainsWord(t *testing.T) {
	if containsWord("RunTests ran", "Run") {
		t.Error("Run found inside RunTests")
	}
	if !containsWord("call Run() now", "Run") {
		t.Error("Run not found")
	}
}

// TestTruncationKeepsNewestWithinTokens: plain truncation fits its budget
// and keeps the newest text, cutting into the oldest message it reaches.
func TestTruncationKeepsNewestWithinTokens(t *testing.T) {
	c, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	s := &forwardScorer{counter: c}
	var msgs []transcript.Message
	for i := range 40 {
		text := "we changed handler" + string(rune('A'+i%26)) + "Func in pkg/handler.go and ran the tests again without trouble"
		msgs = append(msgs, transcript.Message{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartText, Text: text}}})
	}
	ref := entitySet{{entIdent, "handlerAFunc"}: true, {entIdent, "handlerNFunc"}: true}
	got := s.truncate(msgs, ref, 100)
	if got.Tokens > 100 || got.Tokens < 90 {
		t.Errorf("truncation to 100 tokens kept %d", got.Tokens)
	}
	if got.Kept != 1 {
		t.Errorf("kept %d of the reference, want the newest one only", got.Kept)
	}
}
