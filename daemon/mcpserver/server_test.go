package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/agents/claude"
	"github.com/compactd/compactd/daemon/jobs"
	"github.com/compactd/compactd/daemon/store"
)

// fixture is a Claude Code session of a project compacted into a fork, in
// a temp home, and an MCP client connected to a Server over it.
type fixture struct {
	source, fork string
	storePath    string
	client       *mcp.ClientSession
	server       *Server
}

const project = "/home/dev/src/ledger"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	env := agents.Env{Home: filepath.Join(root, "home"), Vars: map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(root, "claude")}}
	dir := claude.ProjectDir(env, project)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "jobs", "testdata", "claude-31-turns.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{source: filepath.Join(dir, "2f6e9a14-8b3c-4d7e-a15f-0c9d8e7b6a52.jsonl"), storePath: filepath.Join(root, "store", "compactd.db")}
	if err := os.WriteFile(f.source, src, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, f.storePath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := jobs.New(st).Compact(ctx, jobs.Request{Path: f.source, Options: strategy.Options{Strategies: []string{strategy.StrategyStripToolResults}}})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	f.fork = res.ForkPath
	f.server = &Server{StorePath: f.storePath, Env: env, Cwd: project, Agent: claude.Agent}
	t.Cleanup(func() { f.server.Close() })
	st1, st2 := mcp.NewInMemoryTransports()
	if _, err := New(f.server, "test").Connect(ctx, st1, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	if f.client, err = client.Connect(ctx, st2, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.client.Close() })
	return f
}

func (f *fixture) call(t *testing.T, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := f.client.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	return res
}

func text(t *testing.T, res *mcp.CallToolResult, i int) string {
	t.Helper()
	if len(res.Content) <= i {
		t.Fatalf("result has %d content blocks, want block %d", len(res.Content), i)
	}
	tc, ok := res.Content[i].(*mcp.TextContent)
	if !ok {
		t.Fatalf("block %d is %T, not text", i, res.Content[i])
	}
	return tc.Text
}

// toolOutputs maps each tool_use id of a Claude Code session to its
// result's text, as the session recorded it.
func toolOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(rec.Message.Content, &blocks) != nil {
			continue
		}
		for _, bl := range blocks {
			var s string
			if bl.Type == "tool_result" && json.Unmarshal(bl.Content, &s) == nil {
				out[bl.ToolUseID] = s
			}
		}
	}
	return out
}

// placeholders maps each tool_use id whose result the fork replaced to
// the handle its placeholder names.
func placeholders(t *testing.T, fork string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for id, text := range toolOutputs(t, fork) {
		if hs := recall.Find(text); strings.HasPrefix(text, "[compacted: ") && len(hs) == 1 {
			out[id] = hs[0]
		}
	}
	return out
}

func TestRecallGivesBackTheOriginalToolOutput(t *testing.T) {
	f := newFixture(t)
	originals := toolOutputs(t, f.source)
	handles := placeholders(t, f.fork)
	if len(handles) == 0 {
		t.Fatal("the fork replaced no tool output with a placeholder naming a handle")
	}
	for id, h := range handles {
		res := f.call(t, "recall", map[string]any{"handle": h})
		if res.IsError {
			t.Fatalf("recall %s: %s", h, text(t, res, 0))
		}
		if got := text(t, res, 0); got != originals[id] {
			t.Fatalf("recall %s (tool call %s) = %d bytes, not the %d of the original output", h, id, len(got), len(originals[id]))
		}
		if len(res.Content) != 1 {
			t.Fatalf("recall %s: a one-page content comes as one block, got %d", h, len(res.Content))
		}
	}
}

func TestRecallPagesJoinToTheOriginal(t *testing.T) {
	f := newFixture(t)
	originals := toolOutputs(t, f.source)
	var id, h string
	for i, hh := range placeholders(t, f.fork) {
		if id == "" || len(originals[i]) > len(originals[id]) {
			id, h = i, hh
		}
	}
	var joined strings.Builder
	pages := 0
	for page := 1; ; page++ {
		res := f.call(t, "recall", map[string]any{"handle": h, "max_tokens": 100, "page": page})
		if res.IsError {
			t.Fatalf("page %d: %s", page, text(t, res, 0))
		}
		joined.WriteString(text(t, res, 0))
		pages++
		if len(res.Content) < 2 || !strings.Contains(text(t, res, 1), "for the next") {
			break
		}
	}
	if pages < 2 {
		t.Fatalf("a %d-byte output in pages of 100 tokens came in %d page", len(originals[id]), pages)
	}
	if joined.String() != originals[id] {
		t.Fatal("the pages joined are not the original output")
	}
	res := f.call(t, "recall", map[string]any{"handle": h, "max_tokens": 100, "page": pages + 1})
	if !res.IsError || !strings.Contains(text(t, res, 0), "there is no page") {
		t.Fatalf("a page past the end: %v", res)
	}
}

func TestRecallErrorsAreClear(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct{ handle, want string }{
		{"r000000", "no recall handle r000000 in the store"},
		{"hello", "is not a recall handle"},
	} {
		res := f.call(t, "recall", map[string]any{"handle": tc.handle})
		if !res.IsError || !strings.Contains(text(t, res, 0), tc.want) {
			t.Fatalf("recall %q: IsError=%v %q, want an error saying %q", tc.handle, res.IsError, text(t, res, 0), tc.want)
		}
	}
	// A store that is not there is said so, and not created.
	f.server.Close()
	missing := &Server{StorePath: filepath.Join(t.TempDir(), "none.db"), Cwd: project}
	if _, err := missing.Recall(context.Background(), RecallRequest{Handle: "r123456"}); err == nil || !strings.Contains(err.Error(), "no store") {
		t.Fatalf("recall without a store: %v", err)
	}
	if _, err := os.Stat(missing.StorePath); err == nil {
		t.Fatal("recall created a store")
	}
}

