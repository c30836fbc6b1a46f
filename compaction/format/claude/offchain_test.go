package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// The offchain-*.jsonl fixtures were written by the real Claude Code,
// offline against the real-agent suite's model server
// (editors/e2e/agents, TestRealAgentOffChainForks' script: a Read of a
// PNG, a response with three parallel calls — a Read of main.go, a Read
// of the PNG, a Bash — and an Agent call whose subagent reads main.go and
// the PNG in parallel), with the request-log rows (api-request*) removed:
//
//   - offchain-2.1.330.jsonl, the session (2.1.330): the PNG's result of
//     the parallel calls hangs off the chain, an image beside the chain;
//   - offchain-2.1.330-agent.jsonl, the subagent's file: sidechain rows,
//     the text result of the first call off the chain;
//   - offchain-2.1.170-agent.jsonl (2.1.170): the image result written
//     first, so the chain runs through the text result and the image
//     hangs beside it;
//   - offchain-2.1.114-agent.jsonl (2.1.114): the text result off the
//     chain;
//   - compacted-2.1.330.jsonl, the same session compacted by Claude Code
//     2.1.330's /compact, then three parallel calls again: its boundary
//     preserved the last answer, which stays before the boundary (see
//     preserved.go);
//   - offchain-sibling.jsonl, derived from offchain-2.1.330.jsonl in the
//     shape issue 34 saw in a 2.1.170 desktop session: the row after a
//     result hangs from the call's row, the result beside it (the image
//     read), and a result hanging from the prompt names its call only in
//     sourceToolAssistantUUID (the Agent call).
//
// compactd followed the parentUuid chain and left these results out:
// forks with every strategy, strip-reasoning alone included, kept their
// calls without them, and the invariant check, which walked the same way,
// let the forks through.
var offChainFixtures = []string{"offchain-2.1.330.jsonl", "offchain-2.1.330-agent.jsonl", "offchain-2.1.170-agent.jsonl", "offchain-2.1.114-agent.jsonl", "offchain-sibling.jsonl", "compacted-2.1.330.jsonl"}

// TestOffChainResultsAreRead: every call of these sessions is answered in
// what compactd reads, as in what Claude Code sends, and Load (Claude
// Code's loader) and Parse agree on the rows.
func TestOffChainResultsAreRead(t *testing.T) {
	for _, name := range offChainFixtures {
		t.Run(name, func(t *testing.T) {
			src := formattest.Fixture(t, name)
			tr := formattest.RoundTrip(t, Codec{}, name, src)
			calls := callIDs(src)
			if len(calls) == 0 {
				t.Fatal("the fixture makes no tool call")
			}
			if miss := unanswered(tr.Messages, calls); len(miss) > 0 {
				t.Errorf("compactd reads %d calls without their results: %v", len(miss), miss)
			}
			loaded, err := Codec{}.Load(tr)
			if err != nil {
				t.Fatal(err)
			}
			if miss := unanswered(loaded, calls); len(miss) > 0 {
				t.Errorf("Load rebuilds %d calls without their results: %v", len(miss), miss)
			}
			sameRows(t, tr, tr.Messages, loaded)
			for seed := range uint64(4) {
				formattest.AppendInChunks(t, Codec{}, src, seed)
			}
		})
	}
}

