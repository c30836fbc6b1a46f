package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
)

// inWorkspace rewrites the fixture's project folder (/home/ada/calc) as ws,
// as JSON spells it both in a document and inside an arguments string.
func inWorkspace(t *testing.T, src []byte, ws string) []byte {
	t.Helper()
	plain, err := json.Marshal(ws)
	if err != nil {
		t.Fatal(err)
	}
	nested, err := json.Marshal(string(plain))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(src), `\"/home/ada/calc`, string(nested[1:len(nested)-3]))
	return []byte(strings.ReplaceAll(s, `"/home/ada/calc`, string(plain[:len(plain)-1])))
}

// TestCopilotCLIEarlierLayouts is issue 34's item 4 in the daemon: the
// sessions Copilot CLI wrote before 1.0 are watched where it kept them —
// history-session-state/session_<id>_<ms>.json (before 0.0.342) and
// session-state/<id>.jsonl (0.0.343 to 0.0.38x), under ~/.copilot or, as
// those releases did when XDG_STATE_HOME was set, under
// $XDG_STATE_HOME/.copilot. They name no working folder; a session of the
// workspace is one whose tool calls worked on its files. Sessions of other
// folders are not shown, and a session the CLI rewrites whole (a new turn)
// is read again.
func TestCopilotCLIEarlierLayouts(t *testing.T) {
	ws, home, state := t.TempDir(), t.TempDir(), t.TempDir()
	legacy, err := os.ReadFile("../compaction/format/copilotcli/testdata/history-session-state/session_3f2b9c1e-7d4a-4e8b-a6c5-1b0d9e8f7a6c_1759957816398.json")
	if err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(home, ".copilot", "history-session-state", "session_3f2b9c1e-7d4a-4e8b-a6c5-1b0d9e8f7a6c_1759957816398.json")
	other := filepath.Join(home, ".copilot", "history-session-state", "session_9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a_1759957000000.json")
	writeFile(t, mine, inWorkspace(t, legacy, ws))
	writeFile(t, other, legacy)
	flat := sessiongen.CopilotCLIFlat(sessiongen.Options{Seed: 4, Turns: 3, Cwd: ws})
	flatMine := filepath.Join(state, ".copilot", "session-state", "6b1f0e2d-3c4b-4a59-8d7e-0f1e2d3c4b5a.jsonl")
	flatOther := filepath.Join(state, ".copilot", "session-state", "7c2a1f3e-4d5b-4b6a-9e8f-1a2b3c4d5e6f.jsonl")
	writeFile(t, flatMine, flat)
	writeFile(t, flatOther, sessiongen.CopilotCLIFlat(sessiongen.Options{Seed: 5, Turns: 3}))

	d, rec := startDaemon(t, Options{Folders: []string{ws}, Env: agents.Env{Home: home, StateHome: state}, Config: config.Layers{Client: settingsJSON(t, nil)}})
	for _, p := range []string{mine, flatMine} {
		if s := d.Snapshot(p); s == nil || s.Format != "copilot-cli" || s.Tokens == 0 {
			t.Errorf("%s: snapshot %+v", p, s)
		}
		if !d.Allowed(p) {
			t.Errorf("%s: commands may not act on it", p)
		}
	}
	for _, p := range []string{other, flatOther} {
		if d.Snapshot(p) != nil {
			t.Errorf("%s, a session of another folder, is shown", p)
		}
	}

	// The CLI writes the whole document again after a turn.
	before := d.Snapshot(mine).Tokens
	var doc map[string]any
	if err := json.Unmarshal(inWorkspace(t, legacy, ws), &doc); err != nil {
		t.Fatal(err)
	}
	doc["chatMessages"] = append(doc["chatMessages"].([]any),
		map[string]any{"role": "user", "content": "Now add a test for Sub. " + strings.Repeat("Cover the negative numbers too. ", 40)},
		map[string]any{"role": "assistant", "content": "Added TestSub with three cases."})
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	tmp := mine + ".tmp"
	writeFile(t, tmp, b)
	if err := os.Rename(tmp, mine); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, func(ev index.Event) bool { return ev.Path == mine && ev.Snapshot != nil && ev.Snapshot.Tokens > before })

	// A session started after the daemon: found as it is written.
	later := filepath.Join(home, ".copilot", "history-session-state", "session_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d_1759958000000.json")
	writeFile(t, later, inWorkspace(t, legacy, ws))
	rec.wait(t, func(ev index.Event) bool { return ev.Path == later && ev.Snapshot != nil })
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
