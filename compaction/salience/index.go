package salience

import (
	"math"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/parallel"
	"github.com/compactd/compactd/compaction/transcript"
)

// Source is who named an entity in a message.
type Source uint8

// Sources, weakest first.
const (
	FromOutput    Source = iota // a tool's result: what the agent read
	FromInjected                // harness context, memory files
	FromSummary                 // an earlier compaction's summary
	FromAssistant               // the assistant's own words
	FromCall                    // the assistant's tool call: what it acted on
	FromUser                    // the user's prompt
	nSources
)

// sourceWeight is how much one message naming an entity counts, by who
// named it: the user's words and what the agent acted on say what the
// work is about; a file listing or a grep result names much in passing.
var sourceWeight = [nSources]float64{
	FromOutput:    0.35,
	FromInjected:  0.25,
	FromSummary:   1.2,
	FromAssistant: 1.5,
	FromCall:      2.0,
	FromUser:      3.0,
}

// kindWeight scales a kind's score: an error still open or a file is
// worth a little more to name than one more identifier.
var kindWeight = [nKinds]float64{Path: 1.2, Identifier: 1.0, Command: 1.1, Error: 1.2, URL: 0.9}

// A Stat is what the conversation did with one entity.
type Stat struct {
	Entity
	// Score is the entity's salience: higher means the rest of the
	// conversation is likelier to need it.
	Score float64
	// Messages counts the messages naming it; First and Last are the first
	// and last of them.
	Messages    int
	First, Last int
	// By counts the messages naming it by source.
	By [nSources]int
	// Edited marks a file the conversation wrote or changed; Ran a command
	// it ran.
	Edited, Ran bool
}

// Options tune an Index.
type Options struct {
	// Cwd makes absolute paths under it relative, so both spellings of one
	// file are one entity.
	Cwd string
	// OutputWindow is how many trailing messages have their tool output
	// read (0: 400); older output is read only for what the conversation
	// itself named. Output is the bulk of a session and, past the recent
	// turns, the least telling.
	OutputWindow int
}

// Index is the salience of every entity a span of messages names.
type Index struct {
	stats map[Entity]*Stat
	// msgs[i] are the entities message i names, each once, with the
	// strongest source naming it there.
	msgs [][]mention
	n    int
}

type mention struct {
	stat *Stat
	src  Source
}

// maxScanBytes caps how much of one tool output is read: its head and
// tail hold what names matter (the command's echo, the error at the end).
const maxScanBytes = 8 << 10

// Build indexes msgs. Message i's recency is its distance from the end of
// msgs.
func Build(msgs []transcript.Message, opts Options) *Index {
	x := &Index{stats: map[Entity]*Stat{}, msgs: make([][]mention, len(msgs)), n: len(msgs)}
	window := opts.OutputWindow
	if window <= 0 {
		window = 400
	}
	// Scanning the texts is most of the work and reads one message at a
	// time: it runs on every core. What each message names is then
	// noted in message order, as one pass would (a stat's first and last
	// message, its counts), so the index is the same.
	named := make([][]naming, len(msgs))
	scanAll(len(msgs), func(i int) { named[i] = scanMessage(&msgs[i], len(msgs)-i <= window) })
	for i := range msgs {
		seen := map[*Stat]Source{}
		note := func(e Entity, src Source) *Stat {
			if e.Kind == Path {
				e.Text = Relative(e.Text, opts.Cwd)
			}
			if e.Text == "" {
				return nil
			}
			s := x.stats[e]
			if s == nil {
				s = &Stat{Entity: e, First: i, Last: -1}
				x.stats[e] = s
			}
			if old, ok := seen[s]; !ok || src > old {
				seen[s] = src
			}
			return s
		}
		for _, n := range named[i] {
			if s := note(n.entity, n.src); s != nil && n.mark != nil {
				s.Edited = s.Edited || n.mark.Edited
				s.Ran = s.Ran || n.mark.Ran
			}
		}
		named[i] = nil
		list := make([]mention, 0, len(seen))
		for s, src := range seen {
			s.Messages++
			s.By[src]++
			s.Last = i
			list = append(list, mention{s, src})
		}
		sort.Slice(list, func(a, b int) bool { return less(list[a].stat.Entity, list[b].stat.Entity) })
		x.msgs[i] = list
	}
	x.score()
	return x
}

// naming is one name a message's scan found, in the order found, with
// what a tool call said of it (it edits the file, it runs the command).
type naming struct {
	entity Entity
	src    Source
	// mark is what a tool call said of the name (Edited, Ran); nil for
	// names read from text.
	mark *Stat
}

// scanMessage lists the names message m holds, its tool output read when
// output is set (m is within the output window).
func scanMessage(m *transcript.Message, output bool) []naming {
	var out []naming
	note := func(e Entity, src Source) {
		out = append(out, naming{entity: e, src: src})
	}
	msgSource := sourceOf(m)
	for pi := range m.Parts {
		p := &m.Parts[pi]
		switch p.Kind {
		case transcript.PartText:
			Scan(p.Text, func(e Entity) { note(e, msgSource) })
		case transcript.PartAttachment, transcript.PartDocument:
			Scan(clip(p.Text), func(e Entity) { note(e, FromInjected) })
		case transcript.PartToolCall:
			callNames(p, func(e Entity, src Source) *Stat {
				// A stand-in for the stat, which the call marks.
				mark := &Stat{}
				out = append(out, naming{entity: e, src: src, mark: mark})
				return mark
			})
		case transcript.PartToolResult:
			if output {
				Scan(clip(p.Text), func(e Entity) { note(e, FromOutput) })
			}
		}
	}
	return out
}

