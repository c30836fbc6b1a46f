package jobs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/store"
)

// A shapeFile is a transcript the strategies are run on: its bytes, the
// path (relative to a folder of its own) it is written at, and the files
// beside it some formats read (a jp conversation's metadata, a Cline task's
// other files).
type shapeFile struct {
	name     string
	rel      string
	data     []byte
	siblings map[string][]byte
}

// everyFormatShapes lists real-shaped transcripts of every format
// compactd forks: each codec's fixtures, the shared corpus when it is
// present, and generated sessions of Claude Code, Codex and the three
// Copilot CLI layouts (the flat session-state/<id>.jsonl with truncations,
// 1.0's session-state/<id>/events.jsonl with background compactions, the
// document of the releases before 0.0.342),
// and each format once more with a turn the user interrupted after a
// tool's result.
func everyFormatShapes(t *testing.T) []shapeFile {
	t.Helper()
	var out []shapeFile
	addDir := func(label, dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		siblings := map[string][]byte{}
		var names []string
		for _, e := range entries {
			if e.IsDir() || e.Name() == "SOURCES.md" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			siblings[e.Name()] = b
			names = append(names, e.Name())
		}
		for _, n := range names {
			if strings.Contains(n, ".golden.") {
				continue // a codec's expected fork, not a session
			}
			c, err := format.Detect(n, siblings[n])
			if err != nil {
				continue // not a transcript (input histories, metadata)
			}
			if tr, err := c.Parse(siblings[n]); err != nil || len(tr.Messages) == 0 {
				continue
			}
			out = append(out, shapeFile{name: label + "/" + n, rel: n, data: siblings[n], siblings: siblings})
		}
	}
	root := formattest.RepoRoot()
	dirs, _ := filepath.Glob(filepath.Join(root, "compaction", "format", "*", "testdata"))
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				if e.Name() == "fuzz" {
					return filepath.SkipDir
				}
				rel, _ := filepath.Rel(filepath.Join(root, "compaction", "format"), p)
				addDir(filepath.ToSlash(rel), p)
			}
			return err
		})
	}
	if corpus := formattest.CorpusDir(); corpus != "" {
		_ = filepath.WalkDir(corpus, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				rel, _ := filepath.Rel(corpus, p)
				addDir("corpus/"+filepath.ToSlash(rel), p)
			}
			return err
		})
	} else {
		t.Log("shared corpus absent: its files are left out")
	}
	for seed := uint64(1); seed <= 2; seed++ {
		o := sessiongen.Options{Seed: seed, Turns: 9}
		claude := sessiongen.ClaudeCode(o)
		out = append(out,
			shapeFile{name: fmt.Sprintf("generated/claude/seed%d", seed), rel: parse(t, "x.jsonl", claude).Meta.SessionID + ".jsonl", data: claude},
			shapeFile{name: fmt.Sprintf("generated/codex/seed%d", seed), rel: "rollout-2025-11-17T09-30-00-" + uuidOf(seed) + ".jsonl", data: sessiongen.Codex(o)},
			shapeFile{name: fmt.Sprintf("generated/copilot-cli-1.0/seed%d", seed), rel: filepath.Join("session-state", uuidOf(seed), "events.jsonl"), data: sessiongen.CopilotCLI(o)},
			shapeFile{name: fmt.Sprintf("generated/copilot-cli-flat/seed%d", seed), rel: filepath.Join("session-state", uuidOf(seed)+".jsonl"), data: sessiongen.CopilotCLIFlat(o)},
			shapeFile{name: fmt.Sprintf("generated/copilot-cli-legacy/seed%d", seed), rel: filepath.Join("history-session-state", "session_"+uuidOf(seed)+"_1759957816398.json"), data: sessiongen.CopilotCLILegacy(o)},
		)
	}
	// Each format once more with a turn that ended right after a tool's
	// result (the user interrupted it), written by the format's own codec.
	derived := map[string]bool{}
	for _, sh := range slices.Clone(out) {
		codec, _ := format.Detect(sh.rel, sh.data)
		if derived[string(codec.Format())] {
			continue
		}
		if data, ok := interruptTurn(t, codec, sh.data); ok {
			derived[string(codec.Format())] = true
			out = append(out, shapeFile{name: "interrupted/" + sh.name, rel: sh.rel, data: data, siblings: sh.siblings})
		}
	}
	return out
}

