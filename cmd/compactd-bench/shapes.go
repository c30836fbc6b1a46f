package main

// The shapes section holds the 100 MB compaction bars (compact ≤ 1.5 s,
// dry run ≤ 1 s, gauge ≤ 0.5 s, peak memory ≤ 300 MB: issue 31's room
// under the first bars of 3, 2 and 1.5 s) on sessions of other shapes than the cli
// section's corpus-scaled one: what costs time differs with the shape
// (per-message work on many small results, per-turn work on many short
// turns, thinking kept byte for byte, images counted from their pixels,
// Codex's reasoning items and function calls).
//
// The Claude Code shapes are built the way Claude Code 2.1 writes a
// session — uuid chains, one line per content block of a response, usage
// on every assistant line, toolUseResult beside each tool_result, and its
// auto-compaction (a compact_boundary and the summary, the context back
// to the summary) whenever the context reaches 83.5 % of the window, as a
// session this long has done many times — from the texts of the corpus's
// real sessions (prompts, answers, thinking, tool calls and their
// outputs), each copy marked so no cache answers for it; the Codex shape
// is sessiongen's rollout.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
)

func init() {
	register(section{
		Name:    "shapes",
		Summary: "compactd compact, its dry run and compactd gauge of 100 MB sessions of six shapes (tool-heavy, thinking-heavy, image-heavy, many short turns, big tool outputs, Codex), end to end",
		Run:     benchShapes,
	})
}

// A shape is one kind of large session.
type shape struct {
	name, what string
	// dir and file place it where its agent keeps it (under the bench's
	// home), file naming the session.
	dir, file string
	build     func(p *pools, size int, cwd string) []byte
}

var shapes = []shape{
	{"tool-heavy", "Claude Code: 30 tool calls a turn, results of 0.2–3 KB, short thinking before each call",
		"claude/projects/-home-dev-src-shapes", "", buildToolHeavy},
	{"thinking-heavy", "Claude Code: 8–24 KB of signed thinking before each of a few calls",
		"claude/projects/-home-dev-src-shapes", "", buildThinkingHeavy},
	{"image-heavy", "Claude Code: a pasted screenshot in most prompts, images read by tools",
		"claude/projects/-home-dev-src-shapes", "", buildImageHeavy},
	{"short-turns", "Claude Code: a chat of short prompts and answers, no tools (about 100k turns)",
		"claude/projects/-home-dev-src-shapes", "", buildShortTurns},
	{"big-outputs", "Claude Code: whole files read (up to 2,000 lines), grep outputs up to the 30,000-character cap, long prose answers",
		"claude/projects/-home-dev-src-shapes", "", buildBigOutputs},
	{"codex", "Codex rollout: reasoning items, function calls and their outputs, token counts",
		"codex/sessions/2026/11/20", "rollout-2026-11-20T09-00-00-019a7e2c-1b3d-7f4e-9a8b-0c1d2e3f4a5b.jsonl", buildCodex},
}

