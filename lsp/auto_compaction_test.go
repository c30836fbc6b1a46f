package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

// autoSettings turns auto-compaction on at turns turns; the pipeline
// (turn-window) keeps the last 10 turns, so a fork of a longer
// conversation starts below the trigger.
func autoSettings(enabled bool, turns int) map[string]any {
	return map[string]any{
		"compact":     map[string]any{"strategies": []string{"turn-window"}, "keepLast": 2},
		"autoCompact": map[string]any{"enabled": enabled, "turns": turns, "minTurns": 2},
	}
}

func lastGauge(t *testing.T, c *client, u protocol.DocumentURI, pred func(Gauge) bool, timeout time.Duration) Gauge {
	t.Helper()
	var g Gauge
	c.waitNote(0, methodGauge, func(raw json.RawMessage) bool {
		var x Gauge
		if json.Unmarshal(raw, &x) != nil || x.URI != u || x.Removed || (pred != nil && !pred(x)) {
			return false
		}
		g = x
		return true
	}, timeout)
	return g
}

func autoMessages(c *client) []string {
	var out []string
	for _, raw := range c.notesOf(protocol.MethodWindowShowMessage) {
		var p protocol.ShowMessageParams
		if json.Unmarshal(raw, &p) == nil && strings.Contains(p.Message, "auto-compaction") {
			out = append(out, p.Message)
		}
	}
	return out
}

func jsonlFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(m)
	return m
}

// TestAutoCompaction: with [auto_compact] on, a transcript that crosses
// the trigger is compacted into a fork once, announced with the fork's
// path; growing further does not fire again, and the fork (below the
// trigger) fires only when it grows past it itself. Off by default.
func TestAutoCompaction(t *testing.T) {
	for _, enabled := range []bool{false, true} {
		name := "off by default"
		if enabled {
			name = "enabled"
		}
		t.Run(name, func(t *testing.T) {
			testEnv(t)
			ws := t.TempDir()
			path := filepath.Join(ws, "conv.jsonl")
			data := writeSession(t, path, ws, 14) // turn-window keeps 10 turns
			u := pathURI(path)
			c := startServer(t, Options{Daemon: daemon.Options{Jobs: openJobs(t)}})
			// The trigger starts out of reach, then is set just above
			// the conversation as it stands.
			var init any
			if enabled {
				init = autoSettings(true, 1<<20)
			}
			c.initialize(ws, init)
			g0 := lastGauge(t, c, u, nil, 10*time.Second)
			trigger := g0.Turns + 1
			if enabled {
				c.notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": autoSettings(true, trigger)})
			} else {
				trigger = 1 // would fire on anything, were it on
			}

			more := sessiongen.Continue(transcript.FormatClaudeCode, data, 11, 30)
			appendTo(t, path, more)
			data = append(data, more...)
			g1 := lastGauge(t, c, u, func(g Gauge) bool { return g.Turns > g0.Turns }, 10*time.Second)
			if g1.Turns < trigger {
				t.Fatalf("the append did not cross the trigger: %d < %d turns", g1.Turns, trigger)
			}
			if !enabled {
				st := c.autoSettled()
				if msgs, files := autoMessages(c), jsonlFiles(t, ws); st.AutoCompactions != 0 || len(msgs) > 0 || len(files) != 1 {
					t.Fatalf("auto-compaction ran while off: %d started, %v %v", st.AutoCompactions, msgs, files)
				}
				return
			}

			raw, _ := c.waitNote(0, protocol.MethodWindowShowMessage, func(r json.RawMessage) bool {
				return strings.Contains(string(r), "crossed the auto-compaction trigger")
			}, 30*time.Second)
			files := jsonlFiles(t, ws)
			if len(files) != 2 {
				t.Fatalf("files after one crossing: %v", files)
			}
			fork := files[0]
			if fork == path {
				fork = files[1]
			}
			var shown protocol.ShowMessageParams
			if err := json.Unmarshal(raw, &shown); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(shown.Message, fork) {
				t.Fatalf("the announcement does not name the fork %s: %s", fork, raw)
			}
			if got, _ := os.ReadFile(path); string(got) != string(data) {
				t.Fatal("auto-compaction changed the original transcript")
			}
			gf := lastGauge(t, c, pathURI(fork), nil, 10*time.Second)
			if gf.Turns >= trigger {
				t.Fatalf("the fork (%d turns) is not below the trigger (%d): the test cannot show it fires on its own growth", gf.Turns, trigger)
			}

			// The original grows further: no second crossing.
			more = sessiongen.Continue(transcript.FormatClaudeCode, data, 12, 30)
			appendTo(t, path, more)
			lastGauge(t, c, u, func(g Gauge) bool { return g.Turns > g1.Turns }, 10*time.Second)
			if st, msgs, files := c.autoSettled(), autoMessages(c), jsonlFiles(t, ws); st.AutoCompactions != 1 || len(msgs) != 1 || len(files) != 2 {
				t.Fatalf("the original fired again while above the trigger: %d started, %q %v", st.AutoCompactions, msgs, files)
			}

			// The fork grows past the trigger itself: it fires, once.
			forkData, _ := os.ReadFile(fork)
			for turns := gf.Turns; turns < trigger; {
				more := sessiongen.Continue(transcript.FormatClaudeCode, forkData, 13, 30)
				appendTo(t, fork, more)
				forkData = append(forkData, more...)
				turns = lastGauge(t, c, pathURI(fork), func(g Gauge) bool { return g.Turns > turns }, 10*time.Second).Turns
			}
			c.waitNote(0, protocol.MethodWindowShowMessage, func(r json.RawMessage) bool {
				return strings.Contains(string(r), "crossed the auto-compaction trigger") && strings.Contains(string(r), filepath.Base(fork)+" crossed")
			}, 30*time.Second)
			// The new fork's gauge too has been through the trigger: it
			// starts below it and must not fire.
			lastGauge(t, c, pathURI(newest(t, ws, path, fork)), nil, 10*time.Second)
			if st, msgs, files := c.autoSettled(), autoMessages(c), jsonlFiles(t, ws); st.AutoCompactions != 2 || len(msgs) != 2 || len(files) != 3 {
				t.Fatalf("after the fork crossed: %d started, %q %v", st.AutoCompactions, msgs, files)
			}
		})
	}
}

// newest is the transcript in ws that is neither of known, which the
// test expects to be exactly one.
func newest(t *testing.T, ws string, known ...string) string {
	t.Helper()
	var out []string
	for _, f := range jsonlFiles(t, ws) {
		if !slices.Contains(known, f) {
			out = append(out, f)
		}
	}
	if len(out) != 1 {
		t.Fatalf("transcripts besides %v: %v, want exactly one", known, out)
	}
	return out[0]
}
