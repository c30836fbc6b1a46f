package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/llm"
)

const testKey = "sk-test-KEY0123456789abcdefghij"

// Secrets planted in the transcript; none may reach the server.
var planted = []string{
	"sk-proj-abcdefghijklmnopqrstuvwxyz012345",
	"AKIAIOSFODNN7EXAMPLE",
	"ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
	"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
	"s3cr3tPassw0rd",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}

// apiServer is a local stand-in for one provider, speaking its real
// request and response shapes. reply decides each answer.
type apiServer struct {
	t        *testing.T
	provider string
	srv      *httptest.Server
	mu       sync.Mutex
	requests []recorded
	conns    atomic.Int32
	reply    func(w http.ResponseWriter, r *http.Request, req recorded)
}

type recorded struct {
	Header http.Header
	Path   string
	Raw    string
	Body   map[string]any
	System string
	User   string
}

func newAPIServer(t *testing.T, provider string) *apiServer {
	a := &apiServer{t: t, provider: provider}
	a.reply = func(w http.ResponseWriter, r *http.Request, req recorded) {
		a.ok(w, fmt.Sprintf("## Summary\nSummary #%d of the turns.", len(a.requests)))
	}
	a.srv = httptest.NewUnstartedServer(http.HandlerFunc(a.handle))
	a.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			a.conns.Add(1)
		}
	}
	a.srv.Start()
	t.Cleanup(a.srv.Close)
	return a
}

func (a *apiServer) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rec := recorded{Header: r.Header.Clone(), Path: r.URL.Path, Raw: string(raw)}
	if err := json.Unmarshal(raw, &rec.Body); err != nil {
		a.t.Errorf("request body is not JSON: %v", err)
	}
	if r.Method != http.MethodPost {
		a.t.Errorf("method %s, want POST", r.Method)
	}
	switch a.provider {
	case llm.ProviderOpenAI:
		if r.URL.Path != "/v1/chat/completions" {
			a.t.Errorf("path %s, want /v1/chat/completions", r.URL.Path)
		}
		msgs, _ := rec.Body["messages"].([]any)
		for _, m := range msgs {
			mm := m.(map[string]any)
			switch mm["role"] {
			case "system":
				rec.System = mm["content"].(string)
			case "user":
				rec.User = mm["content"].(string)
			}
		}
	case llm.ProviderAnthropic:
		if r.URL.Path != "/v1/messages" {
			a.t.Errorf("path %s, want /v1/messages", r.URL.Path)
		}
		rec.System, _ = rec.Body["system"].(string)
		msgs, _ := rec.Body["messages"].([]any)
		if len(msgs) == 1 {
			rec.User, _ = msgs[0].(map[string]any)["content"].(string)
		}
	}
	a.mu.Lock()
	a.requests = append(a.requests, rec)
	a.mu.Unlock()
	a.reply(w, r, rec)
}

func (a *apiServer) last() recorded {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.requests) == 0 {
		a.t.Fatal("no request reached the server")
	}
	return a.requests[len(a.requests)-1]
}

func (a *apiServer) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.requests)
}

// ok answers with text in the provider's success shape.
func (a *apiServer) ok(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "application/json")
	if a.provider == llm.ProviderOpenAI {
		fmt.Fprintf(w, `{"id":"chatcmpl-abc123","object":"chat.completion","created":1731840000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":1234,"completion_tokens":56,"total_tokens":1290}}`, text)
		return
	}
	fmt.Fprintf(w, `{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1234,"output_tokens":56}}`, text)
}

