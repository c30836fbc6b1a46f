package index

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWholeFileRewriteRecounts: agents that rewrite their transcript whole
// (OpenAI chat trajectories, Cline, jp, Gemini CLI's legacy .json) often
// keep the message count, order and ids while a message's content grows
// (a streamed answer, an observation filled in). After such a rewrite the
// gauge counts the new content: it equals a fresh index of the new file.
func TestWholeFileRewriteRecounts(t *testing.T) {
	ix := testIndexer(t)
	for _, c := range []struct{ name, v1, v2 string }{
		{"trajectory.traj.json", "openai-chat.v1.traj.json", "openai-chat.v2.traj.json"},
		{"api_conversation_history.json", "cline.v1.api_conversation_history.json", "cline.v2.api_conversation_history.json"},
		{".jp/conversations/17441234567-reconcile/events.json", "jp.v1.events.json", "jp.v2.events.json"},
		{"session-2025-07-01T09-00-8c1d2e3f.json", "gemini.v1.session.json", "gemini.v2.session.json"},
	} {
		t.Run(c.v1, func(t *testing.T) {
			v1, err := os.ReadFile(filepath.Join("testdata/rewrite", c.v1))
			if err != nil {
				t.Fatal(err)
			}
			v2, err := os.ReadFile(filepath.Join("testdata/rewrite", c.v2))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), c.name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, v1, 0o644); err != nil {
				t.Fatal(err)
			}
			tr := &tracked{path: path}
			if _, err := tr.update(ix); err != nil {
				t.Fatal(err)
			}
			before := tr.snap.Load().Tokens
			// The agent's atomic rewrite: a temporary file renamed over.
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, v2, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			if _, err := tr.update(ix); err != nil {
				t.Fatal(err)
			}
			fresh := &tracked{path: path}
			if _, err := fresh.update(ix); err != nil {
				t.Fatal(err)
			}
			got, want := tr.snap.Load().Tokens, fresh.snap.Load().Tokens
			if got != want || want < 10*before {
				t.Fatalf("after the rewrite the gauge reads %d tokens, a fresh index %d (before the rewrite %d)", got, want, before)
			}
		})
	}
}
