package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// A recallAgent is an agent as the recall test drives it: the suite's own
// setup plus what it takes for the agent to call compactd's MCP tools in a
// non-interactive run, and how its requests carry an MCP tool's result.
type recallAgent struct {
	agent
	// prepare writes what the agent needs beyond `compactd mcp install`
	// to call the tools unattended (permissions, a model that gets MCP
	// tools directly rather than behind a tool search).
	prepare func(t *testing.T, sb *sandbox)
	// mcpArgs are extra arguments of a run that may call MCP tools.
	mcpArgs []string
	// payload is the text an MCP tool returned, as the request carries
	// its result item.
	payload func(it modelserver.Item) (string, error)
	// original is a tool's output as the request carried it.
	original func(it modelserver.Item) string
	// compactArgs are compact's extra arguments (opencode imports its
	// fork); forkID the id that resumes the fork (nil: idOf the file).
	compactArgs []string
	forkID      func(res compactResult) string
	// importFork hands the fork to an agent that keeps sessions in a
	// database (nil: the agent reads the file).
	importFork func(t *testing.T, sb *sandbox, command, fork string)
}

// recallFile is what the session reads: tabs, quotes, markup, non-ASCII,
// trailing spaces, blank lines and no final newline — every byte must
// come back.
func recallFile() string {
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "entry %03d\t\"ledger\" <line kind=%q> & amp; é ü 漢字 🙂 trailing   \n", i, "x")
		if i%15 == 0 {
			b.WriteString("\n")
		}
	}
	b.WriteString("last line without newline")
	return b.String()
}

var handleRE = regexp.MustCompile(`recall (r[0-9a-f]{6,64})`)

// handleNaming returns the handle of the placeholder that names what in
// the request (the fork's placeholder of the read), else of the one
// placeholder of a tool result (opencode's read names its file in an
// argument placeholders do not quote).
func handleNaming(what string) func(c *modelserver.Conversation) (map[string]any, error) {
	return func(c *modelserver.Conversation) (map[string]any, error) {
		var results []string
		for _, it := range c.Items {
			if !strings.Contains(it.Text, "[compacted: ") {
				continue
			}
			m := handleRE.FindStringSubmatch(it.Text)
			if m == nil {
				continue
			}
			if strings.Contains(it.Text, what) {
				return map[string]any{"handle": m[1]}, nil
			}
			if it.Kind == modelserver.KindResult {
				results = append(results, m[1])
			}
		}
		if len(results) == 1 {
			return map[string]any{"handle": results[0]}, nil
		}
		return nil, fmt.Errorf("the request has no placeholder naming %q with a recall handle", what)
	}
}

var claudeRecall = recallAgent{
	agent: claude,
	prepare: func(t *testing.T, sb *sandbox) {
		// The tool result reaches the model as the server sent it without
		// the token reminder Claude Code appends otherwise; MCP tools come
		// in tools[] rather than behind ToolSearch.
		writeJSONFile(t, filepath.Join(sb.getenv("CLAUDE_CONFIG_DIR"), "settings.json"), map[string]any{"totalTokensReminder": "off"})
		sb.setenv("ENABLE_TOOL_SEARCH=false")
	},
	mcpArgs: []string{"--allowedTools", "mcp__compactd__recall mcp__compactd__context_status mcp__compactd__search"},
	payload: func(it modelserver.Item) (string, error) {
		if len(it.Blocks) != 1 {
			return "", fmt.Errorf("want one text block, got %d: %q", len(it.Blocks), it.Blocks)
		}
		return it.Blocks[0], nil
	},
	original: func(it modelserver.Item) string { return it.Text },
}

var codexRecall = recallAgent{
	agent: codex,
	prepare: func(t *testing.T, sb *sandbox) {
		// A model outside Codex's catalogue gets MCP tools directly, as a
		// Responses namespace (catalogue models defer them behind
		// tool_search); the reads go through its shell.
		p := filepath.Join(sb.getenv("CODEX_HOME"), "config.toml")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.Replace(string(b), `model = "gpt-5.5"`, `model = "compactd-e2e-model"`, 1))
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	},
	payload: func(it modelserver.Item) (string, error) {
		// [{"Wall time: … Output:"}, {payload}]
		if len(it.Blocks) != 2 || !strings.HasPrefix(it.Blocks[0], "Wall time:") {
			return "", fmt.Errorf("want Codex's two blocks (wall time, payload), got %q", it.Blocks)
		}
		return it.Blocks[1], nil
	},
	original: func(it modelserver.Item) string { return it.Text },
}