// fail answers with the provider's error shape.
func (a *apiServer) fail(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if a.provider == llm.ProviderOpenAI {
		fmt.Fprintf(w, `{"error":{"message":%q,"type":%q,"param":null,"code":null}}`, msg, typ)
		return
	}
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q}}`, typ, msg)
}

func (a *apiServer) config() llm.Config {
	cfg := llm.Config{Provider: a.provider, BaseURL: a.srv.URL, Model: "test-model", APIKeyEnv: "COMPACTD_TEST_KEY", MaxTokens: 777, Timeout: 2 * time.Second}
	if a.provider == llm.ProviderOpenAI {
		cfg.BaseURL = a.srv.URL + "/v1"
	}
	return cfg
}

func providers() []string { return []string{llm.ProviderOpenAI, llm.ProviderAnthropic} }

func setup(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("APPDATA", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("COMPACTD_TEST_KEY", testKey)
}

func userText(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginHuman, Parts: []transcript.Part{{Kind: transcript.PartText, Text: s}}}
}

func assistantText(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartText, Text: s}}}
}

// session returns n turns, each with a tool call and a large result, and
// secrets planted in turn 1.
func session(n int) []transcript.Message {
	var msgs []transcript.Message
	for i := 0; i < n; i++ {
		prompt := fmt.Sprintf("Turn %d request: fix the bug in internal/store/postgres.go number %d.", i, i)
		if i == 1 {
			prompt += "\nMy key is " + planted[0] + " and AWS " + planted[1] + ", GitHub token " + planted[2] +
				"\n-----BEGIN RSA PRIVATE KEY-----\n" + planted[3] + "\n-----END RSA PRIVATE KEY-----\n" +
				"db: postgres://admin:" + planted[4] + "@db.internal:5432/inv and Authorization: Bearer " + planted[5]
		}
		msgs = append(msgs, userText(prompt))
		msgs = append(msgs, transcript.Message{Role: transcript.RoleAssistant, Parts: []transcript.Part{
			{Kind: transcript.PartText, Text: fmt.Sprintf("I'll run the tests for turn %d.", i)},
			{Kind: transcript.PartToolCall, ToolCallID: fmt.Sprint("c", i), ToolName: "Bash", Args: `{"command":"go test ./internal/store/"}`},
		}})
		msgs = append(msgs, transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Parts: []transcript.Part{
			{Kind: transcript.PartToolResult, ToolCallID: fmt.Sprint("c", i), ToolName: "Bash", Text: strings.Repeat(fmt.Sprintf("noise line of turn %d\n", i), 2000) + "FAIL: TestReserve — pq: deadlock detected"},
		}})
		msgs = append(msgs, assistantText(fmt.Sprintf("Turn %d done.", i)))
	}
	return msgs
}

func TestSummarizePromptAndReply(t *testing.T) {
	for _, p := range providers() {
		t.Run(p, func(t *testing.T) {
			setup(t)
			srv := newAPIServer(t, p)
			cfg := srv.config()
			cfg.Instructions = "Also list every Jira ticket id mentioned."
			s, err := newSummarizer(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			msgs := session(3)
			sum, err := s.Summarize(context.Background(), summarize.Request{Messages: msgs, FromTurn: 0, ToTurn: 3})
			if err != nil {
				t.Fatal(err)
			}
			req := srv.last()
			// Headers: the key, the way each API wants it.
			if p == llm.ProviderOpenAI {
				if got := req.Header.Get("Authorization"); got != "Bearer "+testKey {
					t.Errorf("Authorization = %q", got)
				}
				if req.Body["max_tokens"] != float64(777) || req.Body["temperature"] != float64(0) {
					t.Errorf("body = %v", req.Body)
				}
			} else {
				if req.Header.Get("x-api-key") != testKey || req.Header.Get("anthropic-version") != "2023-06-01" {
					t.Errorf("headers = %v", req.Header)
				}
				if req.Body["max_tokens"] != float64(777) {
					t.Errorf("max_tokens = %v", req.Body["max_tokens"])
				}
			}
			if req.Body["model"] != "test-model" {
				t.Errorf("model = %v", req.Body["model"])
			}
			// The prompt: the execution frontier's sections and the other
			// directives, custom instructions appended after them.
			for _, d := range []string{"Goal:", "Done:", "Remaining:", "Next action:", "Files touched", "Commands that work", "Open errors", "Decisions that were made and why", "Who said what"} {
				if !strings.Contains(req.System, d) {
					t.Errorf("system prompt lacks directive %q", d)
				}
			}
			if i, j := strings.Index(req.System, "Who said what"), strings.Index(req.System, cfg.Instructions); j < 0 || j < i {
				t.Errorf("custom instructions missing or not appended:\n%s", req.System)
			}
			// The transcript is there, compactly.
			for _, want := range []string{"Turn 2 request", "Bash(", "go test ./internal/store/", "pq: deadlock detected", "lines omitted"} {
				if !strings.Contains(req.User, want) {
					t.Errorf("user prompt lacks %q", want)
				}
			}
			if len(req.User) > 20000 {
				t.Errorf("tool results not truncated: prompt is %d bytes", len(req.User))
			}
			// No secret left the process.
			for _, sec := range planted {
				if strings.Contains(req.Raw, sec) {
					t.Errorf("secret %q was sent", sec)
				}
			}
			if strings.Contains(req.Raw, testKey) {
				t.Error("the API key appears in the request body")
			}
			if sum.Redacted < 6 {
				t.Errorf("Redacted = %d, want ≥ 6", sum.Redacted)
			}
			if !strings.HasPrefix(sum.Text, "## Summary") || sum.FromTurn != 0 || sum.ToTurn != 3 || sum.Model == "" || sum.Created.IsZero() || sum.Tokens == 0 {
				t.Errorf("summary = %+v", sum)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	type failure struct {
		name  string
		reply func(a *apiServer) func(w http.ResponseWriter, r *http.Request, req recorded)
		ctx   func() (context.Context, context.CancelFunc)
		check func(t *testing.T, err error)
	}
	hasText := func(subs ...string) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			for _, s := range subs {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		}
	}
	is := func(target error) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			if !errors.Is(err, target) {
				t.Errorf("error %q is not %v", err, target)
			}
		}
	}
	cancelMidRequest := context.CancelFunc(func() {})
	failures := []failure{
		{name: "500", reply: func(a *apiServer) func(http.ResponseWriter, *http.Request, recorded) {
			return func(w http.ResponseWriter, _ *http.Request, _ recorded) {
				a.fail(w, 500, "server_error", "The server had an error while processing your request.")
			}
		}, check: hasText("HTTP 500", "server_error", "The server had an error")},
		{name: "401 echoing the key", reply: func(a *apiServer) func(http.ResponseWriter, *http.Request, recorded) {
			return func(w http.ResponseWriter, _ *http.Request, _ recorded) {
				a.fail(w, 401, "authentication_error", "Incorrect API key provided: "+testKey+".")
			}
		}, check: func(t *testing.T, err error) {
			hasText("HTTP 401", "authentication_error", "Incorrect API key")(t, err)
			var ae *llm.APIError
			if !errors.As(err, &ae) || ae.Status != 401 {
				t.Errorf("error %v is not an APIError 401", err)
			}
		}},
		{name: "malformed JSON", reply: func(a *apiServer) func(http.ResponseWriter, *http.Request, recorded) {
			return func(w http.ResponseWriter, _ *http.Request, _ recorded) {
				io.WriteString(w, `{"id": "x", "choices": [`)
			}
		}, check: hasText("not the expected JSON")},
		{name: "empty content", reply: func(a *apiServer) func(http.ResponseWriter, *http.Request, recorded) {
			return func(w http.ResponseWriter, _ *http.Request, _ recorded) { a.ok(w, "") }
		}, check: is(summarize.ErrBlank)},
		{name: "whitespace content", reply: func(a *apiServer) func(http.ResponseWriter, *http.Request, recorded) {
			return func(w http.ResponseWriter, _ *http.Request, _ recorded) { a.ok(w, " \n\t \n") }
		}, check: is(summarize.ErrBlank)},
		{name: "no content blocks", reply: func(a *apiServer) func(http.ResponseWriter, *http.Request, recorded) {
			return func(w http.ResponseWriter, _ *http.Request, _ recorded) {
				if a.provider == llm.ProviderOpenAI {
					io.WriteString(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"length"}],"usage":{}}`)
					return
				}
				io.WriteString(w, `{"id":"m","type":"message","role":"assistant","content":[],"stop_reason":"max_tokens","usage":{}}`)
			}
		}, check: is(summarize.ErrBlank)},
		// The two below answer only once the client gave up (or after
		// 30 s, with an empty body): a request that was not stopped ends in
		// another error than the one checked, whatever the machine's load.
		{name: "timeout", reply: func(a *apiServer) func(http.ResponseWriter, *http.Request, recorded) {
			return func(w http.ResponseWriter, r *http.Request, _ recorded) {
				select {
				case <-r.Context().Done():
				case <-time.After(30 * time.Second):
				}
			}
		}, check: is(llm.ErrTimeout)},
		{name: "cancellation", reply: func(a *apiServer) func(http.ResponseWriter, *http.Request, recorded) {
			return func(w http.ResponseWriter, r *http.Request, _ recorded) {
				cancelMidRequest() // the caller cancels while the request is in flight
				select {
				case <-r.Context().Done():
				case <-time.After(30 * time.Second):
				}
			}
		}, ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancelMidRequest = cancel
			return ctx, cancel
		}, check: is(context.Canceled)},
	}
	for _, p := range providers() {
		for _, f := range failures {
			t.Run(p+"/"+f.name, func(t *testing.T) {
				setup(t)
				srv := newAPIServer(t, p)
				srv.reply = f.reply(srv)
				cfg := srv.config()
				cfg.Timeout = 300 * time.Millisecond
				s, err := newSummarizer(cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if f.ctx != nil {
					ctx, cancel = f.ctx()
				}
				defer cancel()
				start := time.Now()
				sum, err := s.Summarize(ctx, summarize.Request{Messages: session(2), ToTurn: 2})
				if err == nil {
					t.Fatalf("no error; summary %q", sum.Text)
				}
				t.Logf("failed in %v: %v", time.Since(start).Round(time.Millisecond), err)
				if sum.Text != "" {
					t.Errorf("a failed call returned text %q", sum.Text)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("the API key leaked into the error: %v", err)
				}
				if strings.Count(err.Error(), "\n") > 0 {
					t.Errorf("error is not one sentence: %q", err)
				}
				f.check(t, err)
				t.Logf("error: %v", err)
			})
		}
	}
}

