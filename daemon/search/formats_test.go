package search

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agentdb"
	"github.com/compactd/compactd/daemon/watch"
)

// placed is one session put where its agent keeps it (or in the
// workspace, for formats no registered agent writes).
type placed struct {
	name string
	// path is the transcript a hit names; data what its codec parses.
	path string
	data []byte
}

// everyFormat places one real-shaped session of each format compactd
// reads: real transcripts of the shared corpus where there is one, else
// the codec's own testdata, each in its agent's folder of some project
// (the workspace is elsewhere: search reads every project's) or, for
// the formats of tools with no registered agent, in the workspace.
func everyFormat(t *testing.T, m *machine) []placed {
	t.Helper()
	project := filepath.Join(m.home, "src", "calc")
	var out []placed
	file := func(name, src, dst string) {
		data := readFile(t, src)
		out = append(out, placed{name: name, path: writeFile(t, dst, data), data: data})
	}
	file("claude-code", corpus(t, "claude-code/real-v2.0.37-agent-sidechain.jsonl"),
		filepath.Join(m.home, ".claude", "projects", slug(project), "5d1c3a8e-3c1a-4a57-9d0c-2f1f7f6b9a10.jsonl"))
	file("codex", codecData(t, "codex/testdata/mixed.jsonl"),
		filepath.Join(m.home, ".codex", "sessions", "2026", "06", "05", "rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl"))
	file("gemini-cli", corpus(t, "gemini-cli/fixture-v0.40-session.jsonl"),
		filepath.Join(m.home, ".gemini", "tmp", "calc", "chats", "session-2026-04-29T21-39-gemini_s.jsonl"))
	file("qwen-code", codecData(t, "qwen/testdata/session.jsonl"),
		filepath.Join(m.home, ".qwen", "projects", slug(project), "chats", "6a3f1f4e-8c2b-4d1e-9f7a-1b2c3d4e5f60.jsonl"))
	file("copilot-cli", codecData(t, "copilotcli/testdata/events.jsonl"),
		filepath.Join(m.home, ".copilot", "session-state", "0f3d2c1b-aaaa-4bbb-8ccc-123456789abc", "events.jsonl"))
	file("cursor-agent", codecData(t, "cursor/testdata/transcript.jsonl"),
		filepath.Join(m.home, ".cursor", "projects", "home-ada-src-calc", "agent-transcripts", "b7c6d5e4", "b7c6d5e4.jsonl"))
	file("copilot-chat", codecData(t, "copilotchat/testdata/legacy-session.json"),
		filepath.Join(m.env.AppDataDir(), "Code", "User", "workspaceStorage", "4f1c0e2d9b", "chatSessions", "3c2b1a09.json"))
	file("aider", codecData(t, "aider/testdata/webserver.aider.chat.history.md"), filepath.Join(m.ws, ".aider.chat.history.md"))
	file("anthropic-messages", corpus(t, "anthropic-messages/derived-from-claude-code-real.request.json"), filepath.Join(m.ws, "logs", "request.json"))
	file("openai-chat", corpus(t, "openai-chat/real-mini-swe-agent-toolcalls.traj.json"), filepath.Join(m.ws, "runs", "calc.traj.json"))
	file("openai-responses", corpus(t, "openai-responses/derived-from-codex-fixture.input-items.json"), filepath.Join(m.ws, "runs", "items.json"))
	file("jp", corpus(t, "jp/preventing-rfd-summary-regeneration-churn.events.json"), filepath.Join(m.ws, ".jp", "conv", "events.json"))
	file("cline", codecData(t, "cline/testdata/api_conversation_history.json"), filepath.Join(m.ws, "tasks", "1", "api_conversation_history.json"))
	file("cline-ui", codecData(t, "cline/testdata/ui-only/ui_messages.json"), filepath.Join(m.ws, "tasks", "2", "ui_messages.json"))
	for _, agent := range []string{"opencode", "kilo"} {
		w := m.agentDB(t, agent)
		export := readFile(t, codecData(t, "opencode/testdata/session.json"))
		if agent == "kilo" {
			// Another session, so its phrases are its own.
			export = []byte(strings.NewReplacer("ses_df6018d8cffeeRX164hLZrrQC7", "ses_kilo0000000000000000001", "calc", "ledger", "Add", "Sum").Replace(string(export)))
		}
		id := importExport(t, w, export)
		db, err := agentdb.Open(filepath.Join(m.home, ".local", "share", agent, agent+".db"))
		if err != nil {
			t.Fatal(err)
		}
		data, err := db.Export(t.Context(), id)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, placed{name: agent, path: watch.RenderedSession(filepath.Join(m.env.SessionsDir(), agent), id), data: data})
	}
	return out
}