// interruptTurn rewrites a transcript, with its codec, so that the third
// turn from the end stops right after a tool's result: the assistant's
// answer to it and whatever came after in that turn are gone.
func interruptTurn(t *testing.T, codec format.Codec, data []byte) ([]byte, bool) {
	t.Helper()
	tr, err := codec.Parse(data)
	if err != nil {
		return nil, false
	}
	turns := transcript.BuildTurns(tr.Messages)
	if len(turns) < 4 {
		return nil, false
	}
	turn := turns[len(turns)-3]
	last := -1
	for i := turn.Start; i < turn.End; i++ {
		if slices.ContainsFunc(tr.Messages[i].Parts, func(p transcript.Part) bool { return p.Kind == transcript.PartToolResult }) {
			last = i
		}
	}
	if last < 0 || last+1 >= turn.End {
		return nil, false
	}
	v := transcript.NewView(tr)
	v.Messages = slices.Delete(slices.Clone(v.Messages), last+1, turn.End)
	out, err := codec.Fork(v, format.ForkOptions{SessionID: tr.Meta.SessionID})
	if err != nil {
		return nil, false
	}
	back, err := codec.Parse(out)
	if err != nil || len(back.Messages) != len(v.Messages) {
		return nil, false
	}
	return out, true
}

// TestEveryStrategyOnEveryFormat is issue 34's item 3: every strategy
// compacts every format it forks, on the path a user takes (a Runner's
// Compact: the pipeline, the fork in the agent's format, the check that it
// reads back within the API's rules, the store). A strategy that cannot
// act on a transcript may refuse, but its message then names what the
// user can do instead. Before, a session with a turn the user interrupted
// after a tool call was refused by every strategy that cut it ("tool call
// without its result"): the stand-in for the removed turns was written
// over the interrupted message's tool call, which the fork kept.
//
// -short (the race and Wine runs) keeps the shapes that were refused: a
// generated Copilot CLI session of each layout and the interrupted turns
// (the full table takes about a minute and a half here, -short 20 s).
func TestEveryStrategyOnEveryFormat(t *testing.T) {
	shapes := everyFormatShapes(t)
	if testing.Short() {
		shapes = slices.DeleteFunc(shapes, func(sh shapeFile) bool {
			generated := strings.HasPrefix(sh.name, "generated/copilot") && strings.HasSuffix(sh.name, "/seed1")
			return !generated && !strings.HasPrefix(sh.name, "interrupted/")
		})
	}
	formats := map[string]bool{}
	for _, sh := range shapes {
		c, _ := format.Detect(sh.rel, sh.data)
		formats[string(c.Format())] = true
	}
	t.Logf("%d transcripts of %d formats × %d strategies", len(shapes), len(formats), len(strategy.Names()))
	isolate(t)
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			// Side by side, each with its store: most of the time is the
			// store's writes waiting for the disk.
			t.Parallel()
			root := t.TempDir()
			s, err := store.Open(context.Background(), filepath.Join(root, "compactd.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			r := New(s)
			for _, s := range strategy.Names() {
				dir := filepath.Join(root, s)
				for name, b := range sh.siblings {
					writeShape(t, filepath.Join(dir, name), b)
				}
				path := filepath.Join(dir, sh.rel)
				writeShape(t, path, sh.data)
				opts := strategy.Options{Strategies: []string{s}, KeepLast: new(1), Turns: 2, Events: 6, Budget: 1500, Window: 12000}
				res, err := r.Compact(context.Background(), Request{Path: path, Options: opts})
				if err != nil {
					if !namesAWayOut(err.Error()) {
						t.Errorf("%s: %v", s, err)
					}
					continue
				}
				if res.ForkPath == "" {
					continue
				}
				if _, err := os.Stat(res.ForkPath); err != nil {
					t.Errorf("%s: no fork at %s: %v", s, res.ForkPath, err)
				}
			}
		})
	}
}

// namesAWayOut reports whether a refusal tells the user what to do
// instead: another strategy, a setting, a command.
func namesAWayOut(msg string) bool {
	for _, hint := range []string{"--strategy", "use ", "set ", "run ", "try "} {
		if strings.Contains(msg, hint) {
			return true
		}
	}
	return false
}

func uuidOf(seed uint64) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", seed) }

func writeShape(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
