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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/llm"
)

// testdata/tangents.jsonl is a Claude Code session (written by
// testdata/gen_tangents.py) whose turns are:
//
//	0 the injected CLAUDE.md, 1 the task (fix an off-by-one),
//	2 a side question (capital of Australia), 3 a test for the fix,
//	4 a side question with a WebSearch call (a haiku), 5 the current task.
const tangentFixture = "testdata/tangents.jsonl"

// classifierServer is the allowed fake: a local server speaking OpenAI
// Chat Completions that answers the tangent prompt like a model would,
// naming the turns whose rendered text holds one of its keywords.
type classifierServer struct {
	srv      *httptest.Server
	keywords []string
	fail     bool
	mu       sync.Mutex
	prompts  []string
}

var turnHeading = regexp.MustCompile(`(?m)^### Turn (\d+)$`)

func newClassifierServer(t *testing.T, keywords ...string) *classifierServer {
	c := &classifierServer{keywords: keywords}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role, Content string }
		}
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		user := ""
		for _, m := range body.Messages {
			if m.Role == "user" {
				user = m.Content
			}
		}
		c.mu.Lock()
		c.prompts = append(c.prompts, user)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if c.fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"message":"The server is overloaded","type":"server_error"}}`)
			return
		}
		heads := turnHeading.FindAllStringSubmatchIndex(user, -1)
		named := []int{}
		for i, h := range heads {
			end := len(user)
			if i+1 < len(heads) {
				end = heads[i+1][0]
			}
			n, _ := strconv.Atoi(user[h[2]:h[3]])
			for _, k := range c.keywords {
				if strings.Contains(user[h[0]:end], k) {
					named = append(named, n)
					break
				}
			}
		}
		reply, _ := json.Marshal(named)
		fmt.Fprintf(w, `{"id":"chatcmpl-2","object":"chat.completion","created":1731840000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":6,"total_tokens":906}}`, string(reply))
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *classifierServer) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.prompts)
}

func (c *classifierServer) summarize() config.Summarize {
	return config.Summarize{Provider: "openai", BaseURL: c.srv.URL + "/v1", Model: "gpt-4o-mini"}
}