// scanAll runs scan(i) for i in [0, n) on every core.
func scanAll(n int, scan func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	if workers <= 1 {
		for i := range n {
			scan(i)
		}
		return
	}
	var next atomic.Int64
	var g parallel.WaitGroup
	for range workers {
		g.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				scan(i)
			}
		})
	}
	g.Wait()
}

// call reads a tool call: the file it targets, the command it runs, and
// the names in its arguments (an edit's new text, a search pattern).
func callNames(p *transcript.Part, note func(Entity, Source) *Stat) {
	args := facts.Args(p.Args)
	tool := strings.ToLower(p.ToolName)
	edited := func(path string) {
		if s := note(Entity{Path, path}, FromCall); s != nil {
			s.Edited = true
		}
	}
	if path := facts.TargetPath(args); path != "" {
		if writes(tool, args) {
			edited(path)
		} else {
			note(Entity{Path, path}, FromCall)
		}
	}
	if facts.IsShellTool(tool) {
		if cmd := normalizeCommand(facts.CommandText(args)); cmd != "" {
			if s := note(Entity{Command, cmd}, FromCall); s != nil {
				s.Ran = true
			}
			for _, pf := range facts.PatchFiles(cmd) {
				edited(pf.Path)
			}
		}
	}
	if tool == "apply_patch" {
		for _, pf := range facts.PatchFiles(facts.PatchText(p.Args)) {
			edited(pf.Path)
		}
	}
	for _, s := range stringValues(args, p.Args) {
		Scan(clip(s), func(e Entity) { note(e, FromCall) })
	}
}

func writes(tool string, args map[string]any) bool {
	switch tool {
	case "edit", "multiedit", "write", "write_file", "replace", "edit_file", "create_file", "str_replace",
		"notebookedit", "apply_diff", "replace_in_file", "write_to_file", "search_replace", "fs_modify_file", "fs_create_file":
		return true
	case "str_replace_editor", "str_replace_based_edit_tool":
		return facts.StringArg(args, "command") != "view"
	}
	return false
}

// stringValues are the string arguments of a call; the raw text when it
// is no JSON object.
func stringValues(args map[string]any, raw string) []string {
	if args == nil {
		return []string{raw}
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			out = append(out, t)
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(args)
	sort.Strings(out) // map order must not change the index
	return out
}

func sourceOf(m *transcript.Message) Source {
	switch {
	case m.Origin == transcript.OriginSummary:
		return FromSummary
	case m.Origin == transcript.OriginInjected || m.Role == transcript.RoleSystem || m.Role == transcript.RoleDeveloper:
		return FromInjected
	case m.Role == transcript.RoleUser && m.Origin == transcript.OriginHuman:
		return FromUser
	case m.Role == transcript.RoleAssistant:
		return FromAssistant
	}
	return FromOutput
}

// clip keeps the head and tail of a long text.
func clip(s string) string {
	if len(s) <= maxScanBytes {
		return s
	}
	return s[:maxScanBytes*3/4] + "\n" + s[len(s)-maxScanBytes/4:]
}

// normalizeCommand collapses a command's whitespace and caps it.
func normalizeCommand(cmd string) string {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if len(cmd) > 200 {
		return ""
	}
	return cmd
}

// score computes every entity's salience: the sum, over the messages
// naming it, of the weight of who named it there times the message's
// recency. Recency decays by messages from the end with two half-lives: a
// short one (the work in hand) and a long one (what the whole session is
// about). Files written and commands run weigh half as much again.
func (x *Index) score() {
	short := math.Max(24, float64(x.n)/10)
	long := math.Max(120, float64(x.n)/2)
	for i, list := range x.msgs {
		age := float64(x.n - 1 - i)
		decay := 0.75*math.Exp2(-age/short) + 0.25*math.Exp2(-age/long)
		for _, m := range list {
			m.stat.Score += decay * sourceWeight[m.src]
		}
	}
	for _, s := range x.stats {
		s.Score *= kindWeight[s.Kind]
		if s.Edited || s.Ran {
			s.Score *= 1.5
		}
	}
}

// Stat returns e's figures, nil when the span never names it.
func (x *Index) Stat(e Entity) *Stat { return x.stats[e] }

// Message returns the entities message i names, each once.
func (x *Index) Message(i int) []*Stat {
	out := make([]*Stat, len(x.msgs[i]))
	for k, m := range x.msgs[i] {
		out[k] = m.stat
	}
	return out
}

// Ranked returns every entity, most salient first (ties in name order).
func (x *Index) Ranked() []*Stat {
	out := make([]*Stat, 0, len(x.stats))
	for _, s := range x.stats {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return less(out[i].Entity, out[j].Entity)
	})
	return out
}

// Len is how many distinct entities the span names.
func (x *Index) Len() int { return len(x.stats) }

func less(a, b Entity) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	return a.Text < b.Text
}