// TestOffChainForksKeepResults: a fork keeps every tool result whose call
// it keeps, with every strategy, and passes the check held to what
// Claude Code's loader rebuilds; a fork without one of them fails it
// (compactd's own check, on its own parse, passed such forks).
func TestOffChainForksKeepResults(t *testing.T) {
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	strategies := [][]string{{"strip-reasoning"}, {"auto"}, {"strip-attachments"}, {"strip-tool-results"}, {"dedup-tools"}, {"prune-tools"}, {"turn-window"}, {"token-budget"}, {"extractive"}}
	for _, name := range offChainFixtures {
		src := formattest.Fixture(t, name)
		tr, err := Codec{}.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		orig, err := Codec{}.Load(tr)
		if err != nil {
			t.Fatal(err)
		}
		for _, ss := range strategies {
			t.Run(name+"/"+strings.Join(ss, "+"), func(t *testing.T) {
				opts := strategy.Options{Strategies: ss}
				if ss[0] == "token-budget" {
					opts.Budget = 3000
				}
				v, _, err := strategy.Run(t.Context(), tr, counter, opts)
				if err != nil {
					t.Fatal(err)
				}
				data, fork := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"})
				loaded, err := Codec{}.Load(fork)
				if err != nil {
					t.Fatal(err)
				}
				answered := results(orig)
				for _, id := range callIDs(data) {
					if answered[id] && !results(loaded)[id] {
						t.Errorf("the fork keeps call %s without the result the session gave it", id)
					}
				}
				if err := checkLoaded(loaded, orig); err != nil {
					t.Errorf("the fork fails the check held to Claude Code's loader: %v", err)
				}
				sameRows(t, fork, fork.Messages, loaded)
				for _, id := range sources(data) {
					if !bytes.Contains(data, []byte(`"uuid":"`+id+`"`)) {
						t.Errorf("a result's sourceToolAssistantUUID names %s, a row the fork does not have", id)
					}
				}

				// Without one of its results, the fork fails the check.
				if len(callIDs(data)) == 0 {
					if !slices.Contains([]string{"turn-window", "token-budget", "extractive"}, ss[0]) {
						t.Fatalf("the fork kept no tool call")
					}
					return // the strategy cut every call
				}
				cut := withoutResult(t, data)
				bad, err := Codec{}.Parse(cut)
				if err != nil {
					t.Fatal(err)
				}
				badLoaded, err := Codec{}.Load(bad)
				if err != nil {
					t.Fatal(err)
				}
				if err := checkLoaded(badLoaded, orig); err == nil || !strings.Contains(err.Error(), "without its result") {
					t.Errorf("a fork that lost a tool result passes the check: %v", err)
				}
			})
		}
	}
}

// checkLoaded is the check verifyFork runs for a codec with a Loader.
func checkLoaded(fork, original []transcript.Message) error {
	return strategy.CheckFork(&transcript.Transcript{Format: transcript.FormatClaudeCode, Messages: fork},
		&transcript.Transcript{Format: transcript.FormatClaudeCode, Messages: original})
}

// withoutResult drops the last row of data holding a tool result whose
// call the fork also holds, and hangs the row after it from the row before.
func withoutResult(t *testing.T, data []byte) []byte {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte("\n"))
	calls := map[string]bool{}
	for _, id := range callIDs(data) {
		calls[id] = true
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var row struct {
			UUID    string `json:"uuid"`
			Parent  string `json:"parentUuid"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(lines[i], &row) != nil || !bytes.Contains(row.Message.Content, []byte(`"tool_result"`)) {
			continue
		}
		id := resultIDsOf(row.Message.Content)
		if len(id) == 0 || !calls[id[0]] || i+1 >= len(lines) {
			continue
		}
		out := slices.Concat(lines[:i], lines[i+1:])
		out[i] = bytes.Replace(out[i], []byte(`"parentUuid":"`+row.UUID+`"`), []byte(`"parentUuid":"`+row.Parent+`"`), 1)
		return bytes.Join(out, nil)
	}
	t.Fatal("the fork holds no tool result to drop")
	return nil
}

// callIDs lists the tool calls src's rows make, in file order.
func callIDs(src []byte) []string {
	var out []string
	for l := range bytes.Lines(src) {
		var row struct {
			Type    string `json:"type"`
			Message struct {
				Content []struct {
					Type string `json:"type"`
					ID   string `json:"id"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(l, &row) != nil || row.Type != "assistant" {
			continue
		}
		for _, b := range row.Message.Content {
			if b.Type == "tool_use" {
				out = append(out, b.ID)
			}
		}
	}
	return out
}

func resultIDsOf(content json.RawMessage) []string {
	var blocks []struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
	}
	json.Unmarshal(content, &blocks)
	var out []string
	for _, b := range blocks {
		if b.Type == "tool_result" {
			out = append(out, b.ToolUseID)
		}
	}
	return out
}

// sources lists the sourceToolAssistantUUIDs src's rows name.
func sources(src []byte) []string {
	var out []string
	for l := range bytes.Lines(src) {
		var row struct {
			Source string `json:"sourceToolAssistantUUID"`
		}
		if json.Unmarshal(l, &row) == nil && row.Source != "" {
			out = append(out, row.Source)
		}
	}
	return out
}