var geminiRecall = recallAgent{
	agent:   gemini,
	prepare: func(t *testing.T, sb *sandbox) {},
	payload: func(it modelserver.Item) (string, error) {
		var r struct {
			Output string `json:"output"`
		}
		if err := json.Unmarshal([]byte(it.Text), &r); err != nil {
			return "", fmt.Errorf("functionResponse.response is not {output}: %v: %s", err, it.Text)
		}
		// Gemini CLI wraps every MCP text in <untrusted_context>.
		const open, close = "<untrusted_context>\n", "\n</untrusted_context>"
		if !strings.HasPrefix(r.Output, open) || !strings.HasSuffix(r.Output, close) {
			return "", fmt.Errorf("the output is not wrapped as Gemini CLI 0.61 wraps MCP results: %q", r.Output)
		}
		return strings.TrimSuffix(strings.TrimPrefix(r.Output, open), close), nil
	},
	original: func(it modelserver.Item) string {
		var r struct {
			Output string `json:"output"`
		}
		if json.Unmarshal([]byte(it.Text), &r) == nil {
			return r.Output
		}
		return it.Text
	},
}

// qwenRecall is Qwen Code, which defers MCP tools behind tool_search and
// tool_call yet runs a direct call by the tool's full name.
var qwenRecall = recallAgent{
	agent: agent{
		name: "qwen", command: "qwen", label: "Qwen Code", timeout: 2 * time.Minute,
		configure: qwenAgent.configure,
		newID:     uuid,
		first: func(sb *sandbox, id, prompt string) []string {
			return []string{"--auth-type", "openai", "-m", newAgentModel, "--yolo", "--session-id", id, prompt}
		},
		resume: func(sb *sandbox, id, prompt string) []string {
			return []string{"--auth-type", "openai", "-m", newAgentModel, "--yolo", "--resume", id, prompt}
		},
		session: func(t *testing.T, sb *sandbox, id string) string {
			return filepath.Join(sb.home, ".qwen", "projects", claudeSlug(sb.project), "chats", id+".jsonl")
		},
		idOf: func(t *testing.T, path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") },
	},
	prepare: func(t *testing.T, sb *sandbox) {},
	payload: func(it modelserver.Item) (string, error) {
		if len(it.Blocks) != 1 {
			return "", fmt.Errorf("want one text part, got %d: %q", len(it.Blocks), it.Blocks)
		}
		return it.Blocks[0], nil
	},
	original: func(it modelserver.Item) string { return it.Text },
}

// opencodeRecall is opencode: sessions in its database (compactd renders
// them; a fork is imported), MCP tools named <server>_<tool>, results sent
// as a plain string.
var opencodeRecall = func() recallAgent {
	oc := openCodeFamily("opencode", "opencode", "OPENCODE")
	db := func(sb *sandbox) string { return oc.database(sb) }
	run := func(sb *sandbox, id, prompt string) []string {
		args := []string{"run", "-m", "e2e/" + newAgentModel}
		if id != "" {
			args = append(args, "--session", id)
		}
		return append(args, strings.Fields(prompt)...)
	}
	return recallAgent{
		agent: agent{
			name: "opencode", command: "opencode", label: "opencode", timeout: openCodeRunTimeout,
			configure: oc.configure,
			newID:     func() string { return "" },
			first:     func(sb *sandbox, id, prompt string) []string { return run(sb, "", prompt) },
			resume:    run,
			session: func(t *testing.T, sb *sandbox, id string) string {
				bin := compactdBin(t)
				var rows []gaugeResult
				out := sb.run(t, time.Minute, bin, "gauge", "--json", db(sb))
				if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) == 0 {
					t.Fatalf("compactd gauge %s: %v %s", db(sb), err, out)
				}
				return rows[0].Path
			},
			idOf: func(t *testing.T, path string) string { return strings.TrimSuffix(filepath.Base(path), ".json") },
		},
		prepare: func(t *testing.T, sb *sandbox) {},
		importFork: func(t *testing.T, sb *sandbox, command, fork string) {
			sb.run(t, time.Minute, command, "import", fork)
		},
		forkID:   func(res compactResult) string { return res.Session },
		payload:  func(it modelserver.Item) (string, error) { return it.Text, nil },
		original: func(it modelserver.Item) string { return it.Text },
	}
}()

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRealAgentsRecall: each agent, configured by `compactd mcp install`,
// resumes a compactd fork whose placeholder stands for a file it read;
// the scripted model calls recall with the placeholder's handle and then
// context_status. The tool result the agent sends next must be the
// original output byte for byte, and the status within 1 % of the usage
// the agent last recorded.
func TestRealAgentsRecall(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	for _, a := range []recallAgent{claudeRecall, codexRecall, geminiRecall, qwenRecall, opencodeRecall} {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			runRecall(t, a, bin)
		})
	}
}

