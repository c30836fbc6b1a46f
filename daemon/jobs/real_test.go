package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all" // the real Claude Code codec
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/store"
)

// realRunner is a runner on a fresh store with the real pipeline
// (strategy.Run) and, through format/all, the real codecs.
func realRunner(t *testing.T) *Runner {
	t.Helper()
	s, err := store.Open(context.Background(), os.Getenv("COMPACTD_STORE"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return New(s)
}

// claudeSession writes a generated Claude Code session into dir, named
// <session id>.jsonl as Claude Code names them, and returns its path.
func claudeSession(t *testing.T, dir string, seed uint64, turns int) (string, []byte) {
	t.Helper()
	data := sessiongen.ClaudeCode(sessiongen.Options{Seed: seed, Turns: turns})
	tr := parse(t, "x.jsonl", data)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, tr.Meta.SessionID+".jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// parse detects and parses data as the daemon would.
func parse(t *testing.T, name string, data []byte) *transcript.Transcript {
	t.Helper()
	codec, err := format.Detect(name, data)
	if err != nil {
		t.Fatalf("detect %s: %v", name, err)
	}
	tr, err := codec.Parse(data)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return tr
}

func countTokens(t *testing.T, tr *transcript.Transcript) int {
	t.Helper()
	c, err := tokens.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range tr.Messages {
		n += c.Message(&tr.Messages[i])
	}
	return n
}

func hasSummary(tr *transcript.Transcript) bool {
	for _, m := range tr.Messages {
		if m.Origin == transcript.OriginSummary {
			return true
		}
	}
	return false
}

func firstPrompt(tr *transcript.Transcript) string {
	for _, m := range tr.Messages {
		if m.Origin == transcript.OriginHuman && len(m.Parts) > 0 && m.Parts[0].Text != "" {
			return m.Parts[0].Text
		}
	}
	return ""
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func kinds(t *testing.T, r *Runner) []string {
	t.Helper()
	vs, err := r.Store.AllVersions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range vs {
		out = append(out, v.Label+":"+v.Kind)
	}
	return out
}

// TestCompactAutoEndToEnd: compact (auto) → the fork re-parses, tokens
// drop by at least 60 %, history shows v1 → v2, restoring v1 gives the
// original bytes back, and diff v1 v2 reads as turns, not JSON.
func TestCompactAutoEndToEnd(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := realRunner(t)
	dir := filepath.Join(root, "projects", "-home-dev-src-inventory-service")
	path, orig := claudeSession(t, dir, 11, 16)

	res, err := r.Compact(ctx, Request{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Fatal("a fork compaction modified the source")
	}
	fork, err := os.ReadFile(res.ForkPath)
	if err != nil {
		t.Fatal(err)
	}
	ft := parse(t, res.ForkPath, fork)
	if ft.Format != transcript.FormatClaudeCode || ft.Skipped != 0 || ft.Size != int64(len(fork)) {
		t.Fatalf("fork parses as %s with %d skipped records, %d of %d bytes", ft.Format, ft.Skipped, ft.Size, len(fork))
	}
	if err := strategy.CheckTranscript(ft); err != nil {
		t.Errorf("fork breaks the API's rules: %v", err)
	}
	if filepath.Dir(res.ForkPath) != dir || filepath.Base(res.ForkPath) != ft.Meta.SessionID+".jsonl" {
		t.Errorf("fork %s is not <new session>.jsonl beside the source", res.ForkPath)
	}
	before, after := countTokens(t, parse(t, path, orig)), countTokens(t, ft)
	if after > before*40/100 || res.TokensAfter > res.TokensBefore*40/100 {
		t.Errorf("tokens %d → %d (reported %d → %d); want a drop of at least 60%%", before, after, res.TokensBefore, res.TokensAfter)
	}
	t.Logf("auto: %d → %d tokens (%.1f%% saved), summarizer %s", before, after, 100*float64(before-after)/float64(before), res.Summarizer)

	h, err := r.History(ctx, res.ForkPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Versions) != 2 || h.Versions[0].Label != "v1" || h.Versions[1].Label != "v2" || h.Versions[1].Parent != "v1" ||
		h.Versions[1].Kind != store.KindCompact || h.Versions[1].ForkPath != res.ForkPath {
		t.Fatalf("history = %+v", h.Versions)
	}

	d, err := r.Diff(ctx, path, "v1", "v2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d, "--- v1\n+++ v2\n") || strings.Contains(d, `{"parentUuid"`) || strings.Contains(d, `"type":"assistant"`) {
		t.Errorf("diff is not a readable per-turn diff:\n%.600s", d)
	}
	if !strings.Contains(d, "\n  user: ") || !strings.Contains(d, "\n- assistant") {
		t.Errorf("diff lacks kept prompts or removed assistant lines:\n%.1200s", d)
	}

	back, err := r.Restore(ctx, res.ForkPath, "v1", true)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(res.ForkPath); !bytes.Equal(got, orig) {
		t.Errorf("restored v1 is not byte-identical to the original")
	}
	if back.Saved != "v2" {
		t.Errorf("restore saved the fork's content as %q; want the existing v2 reused", back.Saved)
	}
}

// openAIServer is the one allowed fake: a local server speaking the
// OpenAI Chat Completions shape, recording prompts.
type openAIServer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	prompts []string
	// block, when set, holds each request until the client gives up.
	block chan struct{}
}

func newOpenAIServer(t *testing.T) *openAIServer {
	o := &openAIServer{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role, Content string }
		}
		raw, _ := io.ReadAll(r.Body)
		json.Unmarshal(raw, &body)
		user := ""
		for _, m := range body.Messages {
			if m.Role == "user" {
				user = m.Content
			}
		}
		o.mu.Lock()
		o.prompts = append(o.prompts, user)
		n := len(o.prompts)
		block := o.block
		o.mu.Unlock()
		if block != nil {
			close(block)
			<-r.Context().Done()
			return
		}
		text := fmt.Sprintf("SPAN %d: the user builds the inventory service; tests were fixed in internal/store.", n)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1731840000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000,"completion_tokens":30,"total_tokens":1030}}`, text)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *openAIServer) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.prompts)
}

func (o *openAIServer) summarize() config.Summarize {
	return config.Summarize{Provider: "openai", BaseURL: o.srv.URL + "/v1", Model: "gpt-4o-mini", MaxTokens: 4000}
}

// smallWindow makes auto summarize a generated session: its mechanical
// steps leave some 8k tokens, above half of this window.
var smallWindow = strategy.Options{Window: 8000}

func TestSummarizerFromConfig(t *testing.T) {
	tests := []struct {
		name       string
		summarize  config.Summarize
		notes      *string // nil: no notes file
		wantName   string
		wantInFork string
		wantNote   string // a report note containing this
		noSummary  bool
	}{
		{name: "default is extractive", wantName: "extractive"},
		{name: "explicit extractive", summarize: config.Summarize{Provider: "extractive"}, wantName: "extractive"},
		{name: "notes", summarize: config.Summarize{Provider: "notes", NotesFile: "NOTES.md"}, notes: ptr("# Notes\n- migrating the store to sqlc; keep the v2 API\n"),
			wantName: "notes", wantInFork: "migrating the store to sqlc"},
		{name: "notes missing", summarize: config.Summarize{Provider: "notes", NotesFile: "NOTES.md"},
			wantNote: "NOTES.md is empty or missing; summarizing skipped", noSummary: true},
		{name: "notes blank", summarize: config.Summarize{Provider: "notes", NotesFile: "NOTES.md"}, notes: ptr(" \n\t\n"),
			wantNote: "NOTES.md is empty or missing; summarizing skipped", noSummary: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := isolate(t)
			r := realRunner(t)
			ws := filepath.Join(root, "ws")
			path, _ := claudeSession(t, filepath.Join(ws, "logs"), 3, 12)
			if tt.notes != nil {
				os.WriteFile(filepath.Join(ws, "NOTES.md"), []byte(*tt.notes), 0o644)
			}
			res, err := r.Compact(context.Background(), Request{Path: path, Options: smallWindow, Summarize: tt.summarize, Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			if res.Summarizer != tt.wantName {
				t.Errorf("summarizer = %q; want %q", res.Summarizer, tt.wantName)
			}
			fork, _ := os.ReadFile(res.ForkPath)
			ft := parse(t, res.ForkPath, fork)
			if hasSummary(ft) == tt.noSummary {
				t.Errorf("fork has a summary: %v; want %v (notes %q)", hasSummary(ft), !tt.noSummary, res.Notes)
			}
			if tt.wantInFork != "" && !bytes.Contains(fork, []byte(tt.wantInFork)) {
				t.Errorf("fork lacks %q", tt.wantInFork)
			}
			joined := strings.Join(res.Notes, "\n")
			if tt.wantNote != "" && !strings.Contains(joined, filepath.Join(ws, tt.wantNote)) {
				t.Errorf("notes = %q; want one containing %q", res.Notes, tt.wantNote)
			}
			if tt.noSummary && strings.Contains(joined, "no summarizer is configured") {
				t.Errorf("notes contradict each other: %q", res.Notes)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// A model summarizes each archived span once across compaction cycles:
// the second cycle, on the grown fork, sends only the new turns.
func TestModelSummarizesEachSpanOnce(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := realRunner(t)
	srv := newOpenAIServer(t)
	dir := filepath.Join(root, "proj")
	path, orig := claudeSession(t, dir, 5, 12)
	first := firstPrompt(parse(t, path, orig))

	res, err := r.Compact(ctx, Request{Path: path, Options: smallWindow, Summarize: srv.summarize()})
	if err != nil {
		t.Fatal(err)
	}
	if srv.count() != 1 || res.Summarizer != "summarize" {
		t.Fatalf("cycle 1: %d requests, summarizer %q, notes %q", srv.count(), res.Summarizer, res.Notes)
	}
	if !strings.Contains(srv.prompts[0], clip(first, 40)[:30]) {
		t.Errorf("cycle 1 prompt lacks the first turn")
	}
	fork, _ := os.ReadFile(res.ForkPath)
	if !bytes.Contains(fork, []byte("SPAN 1:")) {
		t.Fatal("cycle 1's summary is not in the fork")
	}
	kept, _ := r.Store.Summaries().Load(ctx, "session:"+parse(t, path, orig).Meta.SessionID)
	if len(kept) != 1 || kept[0].FromTurn != 0 || kept[0].Model != "gpt-4o-mini-2024-07-18" {
		t.Fatalf("archive after cycle 1 = %+v", kept)
	}

	// The agent carries on in the fork.
	grown := append(fork, sessiongen.Continue(transcript.FormatClaudeCode, fork, 99, 120)...)
	os.WriteFile(res.ForkPath, grown, 0o644)
	res2, err := r.Compact(ctx, Request{Path: res.ForkPath, Options: smallWindow, Summarize: srv.summarize()})
	if err != nil {
		t.Fatal(err)
	}
	if srv.count() != 2 {
		t.Fatalf("cycle 2 made %d requests in all; want 2 (notes %q)", srv.count(), res2.Notes)
	}
	p2 := srv.prompts[1]
	if strings.Contains(p2, "SPAN 1:") || strings.Contains(p2, clip(first, 40)[:30]) {
		t.Errorf("cycle 2 sent an already summarized span again:\n%.600s", p2)
	}
	fork2, _ := os.ReadFile(res2.ForkPath)
	if !bytes.Contains(fork2, []byte("SPAN 1:")) || !bytes.Contains(fork2, []byte("SPAN 2:")) {
		t.Errorf("cycle 2's fork lacks one of the span summaries")
	}
	kept, _ = r.Store.Summaries().Load(ctx, "session:"+parse(t, path, orig).Meta.SessionID)
	if len(kept) != 2 || kept[1].FromTurn != kept[0].ToTurn {
		t.Fatalf("archive after cycle 2 = %+v", kept)
	}

	// The same point again (another fork of the same file, and a dry run):
	// nothing new to summarize, no request.
	if _, err := r.Compact(ctx, Request{Path: res.ForkPath, Options: smallWindow, Summarize: srv.summarize(), Out: filepath.Join(dir, "again.jsonl")}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Compact(ctx, Request{Path: res.ForkPath, Options: smallWindow, Summarize: srv.summarize(), DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if srv.count() != 2 {
		t.Errorf("re-compacting the same history made %d requests; want still 2", srv.count())
	}
}

// Canceling a job while the model is summarizing stops it: nothing is
// written, no compact version is recorded.
func TestCancelDuringSummarizing(t *testing.T) {
	root := isolate(t)
	r := realRunner(t)
	srv := newOpenAIServer(t)
	srv.block = make(chan struct{})
	dir := filepath.Join(root, "proj")
	path, orig := claudeSession(t, dir, 8, 12)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-srv.block
		cancel()
	}()
	_, err := r.Compact(ctx, Request{Path: path, Options: smallWindow, Summarize: srv.summarize()})
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("err = %v; want a cancellation", err)
	}
	if got := dirNames(t, dir); len(got) != 1 {
		t.Errorf("files after a canceled job: %v", got)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Error("the source changed")
	}
	for _, k := range kinds(t, r) {
		if strings.HasSuffix(k, store.KindCompact) {
			t.Errorf("a canceled job recorded %s", k)
		}
	}
}

// A model configured but unusable is one clear error before any work.
func TestModelMisconfigured(t *testing.T) {
	root := isolate(t)
	r := realRunner(t)
	path, _ := claudeSession(t, filepath.Join(root, "p"), 2, 4)
	_, err := r.Compact(context.Background(), Request{Path: path, Summarize: config.Summarize{Provider: "anthropic"}})
	if err == nil || !strings.Contains(err.Error(), "summarize.model is not set") {
		t.Errorf("provider without model: err = %v", err)
	}
	_, err = r.Compact(context.Background(), Request{Path: path, Summarize: config.Summarize{Model: "gpt-4o", APIKeyEnv: "COMPACTD_TEST_UNSET_KEY"}})
	if err == nil || !strings.Contains(err.Error(), "COMPACTD_TEST_UNSET_KEY") {
		t.Errorf("missing key: err = %v", err)
	}
}

func sessiongenClaude(seed uint64, turns int) []byte {
	return sessiongen.ClaudeCode(sessiongen.Options{Seed: seed, Turns: turns})
}

// A dry run on the real parts writes only its report: no fork, no version,
// no summary in the archive.
func TestDryRunRealWritesOnlyTheReport(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := realRunner(t)
	dir := filepath.Join(root, "proj")
	path, orig := claudeSession(t, dir, 17, 10)
	srv := newOpenAIServer(t)
	res, err := r.Compact(ctx, Request{Path: path, DryRun: true, Options: smallWindow, Summarize: srv.summarize()})
	if err != nil {
		t.Fatal(err)
	}
	if !res.DryRun || res.ForkPath != "" || res.Version != "" || srv.count() != 1 {
		t.Errorf("dry run = %+v after %d model requests", res, srv.count())
	}
	md, err := os.ReadFile(res.ReportPath)
	if err != nil || !strings.Contains(string(md), "| summarize |") || !strings.Contains(string(md), "SPAN 1:") {
		t.Errorf("report %s (%v) lacks the summarize step or its summary", res.ReportPath, err)
	}
	if got := dirNames(t, dir); len(got) != 1 {
		t.Errorf("dry run wrote beside the transcript: %v", got)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Error("dry run changed the transcript")
	}
	if vs, _ := r.Store.AllVersions(ctx); len(vs) != 0 {
		t.Errorf("dry run recorded %d versions", len(vs))
	}
	if kept, _ := r.Store.Summaries().Load(ctx, "session:"+parse(t, path, orig).Meta.SessionID); len(kept) != 0 {
		t.Errorf("dry run saved summaries: %+v", kept)
	}
}