// results lists the calls msgs answer.
func results(msgs []transcript.Message) map[string]bool {
	out := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == transcript.PartToolResult {
				out[p.ToolCallID] = true
			}
		}
	}
	return out
}

// unanswered lists the calls that have no result in the message after
// theirs (the API's rule, consecutive messages of one role combined).
func unanswered(msgs []transcript.Message, calls []string) []string {
	var turns [][]transcript.Part
	var roles []transcript.Role
	for _, m := range msgs {
		if k := len(roles) - 1; k >= 0 && roles[k] == m.Role {
			turns[k] = append(turns[k], m.Parts...)
			continue
		}
		roles = append(roles, m.Role)
		turns = append(turns, slices.Clone(m.Parts))
	}
	var out []string
	for k, parts := range turns {
		for _, p := range parts {
			if p.Kind != transcript.PartToolCall || !slices.Contains(calls, p.ToolCallID) {
				continue
			}
			ok := k+1 < len(turns) && slices.ContainsFunc(turns[k+1], func(q transcript.Part) bool {
				return q.Kind == transcript.PartToolResult && q.ToolCallID == p.ToolCallID
			})
			if !ok {
				out = append(out, p.ToolCallID)
			}
		}
	}
	return out
}

// sameRows fails unless both readings send the same user and assistant
// rows in the same order.
func sameRows(t *testing.T, tr *transcript.Transcript, parsed, loaded []transcript.Message) {
	t.Helper()
	rows := func(msgs []transcript.Message) string {
		var b strings.Builder
		for _, m := range msgs {
			for _, r := range m.Records {
				// Attachments are Claude Code's own rows; Load adds those
				// under the leaf, which compactd's walk leaves out.
				if typ := tr.Records[r].Type; typ == "user" || typ == "assistant" {
					fmt.Fprintf(&b, "%d ", r)
				}
			}
		}
		return b.String()
	}
	if p, l := rows(parsed), rows(loaded); p != l {
		t.Errorf("Parse and Load disagree on the rows sent:\n parse %s\n load  %s", p, l)
	}
}