func runRecall(t *testing.T, a recallAgent, bin string) {
	command, version := installedAgent(t, a.name, a.command)
	sb := newSandbox(t)
	ledger := filepath.Join(sb.project, "ledger.txt")
	if err := os.WriteFile(ledger, []byte(recallFile()), 0o644); err != nil {
		t.Fatal(err)
	}
	turns := map[string]modelserver.Turn{
		"read": {Thinking: thinking, Steps: [][]modelserver.Action{{{Kind: modelserver.Read, Path: ledger}}}, Answer: "The ledger lists 60 entries. (answer read)"},
		"ask":  {Thinking: thinking, Answer: "Nothing else to add. (answer ask)"},
		"recall": {Thinking: thinking, Steps: [][]modelserver.Action{
			{{Kind: modelserver.MCP, Server: "compactd", Tool: "recall", ArgsOf: handleNaming("ledger.txt")}},
			{{Kind: modelserver.MCP, Server: "compactd", Tool: "context_status", Args: map[string]any{}}},
		}, Answer: "I have the ledger back. (answer recall)"},
	}
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: turns}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a.configure(t, sb, srv)
	a.prepare(t, sb)
	t.Logf("%s %s in %s", a.label, version, sb.root)

	// A session: read the file, then one more turn so the read is not in
	// the turn compaction keeps.
	id := a.newID()
	sb.run(t, a.timeout, command, a.first(sb, id, prompt("read", "Read ledger.txt and tell me what it holds."))...)
	file := a.session(t, sb, id)
	if id == "" {
		id = a.idOf(t, file)
	}
	sb.run(t, a.timeout, command, a.resume(sb, id, prompt("ask", "Anything else?"))...)
	// Sessions kept in a database are rendered anew (the first turn's
	// rendering lacks the second).
	file = a.session(t, sb, id)
	if bad := rejectedSince(srv, 0); len(bad) > 0 {
		t.Fatalf("the model server refused the agent's own requests:%s", describe(bad))
	}
	// The read's output as the agent sent it, in the request after the
	// call (side requests, such as opencode's title, carry none).
	var original string
	for _, e := range exchangesOf(srv, "read") {
		for _, it := range e.Conversation.Items {
			if it.Kind == modelserver.KindResult && original == "" {
				original = a.original(it)
			}
		}
	}
	if !strings.Contains(original, "last line without newline") {
		t.Fatalf("the read's output as the agent sent it does not hold the file: %q", tail(original, 300))
	}

	// compactd strips the read's output into a placeholder naming a handle.
	fork := sb.compact(t, bin, append(append([]string{"--strategy", "strip-tool-results"}, a.compactArgs...), file)...)
	forkBytes, err := os.ReadFile(fork.ForkPath)
	if err != nil {
		t.Fatal(err)
	}
	if !handleRE.Match(forkBytes) {
		t.Fatalf("the fork %s names no recall handle", fork.ForkPath)
	}
	install := sb.run(t, time.Minute, bin, "mcp", "install", a.name)
	t.Logf("%s", strings.TrimSpace(install))

	seq := lastSeq(srv)
	if a.importFork != nil {
		a.importFork(t, sb, command, fork.ForkPath)
	}
	var forkID string
	if a.forkID != nil {
		forkID = a.forkID(fork)
	} else {
		forkID = a.idOf(t, fork.ForkPath)
	}
	out, errOut, err := sb.try(a.timeout, command, append(a.resume(sb, forkID, prompt("recall", "Get the ledger back from before the compaction.")), a.mcpArgs...)...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("the model server refused the resumed fork's requests:%s", describe(bad))
	}
	ex := exchangesOf(srv, "recall")
	if err != nil || len(ex) != 3 {
		t.Fatalf("the resumed fork ran %d of the 3 scripted requests (err %v)\n--- stdout\n%s\n--- stderr\n%s", len(ex), err, tail(out, 2000), tail(errOut, 2000))
	}
	result := func(e modelserver.Exchange) modelserver.Item {
		items := e.Conversation.Items
		for i := len(items) - 1; i >= 0; i-- {
			if items[i].Kind == modelserver.KindResult {
				return items[i]
			}
		}
		t.Fatalf("request #%d carries no tool result", e.Seq)
		return modelserver.Item{}
	}
	got, err := a.payload(result(ex[1]))
	if err != nil {
		t.Fatalf("recall's result: %v", err)
	}
	if got != original {
		t.Fatalf("recall's result as the agent sent it (%d bytes) is not the original output (%d bytes)\n--- got\n%s\n--- want\n%s", len(got), len(original), tail(got, 400), tail(original, 400))
	}

	// context_status against the usage recorded for the response that
	// called it (the last before the call).
	status, err := a.payload(result(ex[2]))
	if err != nil {
		t.Fatalf("context_status's result: %v", err)
	}
	var st struct {
		Path   string `json:"path"`
		Tokens int    `json:"tokens"`
		Window int    `json:"contextWindow"`
	}
	if err := json.Unmarshal([]byte(status), &st); err != nil {
		t.Fatalf("context_status did not answer JSON: %v: %s", err, tail(status, 500))
	}
	want := ex[1].Usage.Context()
	if !within(st.Tokens, want, 0.01) {
		t.Errorf("context_status says %d tokens of %s; the last reported usage is %d (bar: ±1%%)", st.Tokens, st.Path, want)
	}
	line := fmt.Sprintf("%s %s: recall %d bytes byte for byte; context_status %d vs reported %d (%+.2f%%)", a.label, version, len(got), st.Tokens, want, 100*float64(st.Tokens-want)/float64(want))
	t.Log(line)
	report("%s", line)

	// Uninstalling leaves the agent's config as the install found it.
	sb.run(t, time.Minute, bin, "mcp", "uninstall", a.name)
}
