package lsp

import (
	"encoding/json"
	"fmt"
	"github.com/compactd/compactd/daemon"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// testdata/tangents.jsonl (from daemon/jobs' fixture) is a Claude Code
// session whose turns are 0 the injected CLAUDE.md, 1 the task, 2 a side
// question (capital of Australia), 3 a test for the fix, 4 a haiku with a
// WebSearch call, 5 the current task.

var turnHeading = regexp.MustCompile(`(?m)^### Turn (\d+)$`)

// classifierModel is the allowed fake: a local server speaking OpenAI
// Chat Completions that answers the tangent prompt as a model would,
// naming the turns whose text holds one of its keywords.
func classifierModel(t *testing.T, calls *atomic.Int32, keywords ...string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
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
		named := []int{}
		heads := turnHeading.FindAllStringSubmatchIndex(user, -1)
		for i, h := range heads {
			end := len(user)
			if i+1 < len(heads) {
				end = heads[i+1][0]
			}
			n, _ := strconv.Atoi(user[h[2]:h[3]])
			for _, k := range keywords {
				if strings.Contains(user[h[0]:end], k) {
					named = append(named, n)
					break
				}
			}
		}
		reply, _ := json.Marshal(named)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-2","object":"chat.completion","created":1731840000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":6,"total_tokens":906}}`, string(reply))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestTangentConfirmation compacts with classify-tangents and a model
// configured through the LSP settings: the server asks once with the
// tangents found by a dry run, and the fork loses them only on Remove.
func TestTangentConfirmation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		keywords []string
		answer   string // "" = the question must not be asked
		removed  bool
	}{
		{"remove", []string{"capital of Australia", "Crimson leaves"}, actionRemoveTangents, true},
		{"keep", []string{"capital of Australia", "Crimson leaves"}, actionKeepTangents, false},
		{"dismissed", []string{"capital of Australia", "Crimson leaves"}, "none", false},
		{"no tangents", nil, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testEnv(t)
			ws := t.TempDir()
			data, err := os.ReadFile(filepath.Join("testdata", "tangents.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(ws, "7b2e0c41-9d3a-4f6e-8a15-2c4d6e8f0a13.jsonl")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			var calls atomic.Int32
			model := classifierModel(t, &calls, tc.keywords...)
			u := pathURI(path)
			c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}})
			var asked []protocol.ShowMessageRequestParams
			c.answer = func(p protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
				asked = append(asked, p)
				if tc.answer == "none" {
					return nil
				}
				return &protocol.MessageActionItem{Title: tc.answer}
			}
			c.initialize(ws, map[string]any{
				"summarize": map[string]any{"provider": "openai", "baseUrl": model.URL + "/v1", "model": "gpt-4o-mini"},
				"compact":   map[string]any{"strategies": []string{"classify-tangents"}, "keepLast": 1},
			})
			c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1}})
			c.waitNote(0, methodGauge, gaugeFor(u), 10*time.Second)

			res, err := c.execute(cmdCompact, map[string]any{"uri": u})
			if err != nil {
				t.Fatalf("compact: %v", err)
			}
			if got := calls.Load(); got != 2 {
				t.Errorf("the model was asked %d times, want 2 (dry run, then the compaction)", got)
			}
			switch {
			case tc.answer == "" && len(asked) > 0:
				t.Fatalf("asked although the model found no tangents: %+v", asked)
			case tc.answer != "" && len(asked) != 1:
				t.Fatalf("asked %d times, want once", len(asked))
			case tc.answer != "":
				q := asked[0]
				if !regexp.MustCompile(`^Remove 2 turns unrelated to the task\? turns 2, 4 \(\d+(\.\d)?k? tokens\)$`).MatchString(q.Message) {
					t.Errorf("question = %q", q.Message)
				}
				if len(q.Actions) != 2 || q.Actions[0].Title != "Remove" || q.Actions[1].Title != "Keep" {
					t.Errorf("actions = %+v", q.Actions)
				}
			}
			fork := uriPath(protocol.DocumentURI(res.Open))
			forked, err := os.ReadFile(fork)
			if err != nil {
				t.Fatalf("fork: %v", err)
			}
			for _, k := range []string{"capital of Australia", "Crimson leaves"} {
				if strings.Contains(string(forked), k) == tc.removed {
					t.Errorf("fork holds %q: %v, want %v", k, !tc.removed, !tc.removed)
				}
			}
			if !strings.Contains(string(forked), "TestReconcileAppliesLastEntry") {
				t.Error("the fork lost a turn of the task")
			}
			if got, _ := os.ReadFile(path); string(got) != string(data) {
				t.Error("the original transcript changed")
			}
			raw, _ := json.Marshal(res.Result)
			var out struct {
				Tangents []struct {
					Turn    int  `json:"turn"`
					Removed bool `json:"removed"`
				} `json:"tangents"`
			}
			_ = json.Unmarshal(raw, &out)
			want := 2
			if tc.keywords == nil {
				want = 0
			}
			if len(out.Tangents) != want {
				t.Fatalf("result tangents = %s", raw)
			}
			for _, tg := range out.Tangents {
				if tg.Removed != tc.removed {
					t.Errorf("tangent %d removed = %v, want %v", tg.Turn, tg.Removed, tc.removed)
				}
			}
		})
	}
}