// TestStripAttachmentsInToolResults: the images a Read returned go from a
// strip-attachments fork, the results saying what they held. The view
// dropped them while the fork kept their blocks whole: the report counted
// them gone, Claude Code sent them again.
func TestStripAttachmentsInToolResults(t *testing.T) {
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Codec{}.Parse(formattest.Fixture(t, "offchain-2.1.330.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := strategy.Run(t.Context(), tr, counter, strategy.Options{Strategies: []string{"strip-attachments"}, KeepLast: new(1)})
	if err != nil {
		t.Fatal(err)
	}
	data, fork := formattest.ForkParse(t, Codec{}, v, format.ForkOptions{SessionID: "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"})
	if n := bytes.Count(data, []byte(`"type":"image"`)); n != 0 {
		t.Errorf("the fork holds %d image blocks", n)
	}
	stood := 0
	for _, m := range fork.Messages {
		for _, p := range m.Parts {
			if p.Kind == transcript.PartImage {
				t.Errorf("the fork reads back with an image in message %s", m.ID)
			}
			if p.Kind == transcript.PartToolResult && strings.HasPrefix(p.Text, "[compacted: image image/png") {
				stood++
			}
		}
	}
	if stood != 2 {
		t.Errorf("%d results say what image they held, want 2 (the Read of the PNG, and its parallel Read)", stood)
	}
	if bytes.Contains(data, []byte(`"toolUseResult":{"type":"image"`)) {
		t.Errorf("the fork keeps the image in a toolUseResult")
	}
}

// TestCompactionPreservedRows: the answer Claude Code's /compact preserved
// (listed by its boundary, written before it) is read after the summary,
// as Claude Code sends it, without the usage it measured before the
// compaction; forks keep it there. compactd read the conversation from the
// boundary on and lost it.
func TestCompactionPreservedRows(t *testing.T) {
	tr := formattest.RoundTrip(t, Codec{}, "compacted", formattest.Fixture(t, "compacted-2.1.330.jsonl"))
	preserved := func(msgs []transcript.Message) {
		t.Helper()
		if len(msgs) < 2 || msgs[0].Origin != transcript.OriginSummary {
			t.Fatalf("the conversation does not start with the summary")
		}
		m := msgs[1]
		if m.Role != transcript.RoleAssistant || !strings.Contains(m.Parts[len(m.Parts)-1].Text, "(answer sub)") {
			t.Fatalf("after the summary: %s %v, want the answer the compaction preserved", m.Role, m.Parts)
		}
		if m.Usage != nil {
			t.Errorf("the preserved answer carries the usage measured before the compaction: %+v", *m.Usage)
		}
	}
	preserved(tr.Messages)
	loaded, err := Codec{}.Load(tr)
	if err != nil {
		t.Fatal(err)
	}
	preserved(loaded)
	sameRows(t, tr, tr.Messages, loaded)
	for seed := range uint64(4) {
		formattest.AppendInChunks(t, Codec{}, formattest.Fixture(t, "compacted-2.1.330.jsonl"), seed)
	}
	_, fork := formattest.ForkParse(t, Codec{}, transcript.NewView(tr), format.ForkOptions{SessionID: "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"})
	preserved(fork.Messages)
}

// TestLoadAgreesWithParse holds Parse's incremental walk to Load, the
// reading written after Claude Code's loader: on every fixture and every
// corpus file, both send the same user and assistant rows in the same
// order, and every call that Load answers Parse answers too.
func TestLoadAgreesWithParse(t *testing.T) {
	files := formattest.Fixtures(t, "*.jsonl")
	if formattest.CorpusDir() != "" {
		files = append(files, formattest.Corpus(t, "claude-code", "*.jsonl")...)
	}
	for _, f := range files {
		if formattest.IsGolden(f) {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			src := formattest.Read(t, f)
			tr, err := Codec{}.Parse(src)
			if err != nil {
				t.Skipf("not a session: %v", err)
			}
			loaded, err := Codec{}.Load(tr)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, tr, tr.Messages, loaded)
			parsed := results(tr.Messages)
			for id := range results(loaded) {
				if !parsed[id] {
					t.Errorf("Load answers call %s, Parse does not", id)
				}
			}
		})
	}
}

// TestResultUnderProgressRow: a result hanging from a progress row that
// hangs from the call's row (Claude Code wrote tool progress into the
// chain before 2.1) is joined to its call: the loader takes progress rows
// out and hangs what was under them from their parent.
func TestResultUnderProgressRow(t *testing.T) {
	src := formattest.Fixture(t, "offchain-2.1.330.jsonl")
	var out [][]byte
	moved := 0
	for l := range bytes.Lines(src) {
		var row map[string]any
		if err := json.Unmarshal(l, &row); err != nil {
			t.Fatal(err)
		}
		if source, ok := row["sourceToolAssistantUUID"].(string); ok && row["parentUuid"] == source && moved < 2 {
			// The first two results: one off the chain, one on it.
			progress := map[string]any{"type": "progress", "uuid": fmt.Sprintf("9f0e1d2c-0000-4000-8000-00000000000%d", moved), "parentUuid": source,
				"isSidechain": false, "sessionId": row["sessionId"], "timestamp": row["timestamp"], "data": map[string]any{"type": "bash_progress"}}
			b, _ := json.Marshal(progress)
			out = append(out, append(b, '\n'))
			row["parentUuid"] = progress["uuid"]
			delete(row, "sourceToolAssistantUUID")
			moved++
		}
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append(b, '\n'))
	}
	if moved != 2 {
		t.Fatalf("moved %d results under progress rows", moved)
	}
	src = bytes.Join(out, nil)
	tr := formattest.RoundTrip(t, Codec{}, "progress", src)
	if miss := unanswered(tr.Messages, callIDs(src)); len(miss) > 0 {
		t.Errorf("compactd reads %d calls without their results: %v", len(miss), miss)
	}
	loaded, err := Codec{}.Load(tr)
	if err != nil {
		t.Fatal(err)
	}
	if miss := unanswered(loaded, callIDs(src)); len(miss) > 0 {
		t.Errorf("Load rebuilds %d calls without their results: %v", len(miss), miss)
	}
	sameRows(t, tr, tr.Messages, loaded)
}
