package jobs

import (
	"bytes"
	"context"
	"encoding/base64"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/store"
)

// handoffSources are sessions the real agents wrote (their codecs'
// testdata), each with tool calls and their results.
var handoffSources = map[string]string{
	"claude":   "../../compaction/format/claude/testdata/announcements-2.1.330.jsonl",
	"codex":    "../../compaction/format/codex/testdata/v0.169-world-state.jsonl",
	"gemini":   "../../compaction/format/gemini/testdata/v0.61-tool-session.jsonl",
	"qwen":     "../../compaction/format/qwen/testdata/session.jsonl",
	"opencode": "../../compaction/format/opencode/testdata/session.json",
}

// TestHandoffEveryPair hands each agent's session off to every other
// agent and reads the new session back with the target's codec: it is in
// the target's format and place, keeps the API's rules (every call
// answered, roles alternating where the API wants it), maps the calls
// onto the target's own tools, carries every prompt and every result of
// a mapped call, and is recorded as a handoff version of the source that
// history lists, diff reads and restore writes out again; the source is
// untouched.
func TestHandoffEveryPair(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := New(mustOpen(t, os.Getenv("COMPACTD_STORE")))
	env := agents.EnvFromOS(os.Getenv)
	// Kilo Code takes opencode's exports under its own version.
	targets := append(slices.Sorted(maps.Keys(handoffSources)), "kilo")
	for from, file := range handoffSources {
		for _, to := range targets {
			if to == from {
				continue
			}
			t.Run(from+"→"+to, func(t *testing.T) {
				src, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(root, from+"-"+to)
				os.MkdirAll(dir, 0o755)
				path := filepath.Join(dir, filepath.Base(file))
				if err := os.WriteFile(path, src, 0o644); err != nil {
					t.Fatal(err)
				}
				// Reasoning stripped, everything else kept: every result
				// must reach the new session.
				opts := strategy.Options{Strategies: []string{strategy.StrategyStripReasoning}}
				res, err := r.Handoff(ctx, HandoffRequest{Path: path, To: to, Env: env, Workspace: dir, Options: opts})
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(path); !bytes.Equal(got, src) {
					t.Fatal("the source changed")
				}
				target := agents.ByName(to)
				sourceCodec, _ := format.Detect(path, src)
				source, _ := sourceCodec.Parse(src)
				cwd := source.Meta.Cwd
				if cwd == "" {
					cwd = dir // Gemini CLI's sessions name no folder: the workspace's
				}
				if want := target.Handoff.Path(env, cwd, res.Session, r.now()); filepath.Dir(res.Path) != filepath.Dir(want) {
					t.Errorf("written to %s, want the folder %s finds its sessions in (%s)", res.Path, to, filepath.Dir(want))
				}
				data, err := os.ReadFile(res.Path)
				if err != nil {
					t.Fatal(err)
				}
				codec, err := format.Detect(res.Path, data)
				if err != nil || codec.Format() != target.Handoff.Format {
					t.Fatalf("the new session is detected as %v (%v), want %s", codec, err, target.Handoff.Format)
				}
				got, err := codec.Parse(data)
				if err != nil || got.Skipped > 0 {
					t.Fatalf("the new session does not read back: %v (%d unreadable records)", err, got.Skipped)
				}
				seen := got
				if l, ok := codec.(format.Loader); ok {
					// As the agent's loader rebuilds it on resume.
					msgs, err := l.Load(got)
					if err != nil {
						t.Fatalf("the new session does not load as %s loads it: %v", to, err)
					}
					seen = &transcript.Transcript{Format: got.Format, Meta: got.Meta, Messages: msgs}
				}
				if err := strategy.CheckTranscript(seen); err != nil {
					t.Errorf("the new session breaks the API's rules: %v", err)
				}
				// Two model turns in a row are what an API that wants
				// roles to alternate refuses (the agent joins consecutive
				// user contents itself; a Responses API's items are each a
				// message).
				for i := 1; i < len(got.Messages) && format.RulesOf(codec.Format()).Alternation; i++ {
					if got.Messages[i].Role == transcript.RoleAssistant && got.Messages[i-1].Role == transcript.RoleAssistant {
						t.Errorf("messages %d and %d are both the model's", i-1, i)
					}
				}
				var names []string
				for _, tool := range target.Handoff.Tools {
					names = append(names, tool.Name)
				}
				calls := 0
				for _, m := range got.Messages {
					for _, p := range m.Parts {
						if p.Kind == transcript.PartToolCall {
							calls++
							if !slices.Contains(names, p.ToolName) {
								t.Errorf("a call of %q, which %s does not have", p.ToolName, to)
							}
						}
					}
				}
				if calls != res.Mapped || res.Mapped == 0 {
					t.Errorf("%d calls in the new session, the result says %d mapped (and %d as text)", calls, res.Mapped, res.AsText)
				}
				text := allText(got)
				for _, m := range source.Messages {
					for _, p := range m.Parts {
						if m.Origin == transcript.OriginHuman && p.Kind == transcript.PartText && !strings.Contains(text, p.Text) {
							t.Errorf("the new session lacks the prompt %.60q", p.Text)
						}
						if p.Kind == transcript.PartToolResult && !strings.Contains(text, p.Text) {
							t.Errorf("the new session lacks the result %.60q", p.Text)
						}
					}
				}
				h, err := r.History(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				var v *Version
				for i := range h.Versions {
					if h.Versions[i].Label == res.Version {
						v = &h.Versions[i]
					}
				}
				if v == nil || v.Kind != store.KindHandoff || v.Format != string(target.Handoff.Format) || v.ForkPath != res.Path || v.Parent != res.Parent {
					t.Fatalf("history lists the handoff as %+v", v)
				}
				if d, err := r.Diff(ctx, path, res.Parent, res.Version); err != nil || !strings.HasPrefix(d, "--- "+res.Parent) {
					t.Errorf("diff %s %s: %v\n%s", res.Parent, res.Version, err, d)
				}
				rr, err := r.Restore(ctx, path, res.Version, false)
				if err != nil {
					t.Fatal(err)
				}
				if filepath.Dir(rr.Path) != filepath.Dir(res.Path) {
					t.Errorf("restored to %s, not beside the handed-off session", rr.Path)
				}
				back, _ := os.ReadFile(rr.Path)
				if again, err := codec.Parse(back); err != nil || again.Meta.SessionID == got.Meta.SessionID || len(again.Messages) != len(got.Messages) {
					t.Errorf("the restored handoff: %v, its id %q (the handoff's %q)", err, again.Meta.SessionID, got.Meta.SessionID)
				}
			})
		}
	}
}

func mustOpen(t *testing.T, path string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func allText(t *transcript.Transcript) string {
	var b strings.Builder
	for _, m := range t.Messages {
		for _, p := range m.Parts {
			b.WriteString(p.Text)
			b.WriteString(p.Args)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestHandoffCarriesImages: the images of a Claude Code session (a Read
// of a picture, in its tool result) and of a Codex one (view_image's
// output) reach every other agent as images of the same bytes.
func TestHandoffCarriesImages(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := New(mustOpen(t, os.Getenv("COMPACTD_STORE")))
	env := agents.EnvFromOS(os.Getenv)
	sources := map[string]string{
		"claude": "../../compaction/format/claude/testdata/offchain-2.1.330.jsonl",
		"codex":  "../../compaction/format/codex/testdata/v0.169-view-image.jsonl",
	}
	sizes := func(tr *transcript.Transcript) []int {
		var out []int
		for _, m := range tr.Messages {
			for _, p := range m.Parts {
				if p.Kind == transcript.PartImage && p.Size > 0 {
					out = append(out, p.Size)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	for from, file := range sources {
		for to := range handoffSources {
			if to == from {
				continue
			}
			t.Run(from+"→"+to, func(t *testing.T) {
				src, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(root, "img-"+from+"-"+to)
				os.MkdirAll(dir, 0o755)
				path := filepath.Join(dir, filepath.Base(file))
				os.WriteFile(path, src, 0o644)
				sc, _ := format.Detect(path, src)
				source, _ := sc.Parse(src)
				want := sizes(source)
				if len(want) == 0 {
					t.Fatalf("%s holds no image", file)
				}
				opts := strategy.Options{Strategies: []string{strategy.StrategyStripReasoning}}
				res, err := r.Handoff(ctx, HandoffRequest{Path: path, To: to, Env: env, Workspace: dir, Options: opts})
				if err != nil {
					t.Fatal(err)
				}
				data, _ := os.ReadFile(res.Path)
				codec, _ := format.Lookup(agents.ByName(to).Handoff.Format)
				got, err := codec.Parse(data)
				if err != nil {
					t.Fatal(err)
				}
				if g := sizes(got); len(g) != len(want) || res.Images != len(want) || res.ImagesAsText != 0 {
					t.Errorf("images of %v bytes reached %s as %v (result: %d images, %d described)", want, to, g, res.Images, res.ImagesAsText)
				}
				// The same bytes: each source image's base64 is in the new
				// session (every target writes standard base64).
				mr := sc.(format.MediaReader)
				for _, m := range source.Messages {
					for _, p := range m.Parts {
						if p.Kind != transcript.PartImage {
							continue
						}
						imgs, err := mr.Media(source, p.Ref)
						if err != nil || len(imgs) == 0 {
							t.Fatalf("the source's image at %+v: %v", p.Ref, err)
						}
						for _, img := range imgs {
							if !bytes.Contains(data, []byte(base64.StdEncoding.EncodeToString(img.Data))) || !bytes.Contains(data, []byte(img.MIME)) {
								t.Errorf("the %s image of %d bytes is not in the %s session as it was", img.MIME, len(img.Data), to)
							}
						}
					}
				}
			})
		}
	}
}
