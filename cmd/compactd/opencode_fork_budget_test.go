package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/tokens"
)

// TestOpenCodeForkHoldsWhatCompactCounted: `compact --budget N` on an
// opencode (and a Kilo) export whose tool parts share one call id — as
// sessions published with their ids redacted do, and as opencode keeps and
// sends them, pairing a call with its result by the part that holds both.
// At every budget, the fork read back as opencode's prompt builder turns it
// into model messages (opencodeSees) holds within 5 % of the tokens the
// report calls "after": a fork that writes back the full output of a
// result the compaction removed hands the agent far more than compactd
// counted (a 10k compaction of a real session came back as 21k).
func TestOpenCodeForkHoldsWhatCompactCounted(t *testing.T) {
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, agent := range []struct{ name, version string }{{"opencode", "1.2.20"}, {"kilo", "7.7.7"}} {
		t.Run(agent.name, func(t *testing.T) {
			envs := isolatedEnv(t)
			dir := filepath.Join(t.TempDir(), agent.name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			src := filepath.Join(dir, "ses_3f0a1b2c3d4eFgHiJkLmNoPqRs.json")
			export := sharedCallIDExport(t, agent.version)
			if err := os.WriteFile(src, export, 0o644); err != nil {
				t.Fatal(err)
			}
			before := counter.Text(opencodeSees(t, export))
			for _, budget := range []int{2000, 5000, 10000, 20000} {
				if before < budget*5/4 {
					t.Fatalf("the session holds %d tokens: too few to compact to %d", before, budget)
				}
				out := filepath.Join(dir, fmt.Sprintf("fork-%d.json", budget))
				code, stdout, stderr := runCLI(t, envs, "compact", "--json", "--budget", fmt.Sprint(budget), "--out", out, src)
				if code != 0 {
					t.Fatalf("compact --budget %d: exit %d: %s", budget, code, stderr)
				}
				var res struct {
					Format      string `json:"format"`
					ForkPath    string `json:"forkPath"`
					TokensAfter int    `json:"tokensAfter"`
				}
				if err := json.Unmarshal([]byte(stdout), &res); err != nil {
					t.Fatalf("compact --json: %v\n%s", err, stdout)
				}
				if res.Format != agent.name {
					t.Fatalf("read as %s, want %s", res.Format, agent.name)
				}
				fork, err := os.ReadFile(res.ForkPath)
				if err != nil {
					t.Fatal(err)
				}
				sees := counter.Text(opencodeSees(t, fork))
				t.Logf("budget %d: after %d, the fork as %s sends it %d tokens (the source %d)", budget, res.TokensAfter, agent.name, sees, before)
				if d := math.Abs(float64(sees-res.TokensAfter)) / float64(res.TokensAfter); d > 0.05 {
					t.Errorf("budget %d: compact reports %d tokens after, the fork %s loads holds %d (%+.0f %%)", budget, res.TokensAfter, agent.name, sees, 100*float64(sees-res.TokensAfter)/float64(res.TokensAfter))
				}
			}
		})
	}
}

// sharedCallIDExport is an `opencode export` document of 12 turns, each an
// assistant step reading three files whose tool parts all carry the call
// id "REDACTED", then answering.
func sharedCallIDExport(t *testing.T, version string) []byte {
	t.Helper()
	const start = int64(1772900000000)
	now := start
	tick := func() int64 { now += 1000; return now }
	n := 0
	id := func(prefix string) string { n++; return fmt.Sprintf("%s_%012x%014d", prefix, start+int64(n), n) }
	session := "ses_3f0a1b2c3d4eFgHiJkLmNoPqRs"
	model := map[string]any{"providerID": "openai", "modelID": "gpt-5"}
	var msgs []any
	for turn := range 12 {
		user := id("msg")
		msgs = append(msgs, map[string]any{
			"info": map[string]any{"id": user, "sessionID": session, "role": "user", "time": map[string]any{"created": tick()}, "agent": "build", "model": model},
			"parts": []any{map[string]any{"id": id("prt"), "sessionID": session, "messageID": user, "type": "text",
				"text": fmt.Sprintf("Turn %d: look at the handlers of module m%d and tell me what validate%d checks.", turn, turn, turn)}},
		})
		asst := id("msg")
		created := tick()
		parts := []any{map[string]any{"id": id("prt"), "sessionID": session, "messageID": asst, "type": "step-start"}}
		for file := range 3 {
			path := fmt.Sprintf("/home/dev/proj/m%d/handler%d.go", turn, file)
			parts = append(parts, map[string]any{"id": id("prt"), "sessionID": session, "messageID": asst, "type": "tool", "tool": "read", "callID": "REDACTED",
				"state": map[string]any{"status": "completed", "input": map[string]any{"filePath": path},
					"output": fileBody(turn, file), "title": path,
					"metadata": map[string]any{"preview": fileBody(turn, file)[:200], "truncated": false},
					"time":     map[string]any{"start": created, "end": created + 10}}})
		}
		parts = append(parts,
			map[string]any{"id": id("prt"), "sessionID": session, "messageID": asst, "type": "text",
				"text": fmt.Sprintf("validate%d checks that every field of Request%d is set before handler%d_0 runs.", turn, turn, turn)},
			map[string]any{"id": id("prt"), "sessionID": session, "messageID": asst, "type": "step-finish", "reason": "stop",
				"tokens": map[string]any{"input": 0, "output": 0, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}}, "cost": 0})
		msgs = append(msgs, map[string]any{
			"info": map[string]any{"id": asst, "sessionID": session, "parentID": user, "role": "assistant", "mode": "build", "agent": "build",
				"modelID": "gpt-5", "providerID": "openai", "path": map[string]any{"cwd": "/home/dev/proj", "root": "/home/dev/proj"}, "cost": 0,
				"tokens": map[string]any{"input": 0, "output": 0, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}},
				"time":   map[string]any{"created": created, "completed": tick()}, "finish": "stop"},
			"parts": parts,
		})
	}
	doc := map[string]any{
		"info": map[string]any{"id": session, "slug": "brave-otter", "projectID": "p0", "directory": "/home/dev/proj", "title": "Handlers",
			"version": version, "time": map[string]any{"created": start, "updated": now}},
		"messages": msgs,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fileBody is a Go file of about 1,500 tokens, different per turn and file.
func fileBody(turn, file int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package m%d\n\n", turn)
	for i := range 40 {
		fmt.Fprintf(&b, "func handler%d_%d_%d(ctx context.Context, req *Request%d) error {\n\tif err := validate%d(req.Field%d); err != nil {\n\t\treturn fmt.Errorf(\"handler %d/%d: %%w\", err)\n\t}\n\treturn store%d.Put(ctx, req.Key%d)\n}\n\n",
			turn, file, i, turn, turn, i, file, i, file, i)
	}
	return b.String()
}

// opencodeSees renders an exported session as opencode's prompt builder
// (MessageV2.toModelMessages after filterCompacted) hands it to the model,
// read from opencode's own source, not from compactd's codec: from the
// last finished compaction on, a user message's text (not ignored) and a
// compaction part's prompt; an assistant message (not failed) with its
// text, reasoning, and each tool part's input with what stands for its
// result — the output of a completed part ("[Old tool result content
// cleared]" once opencode pruned it), an interrupted part's recorded
// output, else the error, "[Tool execution was interrupted]" for a part
// still pending or running.
func opencodeSees(t *testing.T, export []byte) string {
	t.Helper()
	type part struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Ignored bool            `json:"ignored"`
		Tool    string          `json:"tool"`
		State   json.RawMessage `json:"state"`
	}
	var doc struct {
		Messages []struct {
			Info struct {
				ID       string          `json:"id"`
				Role     string          `json:"role"`
				ParentID string          `json:"parentID"`
				Summary  json.RawMessage `json:"summary"`
				Finish   string          `json:"finish"`
				Error    json.RawMessage `json:"error"`
			} `json:"info"`
			Parts []part `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(export, &doc); err != nil {
		t.Fatalf("the export does not read: %v", err)
	}
	failed := func(raw json.RawMessage) bool { s := strings.TrimSpace(string(raw)); return s != "" && s != "null" }
	start := 0
	for i := len(doc.Messages) - 1; i >= 0 && start == 0; i-- {
		m := doc.Messages[i]
		if m.Info.Role != "assistant" || strings.TrimSpace(string(m.Info.Summary)) != "true" || m.Info.Finish == "" || failed(m.Info.Error) {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if doc.Messages[j].Info.ID != m.Info.ParentID {
				continue
			}
			for _, p := range doc.Messages[j].Parts {
				if p.Type == "compaction" {
					start = j
				}
			}
		}
	}
	var b strings.Builder
	for _, m := range doc.Messages[start:] {
		if m.Info.Role == "assistant" && failed(m.Info.Error) {
			continue
		}
		b.WriteString(m.Info.Role + ": ")
		for _, p := range m.Parts {
			switch {
			case p.Type == "text" && !p.Ignored, p.Type == "reasoning":
				b.WriteString(p.Text + "\n")
			case p.Type == "compaction":
				b.WriteString("What did we do so far?\n")
			case p.Type == "tool":
				var st struct {
					Status   string          `json:"status"`
					Input    json.RawMessage `json:"input"`
					Output   string          `json:"output"`
					Error    string          `json:"error"`
					Metadata struct {
						Interrupted bool    `json:"interrupted"`
						Output      *string `json:"output"`
					} `json:"metadata"`
					Time struct {
						Compacted json.RawMessage `json:"compacted"`
					} `json:"time"`
				}
				if err := json.Unmarshal(p.State, &st); err != nil {
					t.Fatalf("a tool part's state does not read: %v", err)
				}
				result := "[Tool execution was interrupted]"
				switch {
				case st.Status == "completed" && failed(st.Time.Compacted):
					result = "[Old tool result content cleared]"
				case st.Status == "completed":
					result = st.Output
				case st.Status == "error" && st.Metadata.Interrupted && st.Metadata.Output != nil:
					result = *st.Metadata.Output
				case st.Status == "error":
					result = st.Error
				}
				var input bytes.Buffer
				_ = json.Compact(&input, st.Input)
				b.WriteString(p.Tool + " " + input.String() + "\n" + result + "\n")
			}
		}
	}
	return b.String()
}