func benchShapes(ctx context.Context, cfg *config) ([]row, error) {
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	size, sizeName, runs := 100<<20, "100 MB", 3
	if cfg.Quick {
		size, sizeName, runs = 20<<20, "20 MB", 1
	}
	p, source, err := loadPools()
	if err != nil {
		return nil, err
	}
	cfg.logf("shapes: texts from %s", source)
	home := filepath.Join(cfg.TempDir, "shapes")
	defer os.RemoveAll(home)
	var rows []row
	for _, s := range shapes {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		dir := filepath.Join(home, "home", s.dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		data := s.build(p, size, "/home/dev/src/shapes")
		name := s.file
		if name == "" {
			name = sessionOf(data) + ".jsonl"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
		cfg.logf("shapes: %s, %d MB at %s", s.name, len(data)>>20, path)
		data = nil
		var compact, dry, gaugeF, compactCPU, dryCPU, gaugeCPU []time.Duration
		var peak int64
		load0 := loadAverage()
		for i := 0; i < runs; i++ {
			storeDir := filepath.Join(home, "store", s.name, fmt.Sprint(i))
			env := serverEnv(cfg, filepath.Join(storeDir, "compactd.db"))
			wall, cpu, rss, err := cliFigure(ctx, bin, env, true, "gauge", path)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			gaugeF, gaugeCPU, peak = append(gaugeF, wall), append(gaugeCPU, cpu), max(peak, rss)
			if wall, cpu, rss, err = cliFigure(ctx, bin, env, true, "compact", "--dry-run", path); err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			dry, dryCPU, peak = append(dry, wall), append(dryCPU, cpu), max(peak, rss)
			if wall, cpu, rss, err = cliFigure(ctx, bin, env, true, "compact", path); err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			compact, compactCPU, peak = append(compact, wall), append(compactCPU, cpu), max(peak, rss)
			cfg.logf("shapes: %s run %d: gauge %v, dry run %v, compact %v (CPU %v)", s.name, i+1, gaugeF[i].Round(time.Millisecond), dry[i].Round(time.Millisecond), compact[i].Round(time.Millisecond), cpu.Round(time.Millisecond))
			os.RemoveAll(storeDir)
			removeForks(dir, path)
		}
		os.Remove(path)
		cw, dw, gw := median(compact), median(dry), median(gaugeF)
		rows = append(rows,
			row{Name: fmt.Sprintf("%s (%s): compactd compact, %s, end to end (median of %d)", s.name, s.what, sizeName, runs), Value: seconds(cw), Anchor: "≤ 1.5 s", Pass: cw <= 1500*time.Millisecond},
			row{Name: fmt.Sprintf("%s: compactd compact --dry-run (median of %d)", s.name, runs), Value: seconds(dw), Anchor: "≤ 1 s", Pass: dw <= time.Second},
			row{Name: fmt.Sprintf("%s: compactd gauge (median of %d)", s.name, runs), Value: seconds(gw), Anchor: "≤ 0.5 s", Pass: gw <= 500*time.Millisecond},
			// CPU time and the machine's load say what the wall times
			// mean on a shared machine.
			row{Name: fmt.Sprintf("%s: CPU time (median) of compact, dry run, gauge", s.name),
				Value: fmt.Sprintf("%s, %s, %s", seconds(median(compactCPU)), seconds(median(dryCPU)), seconds(median(gaugeCPU)))},
			row{Name: fmt.Sprintf("%s: peak RSS of compact, dry run and gauge", s.name), Value: fmt.Sprintf("%d MB", peak>>20), Anchor: "≤ 300 MB", Pass: peak <= 300<<20},
			row{Name: fmt.Sprintf("%s: machine load average (1 min) at start → end", s.name), Value: load0 + " → " + loadAverage()},
		)
	}
	return rows, nil
}

// writeShapes writes every shape's session under dir, as the section
// places them (dir stands for the home folder).
func writeShapes(dir string, quick bool, log io.Writer) error {
	size := 100 << 20
	if quick {
		size = 20 << 20
	}
	p, _, err := loadPools()
	if err != nil {
		return err
	}
	for _, s := range shapes {
		d := filepath.Join(dir, s.dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		data := s.build(p, size, "/home/dev/src/shapes")
		name := s.file
		if name == "" {
			name = sessionOf(data) + ".jsonl"
		}
		if err := os.WriteFile(filepath.Join(d, name), data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(log, "%s: %s\n", s.name, filepath.Join(d, name))
	}
	return nil
}

// removeForks deletes what the timed compactions wrote beside path.
func removeForks(dir, path string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if p := filepath.Join(dir, e.Name()); p != path {
			os.Remove(p)
		}
	}
}

// sessionOf reads the sessionId of a Claude Code session's first line.
func sessionOf(data []byte) string {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	var l struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(line, &l)
	return l.SessionID
}

// pools are the texts the Claude shapes are made of.
type pools struct {
	prompts, answers []string
	thoughts         []thought
	calls            []toolCall
	// files are real source files to read (this repository's Go code:
	// the corpus's sessions read few, and small ones).
	files []sourceFile
}

type sourceFile struct{ rel, text string }

type thought struct{ text, signature string }

type toolCall struct {
	name   string
	input  json.RawMessage
	output string
}

// loadPools reads the texts of the corpus's real Claude Code sessions;
// without the corpus, of a generated session.
func loadPools() (*pools, string, error) {
	var sources [][]byte
	source := "the corpus's real Claude Code sessions"
	if dir := corpusDir(); dir != "" {
		for _, name := range corpusSessions {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return nil, "", err
			}
			sources = append(sources, b)
		}
	} else {
		source = "a generated session (the corpus is missing)"
		sources = append(sources, sessiongen.ClaudeCode(sessiongen.Options{Seed: 11, Turns: 40}))
	}
	p := &pools{}
	inputs := map[string]toolCall{}
	for _, src := range sources {
		for _, line := range bytes.Split(src, []byte("\n")) {
			var rec struct {
				Type    string `json:"type"`
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &rec) != nil {
				continue
			}
			var text string
			if json.Unmarshal(rec.Message.Content, &text) == nil {
				if rec.Type == "user" && text != "" && !strings.HasPrefix(text, "<") {
					p.prompts = append(p.prompts, text)
				}
				continue
			}
			var blocks []struct {
				Type      string          `json:"type"`
				Text      string          `json:"text"`
				Thinking  string          `json:"thinking"`
				Signature string          `json:"signature"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(rec.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				switch {
				case b.Type == "text" && rec.Type == "assistant" && b.Text != "":
					p.answers = append(p.answers, b.Text)
				case b.Type == "text" && rec.Type == "user" && b.Text != "" && !strings.HasPrefix(b.Text, "<"):
					p.prompts = append(p.prompts, b.Text)
				case b.Type == "thinking" && b.Thinking != "":
					p.thoughts = append(p.thoughts, thought{b.Thinking, b.Signature})
				case b.Type == "tool_use":
					inputs[b.ID] = toolCall{name: b.Name, input: b.Input}
				case b.Type == "tool_result":
					c, ok := inputs[b.ToolUseID]
					if !ok {
						continue
					}
					if json.Unmarshal(b.Content, &c.output) != nil {
						var parts []struct {
							Text string `json:"text"`
						}
						json.Unmarshal(b.Content, &parts)
						for _, part := range parts {
							c.output += part.Text
						}
					}
					if c.output != "" {
						p.calls = append(p.calls, c)
					}
				}
			}
		}
	}
	if root, err := repoRoot(); err == nil {
		for _, dir := range []string{"compaction", "daemon", "lsp"} {
			filepath.WalkDir(filepath.Join(root, dir), func(path string, de fs.DirEntry, err error) error {
				if err != nil || de.IsDir() || !strings.HasSuffix(path, ".go") {
					return nil
				}
				b, err := os.ReadFile(path)
				if err == nil && len(b) > 0 {
					rel, _ := filepath.Rel(root, path)
					p.files = append(p.files, sourceFile{filepath.ToSlash(rel), string(b)})
				}
				return nil
			})
		}
	}
	if len(p.files) == 0 { // outside the repository: the corpus's reads
		for _, c := range p.calls {
			p.files = append(p.files, sourceFile{fmt.Sprintf("src/file%d.txt", len(p.files)), c.output})
		}
	}
	if len(p.prompts) == 0 || len(p.answers) == 0 || len(p.thoughts) == 0 || len(p.calls) == 0 {
		return nil, "", fmt.Errorf("the shapes' texts: %d prompts, %d answers, %d thoughts, %d tool calls in %s", len(p.prompts), len(p.answers), len(p.thoughts), len(p.calls), source)
	}
	return p, source, nil
}

// claudeWriter writes a Claude Code 2.1 session line by line.
type claudeWriter struct {
	out     bytes.Buffer
	rng     *rand.Rand
	session string
	cwd     string
	parent  string
	now     time.Time
	// context is the context size so far, as the usage lines report it:
	// the model-visible bytes since the last compaction, about 3.6 a token.
	context int
	// window is the model's; Claude Code compacts at 83.5 % of it.
	window int
	copyN  int
	ids    int
}

func newClaudeWriter(seed uint64, size int, cwd string) *claudeWriter {
	w := &claudeWriter{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), session: newUUIDText(), cwd: cwd,
		now: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), context: 18_000, window: 200_000}
	w.out.Grow(size + size/16)
	return w
}

// mark makes a text this copy's own, as corpus.go's markTexts does.
func (w *claudeWriter) mark(s string) string { return fmt.Sprintf("%s (pass %d)", s, w.copyN) }

func (w *claudeWriter) id(prefix string) string {
	w.ids++
	return fmt.Sprintf("%s_%08x%06d", prefix, w.rng.Uint32(), w.ids)
}

func (w *claudeWriter) line(typ string, message any, extra map[string]any) string {
	w.now = w.now.Add(time.Duration(200+w.rng.IntN(3000)) * time.Millisecond)
	uuid := newUUIDText()
	rec := map[string]any{
		"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": w.cwd, "sessionId": w.session,
		"version": "2.1.170", "gitBranch": "main", "type": typ, "message": message, "uuid": uuid,
		"timestamp": w.now.Format("2006-01-02T15:04:05.000Z"),
	}
	if w.parent != "" {
		rec["parentUuid"] = w.parent
	}
	for k, v := range extra {
		rec[k] = v
	}
	b, _ := json.Marshal(rec)
	w.out.Write(b)
	w.out.WriteByte('\n')
	w.context += visible(message) * 10 / 36
	w.parent = uuid
	return uuid
}

// visible estimates the bytes of a message the model reads (its content,
// not the record around it).
func visible(message any) int {
	m, ok := message.(map[string]any)
	if !ok {
		return 0
	}
	b, _ := json.Marshal(m["content"])
	return len(b)
}

// imageTokens corrects the context for an image just written: the model
// reads it as about 1,600 tokens, not as its base64.
func (w *claudeWriter) imageTokens(data string) {
	w.context -= len(data)*10/36 - 1600
}

// maybeCompact compacts as Claude Code does when the context reaches its
// threshold: a compact_boundary starting a new chain (its logical parent
// the last row), then the summary, and the context is the summary again.
// It is called between turns.
func (w *claudeWriter) maybeCompact(p *pools) {
	if w.context < w.window*835/1000 {
		return
	}
	w.now = w.now.Add(20 * time.Second)
	uuid := newUUIDText()
	rec := map[string]any{
		"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": w.cwd, "sessionId": w.session,
		"version": "2.1.170", "gitBranch": "main", "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"isMeta": false, "timestamp": w.now.Format("2006-01-02T15:04:05.000Z"), "uuid": uuid, "level": "info",
		"logicalParentUuid": w.parent, "compactMetadata": map[string]any{"trigger": "auto", "preTokens": w.context},
	}
	b, _ := json.Marshal(rec)
	w.out.Write(append(b, '\n'))
	w.parent = uuid
	var summary strings.Builder
	summary.WriteString("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n")
	for summary.Len() < 6000 {
		summary.WriteString(pick(w.rng, p.answers))
		summary.WriteString("\n")
	}
	w.context = 18_000
	w.line("user", map[string]any{"role": "user", "content": w.mark(summary.String())}, map[string]any{"isCompactSummary": true, "isVisibleInTranscriptOnly": true})
}

func (w *claudeWriter) prompt(content any) {
	w.line("user", map[string]any{"role": "user", "content": content}, map[string]any{"promptId": newUUIDText()})
}

// response writes one assistant response, a line per block, usage on
// each; it returns the uuid of its last line.
func (w *claudeWriter) response(blocks []map[string]any) string {
	msgID, req := w.id("msg"), w.id("req")
	var last string
	for i, b := range blocks {
		stop := any(nil)
		if i == len(blocks)-1 {
			stop = "end_turn"
			if b["type"] == "tool_use" {
				stop = "tool_use"
			}
		}
		msg := map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": "claude-opus-4-8", "content": []any{b},
			"stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 400 + w.rng.IntN(2000), "cache_read_input_tokens": w.context, "output_tokens": 40 + w.rng.IntN(600)}}
		last = w.line("assistant", msg, map[string]any{"requestId": req})
	}
	return last
}

func (w *claudeWriter) result(callID, callUUID string, content any, side any) {
	w.line("user", map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": callID, "type": "tool_result", "content": content}}},
		map[string]any{"toolUseResult": side, "sourceToolAssistantUUID": callUUID})
}

func (w *claudeWriter) thinking(t thought) map[string]any {
	return map[string]any{"type": "thinking", "thinking": w.mark(t.text), "signature": t.signature}
}

// call writes a response holding a tool call (after the blocks before it)
// and the call's result, clipped to limit bytes.
func (w *claudeWriter) call(before []map[string]any, c toolCall, limit int) {
	id := w.id("toolu")
	out := c.output
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	out = w.mark(out)
	uuid := w.response(append(before, map[string]any{"type": "tool_use", "id": id, "name": c.name, "input": c.input}))
	w.result(id, uuid, out, map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false})
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

func buildToolHeavy(p *pools, size int, cwd string) []byte {
	w := newClaudeWriter(1, size, cwd)
	for ; w.out.Len() < size; w.copyN++ {
		w.maybeCompact(p)
		w.prompt(w.mark(pick(w.rng, p.prompts)))
		for step := 0; step < 30; step++ {
			t := pick(w.rng, p.thoughts)
			t.text = t.text[:min(len(t.text), 200+w.rng.IntN(600))]
			w.call([]map[string]any{w.thinking(t)}, pick(w.rng, p.calls), 200+w.rng.IntN(2800))
		}
		w.response([]map[string]any{{"type": "text", "text": w.mark(pick(w.rng, p.answers))}})
	}
	return w.out.Bytes()
}

func buildThinkingHeavy(p *pools, size int, cwd string) []byte {
	w := newClaudeWriter(2, size, cwd)
	for ; w.out.Len() < size; w.copyN++ {
		w.maybeCompact(p)
		w.prompt(w.mark(pick(w.rng, p.prompts)))
		for step := 0; step < 3; step++ {
			var long strings.Builder
			for long.Len() < 8_000+w.rng.IntN(16_000) {
				long.WriteString(pick(w.rng, p.thoughts).text)
				long.WriteString("\n\n")
			}
			t := thought{long.String(), pick(w.rng, p.thoughts).signature}
			w.call([]map[string]any{w.thinking(t), {"type": "text", "text": w.mark(pick(w.rng, p.answers))}}, pick(w.rng, p.calls), 4000)
		}
		w.response([]map[string]any{w.thinking(pick(w.rng, p.thoughts)), {"type": "text", "text": w.mark(pick(w.rng, p.answers))}})
	}
	return w.out.Bytes()
}

// screenshots are PNGs of a few sizes, as users paste them.
func screenshots() []string {
	var out []string
	for _, dim := range [][2]int{{1280, 800}, {1920, 1080}, {800, 600}} {
		data := sessiongen.ClaudeScreenshots("x", 1, dim[0], dim[1])
		i := bytes.Index(data, []byte(`"data":"`))
		if i < 0 {
			continue
		}
		rest := data[i+len(`"data":"`):]
		j := bytes.IndexByte(rest, '"')
		out = append(out, string(rest[:j]))
	}
	if len(out) == 0 {
		out = append(out, base64.StdEncoding.EncodeToString(make([]byte, 200_000)))
	}
	return out
}

func buildImageHeavy(p *pools, size int, cwd string) []byte {
	w := newClaudeWriter(3, size, cwd)
	shots := screenshots()
	for ; w.out.Len() < size; w.copyN++ {
		w.maybeCompact(p)
		text := map[string]any{"type": "text", "text": w.mark(pick(w.rng, p.prompts))}
		if w.rng.IntN(4) > 0 {
			data := pick(w.rng, shots)
			img := map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": data}}
			w.prompt([]any{img, text})
			w.imageTokens(data)
		} else {
			w.prompt([]any{text})
		}
		for step := 0; step < 4; step++ {
			if w.rng.IntN(3) == 0 {
				id := w.id("toolu")
				uuid := w.response([]map[string]any{{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": cwd + "/docs/screen.png"}}})
				data := pick(w.rng, shots)
				img := []any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": data}}}
				w.result(id, uuid, img, map[string]any{"type": "image", "file": map[string]any{"base64": data, "type": "image/png", "originalSize": len(data) * 3 / 4}})
				w.imageTokens(data)
				continue
			}
			w.call(nil, pick(w.rng, p.calls), 3000)
		}
		w.response([]map[string]any{{"type": "text", "text": w.mark(pick(w.rng, p.answers))}})
	}
	return w.out.Bytes()
}

func buildShortTurns(p *pools, size int, cwd string) []byte {
	w := newClaudeWriter(4, size, cwd)
	for ; w.out.Len() < size; w.copyN++ {
		w.maybeCompact(p)
		q := pick(w.rng, p.prompts)
		a := pick(w.rng, p.answers)
		w.prompt(w.mark(q[:min(len(q), 20+w.rng.IntN(200))]))
		w.response([]map[string]any{{"type": "text", "text": w.mark(a[:min(len(a), 40+w.rng.IntN(400))])}})
	}
	return w.out.Bytes()
}

// buildBigOutputs is a session of reading and searching: each turn reads
// whole files as Claude Code's Read returns them (numbered lines, at most
// 2,000, the file again in toolUseResult) and searches with grep -rn, whose
// output Claude Code cuts at 30,000 characters, a few calls a turn, each
// after a sentence saying why; the turn ends in a long answer.
func buildBigOutputs(p *pools, size int, cwd string) []byte {
	w := newClaudeWriter(6, size, cwd)
	for ; w.out.Len() < size; w.copyN++ {
		w.maybeCompact(p)
		w.prompt(w.mark(pick(w.rng, p.prompts)))
		for step := 0; step < 2+w.rng.IntN(5); step++ {
			why := map[string]any{"type": "text", "text": w.mark(firstSentence(pick(w.rng, p.answers)))}
			if w.rng.IntN(3) == 0 {
				w.grep(p, why)
			} else {
				w.read(p, why)
			}
		}
		var answer strings.Builder
		for target := 2_000 + w.rng.IntN(6_000); answer.Len() < target; {
			answer.WriteString(pick(w.rng, p.answers))
			answer.WriteString("\n\n")
		}
		w.response([]map[string]any{{"type": "text", "text": w.mark(answer.String())}})
	}
	return w.out.Bytes()
}

// read writes a Read of a whole file and its result, as Claude Code 2.1
// writes them.
func (w *claudeWriter) read(p *pools, before map[string]any) {
	f := pick(w.rng, p.files)
	path := w.cwd + "/" + f.rel
	lines := strings.SplitAfter(strings.TrimSuffix(f.text, "\n"), "\n")
	lines = lines[:min(len(lines), 2000)]
	var numbered strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&numbered, "%6d\u2192%s", i+1, l)
	}
	content := w.mark(numbered.String())
	id := w.id("toolu")
	uuid := w.response([]map[string]any{before, {"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": path}}})
	w.result(id, uuid, content, map[string]any{"type": "text", "file": map[string]any{"filePath": path, "content": strings.Join(lines, ""),
		"numLines": len(lines), "startLine": 1, "totalLines": len(lines)}})
}

// grep writes a grep -rn over the files for a word of one of them, its
// output cut at 30,000 characters as Claude Code cuts a command's.
func (w *claudeWriter) grep(p *pools, before map[string]any) {
	words := strings.Fields(pick(w.rng, p.files).text)
	word := "func"
	if len(words) > 0 {
		if cand := strings.Trim(pick(w.rng, words), "(){}[]*&.,;:\"'`"); len(cand) >= 3 {
			word = cand
		}
	}
	var out strings.Builder
	start := w.rng.IntN(len(p.files))
	for k := 0; k < len(p.files) && out.Len() < 30_000; k++ {
		f := p.files[(start+k)%len(p.files)]
		for i, l := range strings.Split(f.text, "\n") {
			if strings.Contains(l, word) {
				fmt.Fprintf(&out, "%s:%d:%s\n", f.rel, i+1, l)
			}
		}
	}
	text := out.String()
	if len(text) > 30_000 {
		text = text[:30_000] + fmt.Sprintf("\n\n... [%d characters truncated] ...", len(text)-30_000)
	}
	text = w.mark(text)
	id := w.id("toolu")
	uuid := w.response([]map[string]any{before, {"type": "tool_use", "id": id, "name": "Bash",
		"input": map[string]any{"command": "grep -rn '" + word + "' .", "description": "Find uses of " + word}}})
	w.result(id, uuid, text, map[string]any{"stdout": text, "stderr": "", "interrupted": false, "isImage": false})
}

// firstSentence is s up to its first sentence's end.
func firstSentence(s string) string {
	if i := strings.IndexAny(s, ".:\n"); i > 0 {
		return s[:i+1]
	}
	return s
}

// buildCodex is sessiongen's rollout with Codex's auto-compaction written
// in, as Codex 0.169 writes it whenever the context passes 90 % of its
// 272k window before a turn: a compacted record whose replacement history
// is the user's messages so far and the summary, the context back to them.
func buildCodex(p *pools, size int, cwd string) []byte {
	src := sessiongen.Codex(sessiongen.Options{Seed: 5, TargetBytes: size, Cwd: cwd})
	var out bytes.Buffer
	out.Grow(len(src) + len(src)/16)
	context, n := 12_000, 0
	var users []json.RawMessage
	for _, line := range bytes.SplitAfter(src, []byte("\n")) {
		var rec struct {
			Timestamp string          `json:"timestamp"`
			Type      string          `json:"type"`
			Payload   json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Type == "response_item" {
			var it struct {
				Type string `json:"type"`
				Role string `json:"role"`
			}
			json.Unmarshal(rec.Payload, &it)
			if it.Type == "message" && it.Role == "user" {
				if context > 272_000*9/10 {
					n++
					summary := map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text",
						"text": fmt.Sprintf("Another language model started to solve this problem and produced a summary of its thinking process. (compaction %d) %s", n, pick(rand.New(rand.NewPCG(uint64(n), 7)), p.answers))}}}
					hist := append(append([]json.RawMessage(nil), users[max(0, len(users)-20):]...), mustJSON(summary))
					b, _ := json.Marshal(map[string]any{"timestamp": rec.Timestamp, "type": "compacted", "payload": map[string]any{
						"message": "", "replacement_history": hist, "window_number": n + 1}})
					out.Write(append(b, '\n'))
					context = 12_000
				}
				users = append(users, rec.Payload)
			}
			context += len(rec.Payload) * 10 / 36
		}
		if rec.Type == "event_msg" && bytes.Contains(rec.Payload, []byte(`"token_count"`)) {
			// The usage Codex reports is the context now.
			var ev map[string]any
			if json.Unmarshal(rec.Payload, &ev) == nil {
				if info, ok := ev["info"].(map[string]any); ok {
					info["last_token_usage"] = map[string]any{"input_tokens": context, "cached_input_tokens": context * 9 / 10, "output_tokens": 400, "reasoning_output_tokens": 200, "total_tokens": context + 400}
					info["model_context_window"] = 272_000
					b, _ := json.Marshal(map[string]any{"timestamp": rec.Timestamp, "type": rec.Type, "payload": ev})
					line = append(b, '\n')
				}
			}
		}
		out.Write(line)
	}
	return out.Bytes()
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
