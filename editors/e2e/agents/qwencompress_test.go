package agents

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// Qwen Code's own compression, live: three turns with tools, then
// /compress as a user types it. Qwen Code asks the model for a summary and
// writes a chat_compression record holding the history it carries on from;
// checkOwnCompression holds compactd to it.
func TestRealAgentQwenCompression(t *testing.T) {
	enabled(t)
	t.Parallel()
	bin := compactdBin(t)
	a := qwenAgent
	command, version := installedAgent(t, a.name, a.command)
	sb := newSandbox(t)
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: ownCompressionTurns(sb.project)}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a.configure(t, sb, srv)
	t.Logf("%s %s in %s", a.label, version, sb.root)

	lsp := startLSP(t, sb, bin, nil)
	compressions := watchUsage(t, filepath.Join(sb.home, ".qwen", "projects"), func(line []byte) (int, bool) {
		return 1, bytes.Contains(line, []byte(`"subtype":"chat_compression"`))
	})
	id := "new:" + uuid()
	file := ""
	run := func(what, text string) {
		t.Helper()
		seq := lastSeq(srv)
		stdout, stderr, err := a.turn(t, sb, command, id, text)
		if bad := rejectedSince(srv, seq); len(bad) > 0 {
			t.Fatalf("%s: the model server refused the agent's requests:%s", what, describe(bad))
		}
		if err != nil {
			t.Fatalf("%s: %s failed: %v\n--- stdout\n%s\n--- stderr\n%s", what, a.label, err, tail(stdout, 2000), tail(stderr, 3000))
		}
		if file == "" {
			file, id = a.session(t, sb, bin, command, id)
		}
	}
	for _, st := range sessionTurns[:3] {
		run("turn "+st.task, prompt(st.task, st.prompt))
	}
	seq := lastSeq(srv)
	run("/compress", "/compress")
	summaries := 0
	for _, e := range srv.Exchanges() {
		if e.Seq > seq && e.Summary {
			summaries++
		}
	}
	if summaries != 1 {
		t.Fatalf("/compress: %s asked the model for %d summaries, want 1", a.label, summaries)
	}

	checkOwnCompression(t, ownCompression{label: a.label, sb: sb, srv: srv, lsp: lsp, bin: bin, file: file, id: id,
		record: compressions.nth(t, file, 1, time.Minute), before: sessionTurns[:3],
		resume: func(id, text string) (string, string, error) { return a.turn(t, sb, command, id, text) },
		// Qwen Code names a session's file for its id.
		sessionOf: func(path string) string { return trimExt(filepath.Base(path)) },
	})
}

// trimExt is name without its extension.
func trimExt(name string) string { return name[:len(name)-len(filepath.Ext(name))] }