// tangentSource copies the fixture into a temp project folder.
func tangentSource(t *testing.T, root string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(tangentFixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "7b2e0c41-9d3a-4f6e-8a15-2c4d6e8f0a13.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

var tangentsOnly = strategy.Options{Strategies: []string{strategy.StrategyClassifyTangents}}

func tangentNumbers(ts []strategy.Tangent) (listed, removed []int) {
	for _, t := range ts {
		listed = append(listed, t.Turn)
		if t.Removed {
			removed = append(removed, t.Turn)
		}
	}
	return listed, removed
}

// promptsOf are the human prompts of a transcript, in order.
func promptsOf(tr *transcript.Transcript) []string {
	var out []string
	for i := range tr.Messages {
		m := &tr.Messages[i]
		if m.Origin == transcript.OriginHuman && transcript.StartsTurn(m) {
			out = append(out, firstPrompt(&transcript.Transcript{Messages: []transcript.Message{*m}}))
		}
	}
	return out
}

func TestTangentsDryRunListsAndChangesNothing(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := realRunner(t)
	path, orig := tangentSource(t, root)
	srv := newClassifierServer(t, "capital of Australia", "haiku")

	res, err := r.Compact(ctx, Request{Path: path, DryRun: true, Options: tangentsOnly, Summarize: srv.summarize()})
	if err != nil {
		t.Fatal(err)
	}
	listed, removed := tangentNumbers(res.Tangents)
	if fmt.Sprint(listed) != "[2 4]" || removed != nil {
		t.Fatalf("tangents listed %v removed %v, want [2 4] and none; notes %q", listed, removed, res.Notes)
	}
	if len(res.PendingTangents()) != 2 || res.TokensAfter != res.TokensBefore {
		t.Errorf("pending %d, tokens %d → %d: an unconfirmed dry run must only list", len(res.PendingTangents()), res.TokensBefore, res.TokensAfter)
	}
	if srv.count() != 1 {
		t.Errorf("model asked %d times, want once", srv.count())
	}
	md, err := os.ReadFile(res.ReportPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Tangents", "| 2 | ", "Side question: what is the capital of Australia?", "| 4 | ", "Unrelated: find me a good haiku", "kept: not confirmed", "--remove-tangent N"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Error("dry run changed the transcript")
	}
	if vs, _ := r.Store.AllVersions(ctx); len(vs) != 0 {
		t.Errorf("dry run recorded %d versions", len(vs))
	}
	raw, _ := json.Marshal(res)
	if !strings.Contains(string(raw), `"tangents":[{"turn":2,`) {
		t.Errorf("result JSON lacks tangents: %s", raw)
	}
}

func TestTangentsRemovedOnlyWhenConfirmed(t *testing.T) {
	cases := []struct {
		name     string
		keywords []string
		req      Request
		removed  []int
		// prompts the fork keeps, by the start of their text
		kept, gone []string
		note       string
	}{
		{
			name: "not confirmed", keywords: []string{"capital of Australia", "haiku"},
			kept: []string{"Fix the off-by-one", "Side question", "Now add a test", "Unrelated", "Document ReconcileLedger"},
			note: "kept, since removal was not confirmed",
		},
		{
			name: "one confirmed", keywords: []string{"capital of Australia", "haiku"}, req: Request{ConfirmedTangents: []int{4}},
			removed: []int{4},
			kept:    []string{"Fix the off-by-one", "Side question", "Now add a test", "Document ReconcileLedger"},
			gone:    []string{"Unrelated", "WebSearch", "Crimson leaves"},
		},
		{
			name: "all confirmed", keywords: []string{"capital of Australia", "haiku"}, req: Request{ConfirmAllTangents: true},
			removed: []int{2, 4},
			kept:    []string{"Fix the off-by-one", "Now add a test", "Document ReconcileLedger"},
			gone:    []string{"Side question", "Canberra", "Unrelated", "WebSearch"},
		},
		{
			name: "the model names every turn", keywords: []string{"### Turn"}, req: Request{ConfirmedTangents: []int{0, 1, 2, 3, 4, 5}},
			removed: []int{2, 3, 4},
			kept:    []string{"Fix the off-by-one", "Document ReconcileLedger"},
			gone:    []string{"Side question", "Now add a test", "Unrelated"},
			note:    "the first prompt's turn sets the task",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := isolate(t)
			r := realRunner(t)
			path, orig := tangentSource(t, root)
			srv := newClassifierServer(t, tc.keywords...)
			req := tc.req
			req.Path, req.Options, req.Summarize = path, tangentsOnly, srv.summarize()
			res, err := r.Compact(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if _, removed := tangentNumbers(res.Tangents); !slices.Equal(removed, tc.removed) {
				t.Errorf("removed %v, want %v; notes %q", removed, tc.removed, res.Notes)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
				t.Error("the source was modified")
			}
			fork, err := os.ReadFile(res.ForkPath)
			if err != nil {
				t.Fatal(err)
			}
			ft := parse(t, res.ForkPath, fork)
			if err := strategy.CheckTranscript(ft); err != nil {
				t.Errorf("fork breaks the API's rules: %v", err)
			}
			prompts := strings.Join(promptsOf(ft), "\n")
			for _, k := range tc.kept {
				if !strings.Contains(prompts, k) {
					t.Errorf("fork lost the prompt %q; prompts:\n%s", k, prompts)
				}
			}
			for _, g := range tc.gone {
				if bytes.Contains(fork, []byte(g)) {
					t.Errorf("fork still holds %q", g)
				}
			}
			if !bytes.Contains(fork, []byte("CLAUDE.md")) {
				t.Error("fork lost the standing instructions")
			}
			if tc.note != "" && !strings.Contains(strings.Join(res.Notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", res.Notes, tc.note)
			}
			if len(tc.removed) > 0 && res.TokensAfter >= res.TokensBefore {
				t.Errorf("tokens %d → %d after removing turns", res.TokensBefore, res.TokensAfter)
			}
		})
	}
}

// countingTransport fails every request and counts them: with no model
// configured nothing may go out.
type countingTransport struct {
	mu sync.Mutex
	n  int
}

func (c *countingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return nil, fmt.Errorf("no network in this test")
}

func TestTangentsWithoutModelOrWithFailingModel(t *testing.T) {
	t.Run("no model", func(t *testing.T) {
		root := isolate(t)
		r := realRunner(t)
		wire := &countingTransport{}
		r.LLMOptions = []llm.Option{llm.WithHTTPClient(&http.Client{Transport: wire})}
		path, _ := tangentSource(t, root)
		res, err := r.Compact(context.Background(), Request{Path: path, DryRun: true, Options: tangentsOnly, ConfirmAllTangents: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tangents) != 0 || res.TokensAfter != res.TokensBefore || wire.n != 0 {
			t.Errorf("tangents %v, tokens %d → %d, %d requests", res.Tangents, res.TokensBefore, res.TokensAfter, wire.n)
		}
		if !strings.Contains(strings.Join(res.Notes, "\n"), "classify-tangents skipped: no model is configured") {
			t.Errorf("notes %q", res.Notes)
		}
	})
	t.Run("failing model", func(t *testing.T) {
		root := isolate(t)
		r := realRunner(t)
		path, _ := tangentSource(t, root)
		srv := newClassifierServer(t)
		srv.fail = true
		opts := tangentsOnly
		opts.Strategies = []string{strategy.StrategyStripToolResults, strategy.StrategyClassifyTangents}
		res, err := r.Compact(context.Background(), Request{Path: path, Options: opts, Summarize: srv.summarize(), ConfirmAllTangents: true})
		if err != nil {
			t.Fatalf("a failing model failed the run: %v", err)
		}
		joined := strings.Join(res.Notes, "\n")
		if !strings.Contains(joined, "classify-tangents skipped") || !strings.Contains(joined, "overloaded") {
			t.Errorf("notes %q lack the model's failure", res.Notes)
		}
		// The mechanical step before it still stands.
		if len(res.Tangents) != 0 || res.TokensAfter >= res.TokensBefore || res.ForkPath == "" {
			t.Errorf("tangents %v, tokens %d → %d, fork %q", res.Tangents, res.TokensBefore, res.TokensAfter, res.ForkPath)
		}
	})
}
