package gauge

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
)

// outsideLabel names what an agent sends beside the transcript.
func outsideLabel(f transcript.Format) string {
	switch f {
	case transcript.FormatClaudeCode:
		return "system prompt, tool and MCP definitions, memory files (CLAUDE.md)"
	case transcript.FormatCodex:
		return "base instructions, tool definitions"
	case transcript.FormatGeminiCLI:
		return "system prompt, tool definitions, memory files (GEMINI.md)"
	case transcript.FormatCline:
		return "system prompt, tool definitions"
	}
	return "system prompt, tool definitions"
}

// recordFacts are what a transcript's non-message records say about the
// context the agent sends beside them.
type recordFacts struct {
	// deferred are Claude Code's deferred tools (names the model sees,
	// definitions loaded on demand), from deferred_tools_delta attachments.
	deferred map[string]bool
	// instructions names MCP servers whose instructions are sent
	// (mcp_instructions_delta).
	instructions map[string]bool
	// base is Codex's base instructions' count, baseText whether it was found.
	base     int
	baseText bool
	// dynamic names Codex's dynamic tools (session_meta.dynamic_tools).
	dynamic []string
}

func (r recordFacts) clone() recordFacts {
	out := r
	out.deferred = cloneSet(r.deferred)
	out.instructions = cloneSet(r.instructions)
	out.dynamic = append([]string(nil), r.dynamic...)
	return out
}

func cloneSet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// scan reads records [from:] of t. Only the few record types that carry
// such facts are decoded.
func (r recordFacts) scan(t *transcript.Transcript, from int, opts TallyOptions) recordFacts {
	cloned := false
	for i := from; i < len(t.Records); i++ {
		rec := &t.Records[i]
		switch {
		case t.Format == transcript.FormatClaudeCode && rec.Type == "attachment":
		case t.Format == transcript.FormatCodex && rec.Type == "session_meta":
		default:
			continue
		}
		if !cloned {
			r, cloned = r.clone(), true
		}
		switch t.Format {
		case transcript.FormatClaudeCode:
			r.claudeAttachment(rec.Raw)
		case transcript.FormatCodex:
			r.codexMeta(rec.Raw, opts)
		}
	}
	return r
}

func (r *recordFacts) claudeAttachment(raw []byte) {
	var l struct {
		Attachment struct {
			Type         string   `json:"type"`
			AddedNames   []string `json:"addedNames"`
			RemovedNames []string `json:"removedNames"`
			ReaddedNames []string `json:"readdedNames"`
		} `json:"attachment"`
	}
	if json.Unmarshal(raw, &l) != nil {
		return
	}
	a := l.Attachment
	var set map[string]bool
	switch a.Type {
	case "deferred_tools_delta":
		set = r.deferred
	case "mcp_instructions_delta":
		set = r.instructions
	default:
		return
	}
	for _, n := range append(a.AddedNames, a.ReaddedNames...) {
		set[n] = true
	}
	for _, n := range a.RemovedNames {
		delete(set, n)
	}
}

func (r *recordFacts) codexMeta(raw []byte, opts TallyOptions) {
	var l struct {
		Payload struct {
			BaseInstructions *struct {
				Text string `json:"text"`
			} `json:"base_instructions"`
			DynamicTools json.RawMessage `json:"dynamic_tools"`
		} `json:"payload"`
	}
	if json.Unmarshal(raw, &l) != nil {
		return
	}
	if b := l.Payload.BaseInstructions; b != nil && b.Text != "" && !r.baseText {
		r.baseText = true
		if opts.CountText != nil {
			r.base = opts.CountText(b.Text)
		} else {
			r.base = (len(b.Text) + 3) / 4
		}
	}
	var tools []struct {
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	var one struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(l.Payload.DynamicTools, &tools) != nil {
		if json.Unmarshal(l.Payload.DynamicTools, &one) == nil && one.Name != "" {
			tools = append(tools, struct {
				Name  string `json:"name"`
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			}{Name: one.Name})
		}
	}
	for _, t := range tools {
		if t.Name != "" {
			r.dynamic = append(r.dynamic, t.Name)
		}
	}
}

// knownOutside lists what the transcript names of the outside part.
func (tl Tally) knownOutside(st tallyState) []OutsidePart {
	var out []OutsidePart
	if tl.rec.baseText {
		out = append(out, OutsidePart{Name: "base instructions", Detail: "recorded in session_meta", Tokens: tl.rec.base})
	}
	if len(tl.rec.dynamic) > 0 {
		out = append(out, OutsidePart{Name: "dynamic tools", Detail: strings.Join(tl.rec.dynamic, ", ")})
	}
	// MCP servers: the tools the agent called and the deferred ones it lists.
	servers := map[string]map[string]bool{}
	add := func(server, tool string) {
		if servers[server] == nil {
			servers[server] = map[string]bool{}
		}
		servers[server][tool] = true
	}
	for s, tools := range st.mcp {
		for t := range tools {
			add(s, t)
		}
	}
	builtinDeferred := 0
	for name := range tl.rec.deferred {
		if s, t, ok := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__"); ok && strings.HasPrefix(name, "mcp__") {
			add(s, t)
		} else {
			builtinDeferred++
		}
	}
	for s := range tl.rec.instructions {
		if servers[s] == nil {
			servers[s] = map[string]bool{}
		}
	}
	if len(servers) > 0 {
		names := make([]string, 0, len(servers))
		for s := range servers {
			names = append(names, s)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, s := range names {
			parts[i] = s
			if n := len(servers[s]); n > 0 {
				parts[i] = fmt.Sprintf("%s (%d %s)", s, n, plural(n, "tool"))
			}
		}
		out = append(out, OutsidePart{Name: "MCP servers", Detail: strings.Join(parts, ", ")})
	}
	if builtinDeferred > 0 {
		out = append(out, OutsidePart{Name: "deferred tools", Detail: fmt.Sprintf("%d listed by name, defined on demand", builtinDeferred)})
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