func TestNoNetworkWithoutModel(t *testing.T) {
	setup(t)
	srv := newAPIServer(t, llm.ProviderOpenAI)
	// No model: extractive, and nothing reaches the server even with a base URL.
	s, err := newSummarizer(llm.Config{BaseURL: srv.srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "extractive" {
		t.Fatalf("summarizer = %s, want extractive", s.Name())
	}
	if _, err := s.Summarize(context.Background(), summarize.Request{Messages: session(2), ToTurn: 2}); err != nil {
		t.Fatal(err)
	}
	// A configured model: constructing it opens no connection either.
	if _, err := newSummarizer(srv.config(), nil); err != nil {
		t.Fatal(err)
	}
	if n := srv.conns.Load(); n != 0 {
		t.Fatalf("%d requests reached the server before any summary was asked for", n)
	}
}

func TestConfigErrors(t *testing.T) {
	setup(t)
	t.Setenv("COMPACTD_EMPTY_KEY", "")
	for _, tc := range []struct {
		cfg  llm.Config
		want string
	}{
		{llm.Config{Model: "gpt-4o-mini", APIKeyEnv: "COMPACTD_EMPTY_KEY"}, "COMPACTD_EMPTY_KEY"},
		{llm.Config{Model: "m", Provider: "bedrock"}, `unknown summarizing provider "bedrock"`},
		{llm.Config{Model: "m", MaxTokensField: "max_output"}, "max_tokens_field"},
		{llm.Config{}, "no summarizing model"},
	} {
		_, err := llm.New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want error mentioning %q", tc.cfg, err, tc.want)
		}
	}
	// The key's value never shows, only the variable's name.
	m, err := llm.New(llm.Config{Model: "claude-3-5-haiku-latest", APIKeyEnv: "COMPACTD_TEST_KEY"}, llm.WithGetenv(func(k string) string {
		if k == "COMPACTD_TEST_KEY" {
			return testKey
		}
		return ""
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(*llm.Anthropic); !ok {
		t.Errorf("a claude model without base URL should use the Anthropic API, got %T", m)
	}
}

func TestMaxCompletionTokensField(t *testing.T) {
	setup(t)
	srv := newAPIServer(t, llm.ProviderOpenAI)
	cfg := srv.config()
	cfg.MaxTokensField = "max_completion_tokens"
	m, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Complete(context.Background(), summarize.Prompt{System: "s", User: "u", MaxTokens: 99}); err != nil {
		t.Fatal(err)
	}
	body := srv.last().Body
	if body["max_completion_tokens"] != float64(99) || body["max_tokens"] != nil {
		t.Errorf("body = %v", body)
	}
}

// newSummarizer is the summarizer a configuration asks for, as the jobs
// build it (daemon/jobs/summarizer.go): a model-backed one when a model is
// configured, else the offline extractive summarizer.
func newSummarizer(cfg llm.Config, counter summarize.TokenCounter, opts ...llm.Option) (summarize.Summarizer, error) {
	if !cfg.Configured() {
		return &summarize.Extractive{Counter: counter}, nil
	}
	m, err := llm.New(cfg, opts...)
	if err != nil {
		return nil, err
	}
	maxTokens := cfg.MaxTokens
	if maxTokens <= 0 {
		maxTokens = llm.DefaultMaxTokens
	}
	return &summarize.LLM{Model: m, Instructions: cfg.Instructions, MaxTokens: maxTokens, Counter: counter}, nil
}
