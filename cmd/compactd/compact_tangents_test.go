package main

import (
	"encoding/json"
	"fmt"
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
)

// testdata/tangents/session.jsonl is a Claude Code session whose turns 2
// (the capital of Australia) and 4 (a haiku, with a WebSearch call) are
// side questions; turn 1 is the task and turn 5 the current work.

var turnHeading = regexp.MustCompile(`(?m)^### Turn (\d+)$`)

// tangentModel is a local server speaking OpenAI Chat Completions that
// answers the tangent prompt with the turns mentioning a keyword.
func tangentModel(t *testing.T, keywords ...string) (url string, requests *atomic.Int32) {
	requests = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
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
		heads := turnHeading.FindAllStringSubmatchIndex(user, -1)
		named := []int{}
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
		fmt.Fprintf(w, `{"id":"chatcmpl-3","object":"chat.completion","created":1731840000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":6,"total_tokens":906}}`, string(reply))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", requests
}

// tangentWorkspace lays out a workspace whose config names the model at
// modelURL ("" configures none) and returns the transcript's path.
func tangentWorkspace(t *testing.T, modelURL string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tangents", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // no .compactd.toml above the working directory
	ws := t.TempDir()
	dir := filepath.Join(ws, "proj")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "7b2e0c41-9d3a-4f6e-8a15-2c4d6e8f0a13.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if modelURL != "" {
		cfg := fmt.Sprintf("[summarize]\nprovider = \"openai\"\nbase_url = %q\nmodel = \"gpt-4o-mini\"\n", modelURL)
		if err := os.WriteFile(filepath.Join(ws, ".compactd.toml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

type tangentsJSON struct {
	DryRun   bool
	ForkPath string
	Notes    []string
	Tangents []struct {
		Turn    int    `json:"turn"`
		Tokens  int    `json:"tokens"`
		Preview string `json:"preview"`
		Removed bool   `json:"removed"`
	} `json:"tangents"`
}

func TestCompactTangentsDryRunLists(t *testing.T) {
	envs := isolatedEnv(t)
	url, requests := tangentModel(t, "capital of Australia", "haiku")
	path := tangentWorkspace(t, url)
	orig, _ := os.ReadFile(path)

	code, out, stderr := runCLI(t, envs, "compact", "--strategy", "classify-tangents", "--dry-run", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^  turn 2 +\d+ tokens +kept +Side question: what is the capital of Australia\? I keep forgetting\.$`),
		regexp.MustCompile(`(?m)^  turn 4 +\d+ tokens +kept +Unrelated: find me a good haiku about autumn leaves\.$`),
		regexp.MustCompile(`(?m)^would remove 2 tangent turns \(\d+ tokens\) only when confirmed: add --remove-tangents, or --remove-tangent N per turn$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if requests.Load() != 1 {
		t.Errorf("%d model requests, want 1", requests.Load())
	}
	code, out, stderr = runCLI(t, envs, "compact", "--strategy", "classify-tangents", "--dry-run", "--json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res tangentsJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(res.Tangents) != 2 || res.Tangents[0].Turn != 2 || res.Tangents[1].Turn != 4 || res.Tangents[0].Tokens <= 0 ||
		!strings.HasPrefix(res.Tangents[1].Preview, "Unrelated: find me a good haiku") || res.Tangents[0].Removed || res.Tangents[1].Removed {
		t.Errorf("tangents = %+v", res.Tangents)
	}
	if got, _ := os.ReadFile(path); string(got) != string(orig) {
		t.Error("a dry run changed the transcript")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("a dry run wrote beside the transcript: %v", entries)
	}
}

func TestCompactTangentsRemovedOnlyWhenAsked(t *testing.T) {
	cases := []struct {
		name       string
		flags      []string
		kept, gone []string
		out        string
	}{
		{name: "no flag", kept: []string{"capital of Australia", "haiku about autumn"}, out: "kept 2 tangent turns"},
		{name: "one turn", flags: []string{"--remove-tangent", "4"}, kept: []string{"capital of Australia"}, gone: []string{"haiku about autumn", "WebSearch"}, out: "kept 1 tangent turn ("},
		{name: "all", flags: []string{"--remove-tangents"}, gone: []string{"capital of Australia", "Canberra", "haiku about autumn", "WebSearch"}},
		{name: "the first prompt is never a tangent", flags: []string{"--remove-tangent", "1,2"}, kept: []string{"Fix the off-by-one", "haiku about autumn"}, gone: []string{"capital of Australia"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			envs := isolatedEnv(t)
			url, _ := tangentModel(t, "capital of Australia", "haiku", "Fix the off-by-one")
			path := tangentWorkspace(t, url)
			args := append([]string{"compact", "--strategy", "classify-tangents", path}, tc.flags...)
			code, out, stderr := runCLI(t, envs, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if tc.out != "" && !strings.Contains(out, tc.out) {
				t.Errorf("output lacks %q:\n%s", tc.out, out)
			}
			m := regexp.MustCompile(`written to (\S+)`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no fork path in:\n%s", out)
			}
			fork, err := os.ReadFile(m[1])
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range append(tc.kept, "Document ReconcileLedger", "Fix the off-by-one") {
				if !strings.Contains(string(fork), k) {
					t.Errorf("fork lost %q", k)
				}
			}
			for _, g := range tc.gone {
				if strings.Contains(string(fork), g) {
					t.Errorf("fork still holds %q", g)
				}
			}
		})
	}
}

func TestCompactTangentsUsage(t *testing.T) {
	envs := isolatedEnv(t)
	path := tangentWorkspace(t, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--remove-tangents", path}, "need --strategy classify-tangents"},
		{[]string{"--strategy", "strip-reasoning", "--remove-tangent", "3", path}, "need --strategy classify-tangents"},
		{[]string{"--strategy", "classify-tangents", "--remove-tangent", "three", path}, `"three" is not a turn number`},
	} {
		code, _, stderr := runCLI(t, envs, append([]string{"compact"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error saying %q", tc.args, code, stderr, tc.want)
		}
	}
	// No model configured: a note, nothing removed, no error.
	code, out, stderr := runCLI(t, envs, "compact", "--strategy", "classify-tangents", "--remove-tangents", "--dry-run", "--json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res tangentsJSON
	json.Unmarshal([]byte(out), &res)
	if len(res.Tangents) != 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "no model is configured") {
		t.Errorf("without a model: tangents %+v, notes %q", res.Tangents, res.Notes)
	}
}
