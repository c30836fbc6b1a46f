package salience

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

func text(role transcript.Role, origin transcript.Origin, s string) transcript.Message {
	return transcript.Message{Role: role, Origin: origin, Parts: []transcript.Part{{Kind: transcript.PartText, Text: s}}}
}

func call(name, args string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartToolCall, ToolName: name, Args: args, ToolCallID: "c"}}}
}

func output(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Parts: []transcript.Part{{Kind: transcript.PartToolResult, Text: s, ToolCallID: "c"}}}
}

func TestScan(t *testing.T) {
	var got []string
	Scan("Edit cmd/server/main.go: call `parseRequest` and store.ReserveStock, see https://go.dev/doc/ (ENOENT, TS2345); max_retries", func(e Entity) {
		got = append(got, e.Kind.String()+":"+e.Text)
	})
	want := []string{"url:https://go.dev/doc/", "path:cmd/server/main.go", "error:ENOENT", "error:TS2345", "identifier:parseRequest", "identifier:store.ReserveStock", "identifier:max_retries"}
	if !slices.Equal(got, want) {
		t.Errorf("Scan = %v\nwant %v", got, want)
	}
}

func TestRelative(t *testing.T) {
	for _, tc := range []struct{ path, cwd, want string }{
		{"/home/u/repo/cmd/main.go", "/home/u/repo", "cmd/main.go"},
		{"/home/u/repo2/x.go", "/home/u/repo", "/home/u/repo2/x.go"},
		{"cmd/main.go", "/home/u/repo", "cmd/main.go"},
		{`C:\src\app\main.go`, `C:\src\app`, "main.go"},
	} {
		if got := Relative(tc.path, tc.cwd); got != tc.want {
			t.Errorf("Relative(%q, %q) = %q, want %q", tc.path, tc.cwd, got, tc.want)
		}
	}
}

// TestScoreFavoursRecencyReuseAndWhoNamedIt: of two names mentioned as
// often, the recent one ranks higher; a name the user typed outranks one
// only a tool printed; a file edited outranks a file read as recently; the
// absolute and relative spellings of one file are one entity.
func TestScoreFavoursRecencyReuseAndWhoNamedIt(t *testing.T) {
	var msgs []transcript.Message
	msgs = append(msgs, text(transcript.RoleUser, transcript.OriginHuman, "Look at `oldHelper` please"))
	msgs = append(msgs, text(transcript.RoleAssistant, transcript.OriginAgent, "oldHelper is fine"))
	for i := range 60 {
		msgs = append(msgs, output(fmt.Sprintf("line %d of some output", i)))
	}
	msgs = append(msgs, call("Read", `{"file_path":"/repo/internal/read.go"}`), output("package internal // printedOnlyName"))
	msgs = append(msgs, call("Edit", `{"file_path":"/repo/internal/edit.go","old_string":"a","new_string":"b"}`), output("ok"))
	msgs = append(msgs, text(transcript.RoleUser, transcript.OriginHuman, "now fix `newHelper` in internal/edit.go"))
	msgs = append(msgs, text(transcript.RoleAssistant, transcript.OriginAgent, "newHelper it is"))
	x := Build(msgs, Options{Cwd: "/repo"})
	score := func(k Kind, s string) float64 {
		st := x.Stat(Entity{k, s})
		if st == nil {
			t.Fatalf("%s %q not indexed", k, s)
		}
		return st.Score
	}
	if a, b := score(Identifier, "newHelper"), score(Identifier, "oldHelper"); a <= b {
		t.Errorf("recent newHelper %.3f ≤ old oldHelper %.3f", a, b)
	}
	if a, b := score(Identifier, "newHelper"), score(Identifier, "printedOnlyName"); a <= b {
		t.Errorf("user-named newHelper %.3f ≤ printed-only %.3f", a, b)
	}
	if a, b := score(Path, "internal/edit.go"), score(Path, "internal/read.go"); a <= b {
		t.Errorf("edited file %.3f ≤ read file %.3f", a, b)
	}
	if st := x.Stat(Entity{Path, "internal/edit.go"}); st == nil || st.Messages != 2 || !st.Edited {
		t.Errorf("internal/edit.go: %+v, want the edit and the prompt as one entity, edited", st)
	}
	r := x.Ranked()
	for i := 1; i < len(r); i++ {
		if r[i].Score > r[i-1].Score {
			t.Fatalf("Ranked out of order at %d", i)
		}
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	msgs := []transcript.Message{
		call("Grep", `{"pattern":"fooBar","path":"/r/a.go","glob":"*.go","output_mode":"content"}`),
		output("a.go:1: fooBar bazQux"),
		text(transcript.RoleAssistant, transcript.OriginAgent, "fooBar and bazQux and a.go"),
	}
	first := Build(msgs, Options{}).Ranked()
	for range 20 {
		again := Build(msgs, Options{}).Ranked()
		for i := range first {
			if first[i].Entity != again[i].Entity || first[i].Score != again[i].Score {
				t.Fatalf("run differs at %d: %+v vs %+v", i, first[i], again[i])
			}
		}
	}
}

// TestBuildOnEveryCoreIsOnePass: the index built with the texts scanned
// on every core is the one a single pass builds — every stat (scores,
// counts, first and last message, edited, ran) and every message's list.
func TestBuildOnEveryCoreIsOnePass(t *testing.T) {
	for _, src := range [][]byte{
		sessiongen.ClaudeCode(sessiongen.Options{Seed: 3, Turns: 80}),
		sessiongen.Codex(sessiongen.Options{Seed: 4, Turns: 60}),
	} {
		tr := parseForTest(t, src)
		dump := func(x *Index) string {
			var b strings.Builder
			keys := make([]Entity, 0, len(x.stats))
			for e := range x.stats {
				keys = append(keys, e)
			}
			sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
			for _, e := range keys {
				fmt.Fprintf(&b, "%+v\n", *x.stats[e])
			}
			for i, l := range x.msgs {
				for _, m := range l {
					fmt.Fprintf(&b, "%d %v %d\n", i, m.stat.Entity, m.src)
				}
			}
			return b.String()
		}
		prev := runtime.GOMAXPROCS(1)
		one := dump(Build(tr.Messages, Options{Cwd: tr.Meta.Cwd, OutputWindow: 30}))
		runtime.GOMAXPROCS(max(prev, 4))
		all := dump(Build(tr.Messages, Options{Cwd: tr.Meta.Cwd, OutputWindow: 30}))
		runtime.GOMAXPROCS(prev)
		if len(one) < 1000 || one != all {
			t.Fatalf("one pass and every core differ (%d and %d bytes of dump)", len(one), len(all))
		}
	}
}

func parseForTest(t *testing.T, src []byte) *transcript.Transcript {
	t.Helper()
	c, err := format.Detect("session.jsonl", src)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