// A probe is a phrase of one session to look for, and where it is.
type probe struct {
	what, phrase string
	role, part   string
}

// probes picks, from a session's own parse, a phrase of a prompt, an
// answer, a tool call (its arguments: paths, commands) and a tool
// result, each four words long and said nowhere else (no other passage
// of any session).
func probes(t *testing.T, s placed, all []placed) []probe {
	t.Helper()
	ps := parsePassages(t, s.name, s.data)
	var texts []string
	for _, o := range all {
		for _, p := range parsePassages(t, o.name, o.data) {
			texts = append(texts, " "+strings.Join(termTexts(p.Text), " ")+" ")
		}
	}
	kinds := []struct {
		what  string
		match func(p passage) bool
	}{
		{"a prompt", func(p passage) bool {
			return p.Role == transcript.RoleUser && p.Origin == transcript.OriginHuman && p.Part == transcript.PartText
		}},
		{"an answer", func(p passage) bool { return p.Role == transcript.RoleAssistant && p.Part == transcript.PartText }},
		{"a tool call", func(p passage) bool { return p.Part == transcript.PartToolCall }},
		{"a tool result", func(p passage) bool { return p.Part == transcript.PartToolResult }},
	}
	var out []probe
	for _, k := range kinds {
	next:
		for _, p := range ps {
			if !k.match(p) {
				continue
			}
			ts := termTexts(p.Text)
			for i := 0; i+4 <= len(ts); i++ {
				phrase := strings.Join(ts[i:i+4], " ")
				n := 0
				for _, o := range texts {
					n += strings.Count(o, " "+phrase+" ")
				}
				if n == 1 {
					out = append(out, probe{what: k.what, phrase: phrase, role: string(p.Role), part: string(p.Part)})
					break next
				}
			}
		}
	}
	return out
}

func termTexts(s string) []string {
	var out []string
	for _, t := range terms(s) {
		out = append(out, t.Text)
	}
	return out
}

func parsePassages(t *testing.T, name string, data []byte) []passage {
	t.Helper()
	c, err := format.Detect(name, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tr, err := c.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return passages(tr.Messages, 0)
}

// TestFindsEveryFormat: a phrase of a prompt, an answer, a tool call and
// a tool result of a session of each format compactd reads — in the
// agents' own folders of another project, their databases and the
// workspace — is found, in that session, after one sync.
func TestFindsEveryFormat(t *testing.T) {
	m := newMachine(t)
	sessions := everyFormat(t, m)
	x := m.index(t)
	st, err := x.Sync(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed < len(sessions) {
		t.Errorf("sync indexed %d sources, want at least %d: %+v", st.Indexed, len(sessions), st)
	}
	formats := map[string]bool{}
	for _, s := range sessions {
		formats[s.name] = true
		t.Run(s.name, func(t *testing.T) {
			ps := probes(t, s, sessions)
			if len(ps) == 0 {
				t.Fatal("no phrase of its own to look for")
			}
			for _, p := range ps {
				for _, q := range []string{`"` + p.phrase + `"`, p.phrase} {
					res, err := x.Search(t.Context(), Query{Text: q, Limit: 50})
					if err != nil {
						t.Fatal(err)
					}
					if !has(res, s.path, "", p.role, p.part) {
						t.Errorf("%s: %s not found in %s (%s/%s); hits:%s", p.what, q, s.path, p.role, p.part, describeHits(res))
					}
				}
			}
		})
	}
	if len(formats) < 16 {
		t.Errorf("%d formats placed, want all 16 (%v)", len(formats), formats)
	}
	_ = fmt.Sprint
}
