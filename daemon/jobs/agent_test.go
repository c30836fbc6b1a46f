package jobs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFixture(t *testing.T, root, fixture, dir, name string) string {
	t.Helper()
	src := mustRead(t, filepath.Join("testdata", fixture))
	d := filepath.Join(root, dir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(d, name)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAgentCompactionsInHistory: the compactions Claude Code and Codex
// recorded are versions of the history (a1, a2, … each the child of the
// one before), even before compactd compacted anything; "restore a1"
// writes the conversation before that compaction as a new session and
// records it as a child of the file; "compact --before a2" compacts that
// history with compactd's pipeline, records file → before a2 → result,
// and names the facts the agent's summary lost that compactd's result
// keeps.
func TestAgentCompactionsInHistory(t *testing.T) {
	for _, c := range []struct {
		fixture, dir, name string
		compactions        int
		before             string // text of the last message before the last compaction
	}{
		{"claude-two-compact-boundaries.jsonl", "claude/projects/-home-dev-src-ledger", "8e7d6c5b-4a39-4281-9f0e-1d2c3b4a5968.jsonl", 2, "429 responses now carry"},
		{"codex-compacted.jsonl", "codex/sessions/2026/06/02", "rollout-2026-06-02T14-00-00-019e5a1b-2c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl", 1, "The export reads every account twice"},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			root := isolate(t)
			r := realRunner(t)
			ctx := context.Background()
			path := writeFixture(t, root, c.fixture, c.dir, c.name)
			h, err := r.History(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			var lineage []string
			for _, v := range h.Versions {
				lineage = append(lineage, v.Label+"<"+v.Parent+":"+v.Kind)
			}
			want := []string{"a1<:agent", "a2<a1:agent"}[:c.compactions]
			if strings.Join(lineage, " ") != strings.Join(want, " ") {
				t.Fatalf("history = %v, want %v", lineage, want)
			}
			last := AgentLabel(c.compactions - 1)

			res, err := r.Restore(ctx, path, last, false)
			if err != nil {
				t.Fatal(err)
			}
			restored := parse(t, res.Path, mustRead(t, res.Path))
			lastMsg := restored.Messages[len(restored.Messages)-1]
			if len(lastMsg.Parts) == 0 || !strings.HasPrefix(lastMsg.Parts[len(lastMsg.Parts)-1].Text, c.before) {
				t.Fatalf("restored before %s ends with %+v, want %q", last, lastMsg, c.before)
			}
			if restored.Meta.SessionID == "" || strings.Contains(string(mustRead(t, res.Path)), `"sessionId":"`+strings.TrimSuffix(filepath.Base(path), ".jsonl")+`"`) {
				t.Fatalf("restored session id %q", restored.Meta.SessionID)
			}
			if _, err := r.Restore(ctx, path, last, true); err == nil {
				t.Fatal("restoring before an agent compaction in place was accepted")
			}

			rc, err := r.Compact(ctx, Request{Path: path, Before: last})
			if err != nil {
				t.Fatal(err)
			}
			if rc.AgentRetention == nil || rc.AgentRetention.Compaction != last {
				t.Fatalf("no retention comparison with the agent's summary: %+v", rc)
			}
			if len(rc.AgentRetention.AgentLostOursKept) == 0 || rc.AgentRetention.Ours.Score <= rc.AgentRetention.Agent.Score {
				t.Fatalf("agent %.2f (lost %v) vs ours %.2f: want ours to keep facts the agent's summary lost", rc.AgentRetention.Agent.Score, rc.AgentRetention.Agent.Lost, rc.AgentRetention.Ours.Score)
			}
			forked := parse(t, rc.ForkPath, mustRead(t, rc.ForkPath))
			if len(forked.Messages) == 0 || forked.Meta.SessionID == restored.Meta.SessionID {
				t.Fatalf("re-compacted fork: %d messages, session %q", len(forked.Messages), forked.Meta.SessionID)
			}
			h, err = r.History(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			parents := map[string]string{}
			kinds := map[string]string{}
			for _, v := range h.Versions {
				parents[v.Label], kinds[v.Label] = v.Parent, v.Kind
			}
			if parents[rc.Version] != rc.Parent || kinds[rc.Parent] != "restore" || parents[rc.Parent] != "v1" || kinds["v1"] != "source" {
				t.Fatalf("lineage after re-compaction: %v (kinds %v)", parents, kinds)
			}
		})
	}
}
