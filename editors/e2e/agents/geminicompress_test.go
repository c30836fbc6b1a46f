package agents

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// Gemini CLI's own chat compression, live. Gemini CLI compresses when the
// prompt of its last request reaches model.compressionThreshold × its
// model's window: in a one-shot run that is before the second request of a
// turn (the first has no count yet), so the suite lowers the threshold to
// just under the size the session has reached and runs a turn with tools.
// Gemini CLI asks the model for a <state_snapshot> (and to check it),
// replaces the conversation with a $set of messages that opens with it,
// and carries on; checkOwnCompression holds compactd to it. (The compression
// falls inside the third turn: the conversation before it holds the first
// two whole.)
func TestRealAgentGeminiCompression(t *testing.T) {
	enabled(t)
	t.Parallel()
	bin := compactdBin(t)
	a := gemini
	command, version := installedAgent(t, a.name, a.command)
	sb := newSandbox(t)
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: ownCompressionTurns(sb.project)}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a.configure(t, sb, srv)
	t.Logf("%s %s in %s", a.label, version, sb.root)

	lsp := startLSP(t, sb, bin, a.lspInit)
	snapshots := watchUsage(t, a.root(sb), func(line []byte) (int, bool) {
		return 1, bytes.Contains(line, []byte(`"$set"`)) && bytes.Contains(line, []byte("<state_snapshot>"))
	})
	id, file := a.newID(), ""
	for i, st := range sessionTurns[:3] {
		args := a.first(sb, id, prompt(st.task, st.prompt))
		if i > 0 {
			args = a.resume(sb, id, prompt(st.task, st.prompt))
		}
		if i == 2 {
			// Just under what the session holds: Gemini CLI compresses
			// before this turn's second request.
			ex := exchangesOf(srv, sessionTurns[1].task)
			setGeminiCompression(t, sb, float64(ex[len(ex)-1].Usage.Prompt-100)/geminiWindow)
		}
		seq := lastSeq(srv)
		sb.run(t, a.timeout, command, args...)
		if bad := rejectedSince(srv, seq); len(bad) > 0 {
			t.Fatalf("turn %s: the model server refused the agent's requests:%s", st.task, describe(bad))
		}
		if file == "" {
			file = a.session(t, sb, id)
		}
	}
	setGeminiCompression(t, sb, 0) // the default again: nothing below compresses
	summaries := 0
	for _, e := range srv.Exchanges() {
		if e.Summary {
			summaries++
		}
	}
	if summaries == 0 {
		t.Fatalf("%s did not compress the conversation (no summary request)", a.label)
	}

	checkOwnCompression(t, ownCompression{label: a.label, sb: sb, srv: srv, lsp: lsp, bin: bin, file: file, id: id,
		record: snapshots.nth(t, file, 1, time.Minute), before: sessionTurns[:2],
		resume: func(id, text string) (string, string, error) {
			return sb.try(a.timeout, command, a.resume(sb, id, text)...)
		},
		sessionOf: func(path string) string { return a.idOf(t, path) },
	})
}

// geminiWindow is the window Gemini CLI's compression threshold is a share
// of (tokenLimit of its Gemini 3 models).
const geminiWindow = 1 << 20

// setGeminiCompression sets model.compressionThreshold in the sandbox's
// Gemini CLI settings (0: remove it, the default 0.5 applies).
func setGeminiCompression(t *testing.T, sb *sandbox, fraction float64) {
	t.Helper()
	path := filepath.Join(sb.home, ".gemini", "settings.json")
	var settings map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatal(err)
	}
	model, _ := settings["model"].(map[string]any)
	if model == nil {
		model = map[string]any{}
	}
	if fraction > 0 {
		model["compressionThreshold"] = fraction
	} else {
		delete(model, "compressionThreshold")
	}
	settings["model"] = model
	if b, err = json.Marshal(settings); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