func TestContextStatusIsTheSessionsGauge(t *testing.T) {
	f := newFixture(t)
	// The source is the session the agent is in: written last.
	touch(t, f.source)
	res := f.call(t, "context_status", nil)
	if res.IsError {
		t.Fatal(text(t, res, 0))
	}
	var st Status
	if err := json.Unmarshal([]byte(text(t, res, 0)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Path != f.source || st.Agent != "claude" || st.Source == "" {
		t.Fatalf("status of %s (%s, %s), want the source %s", st.Path, st.Agent, st.Source, f.source)
	}
	last := lastUsage(t, f.source)
	if st.Reported != last || st.Tokens < last || float64(st.Tokens-last) > 0.01*float64(last) {
		t.Fatalf("tokens %d (reported %d), want within 1%% of the last reported usage %d", st.Tokens, st.Reported, last)
	}
	if st.ContextWindow == 0 || st.Compaction == nil || st.Compaction.Saves <= 0 || len(st.Breakdown) == 0 {
		t.Fatalf("status lacks the window, the breakdown or the savings: %+v", st)
	}
	// A named session is found by its id.
	res = f.call(t, "context_status", map[string]any{"session": "2f6e9a14"})
	source, _ := json.Marshal(f.source) // as the JSON spells it (a Windows path's \ doubled)
	if res.IsError || !strings.Contains(text(t, res, 0), string(source[1:len(source)-1])) {
		t.Fatalf("by id: %s", text(t, res, 0))
	}
	res = f.call(t, "context_status", map[string]any{"session": "00000000-dead"})
	if !res.IsError || !strings.Contains(text(t, res, 0), "no session") {
		t.Fatalf("an unknown session: %s", text(t, res, 0))
	}
}

// TestSearchFindsWhatCompactionReplaced: in the agent's own session (a
// fork), search finds what the compaction replaced, in the stored version
// that still says it; scope all finds another project's session, which
// the session's own scope does not.
func TestSearchFindsWhatCompactionReplaced(t *testing.T) {
	f := newFixture(t)
	touch(t, f.fork)
	originals := toolOutputs(t, f.source)
	var needle string
	for id := range placeholders(t, f.fork) {
		lines := strings.Split(originals[id], "\n")
		needle = strings.TrimSpace(lines[len(lines)/2])
		if len(needle) > 12 {
			break
		}
	}
	search := func(args map[string]any) SearchResult {
		t.Helper()
		res := f.call(t, "search", args)
		if res.IsError {
			t.Fatal(text(t, res, 0))
		}
		var sr SearchResult
		if err := json.Unmarshal([]byte(text(t, res, 0)), &sr); err != nil {
			t.Fatal(err)
		}
		return sr
	}
	sr := search(map[string]any{"query": strings.ToUpper(needle)})
	if len(sr.Hits) == 0 || sr.Hits[0].Version != "v1" || sr.Scope != ScopeSession || sr.Conversation == "" ||
		!strings.Contains(sr.Hits[0].Snippet, strings.Join(strings.Fields(needle), " ")) {
		t.Fatalf("search %q in the fork's conversation: %+v", needle, sr)
	}

	other := filepath.Join(claude.ProjectDir(f.server.Env, filepath.Join(project, "..", "harbor")), "7b7b7b7b-0000-4000-8000-000000000001.jsonl")
	if err := os.MkdirAll(filepath.Dir(other), 0o700); err != nil {
		t.Fatal(err)
	}
	line, err := json.Marshal(map[string]any{"parentUuid": nil, "type": "user", "uuid": "u1", "sessionId": "7b7b7b7b-0000-4000-8000-000000000001",
		"cwd": "/home/ada/ledger", "timestamp": "2026-02-01T10:00:00Z", "message": map[string]any{"role": "user", "content": "reconcile the ferry ledger before the audit"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if sr := search(map[string]any{"query": `"ferry ledger"`}); len(sr.Hits) != 0 {
		t.Fatalf("this conversation's scope found another session: %+v", sr)
	}
	sr = search(map[string]any{"query": `"ferry ledger"`, "scope": "all"})
	if len(sr.Hits) != 1 || sr.Hits[0].Path != other || sr.Hits[0].Agent != "claude" || sr.Hits[0].Project != "/home/ada/ledger" {
		t.Fatalf("every session's scope: %+v", sr)
	}
	if res := f.call(t, "search", map[string]any{"query": "ferry", "scope": "everywhere"}); !res.IsError {
		t.Fatalf("an unknown scope was searched: %s", text(t, res, 0))
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	// Written last, and a second later than anything else: file times
	// move by the kernel's tick, and a file written in the same tick as
	// the fork tied with it (the walk then picked the one it met first).
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// lastUsage is the context size of the last assistant usage a Claude Code
// session records.
func lastUsage(t *testing.T, path string) int {
	t.Helper()
	b, _ := os.ReadFile(path)
	last := 0
	for _, line := range bytes.Split(b, []byte("\n")) {
		var r struct {
			Type    string `json:"type"`
			Message struct {
				Usage *struct {
					In, CacheCreate, CacheRead, Out int
				} `json:"usage"`
			} `json:"message"`
		}
		var u struct {
			Message struct {
				Usage map[string]any `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &r) != nil || r.Type != "assistant" || json.Unmarshal(line, &u) != nil || u.Message.Usage == nil {
			continue
		}
		n := 0
		for _, k := range []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"} {
			if v, ok := u.Message.Usage[k].(float64); ok {
				n += int(v)
			}
		}
		last = n
	}
	return last
}
