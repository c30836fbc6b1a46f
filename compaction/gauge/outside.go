package gauge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// recordFacts are what a transcript's non-message records say about the
// context the agent sends beside them, as its codec reads them
// (format.ContextReader).
type recordFacts = format.ContextFacts

// scanRecords reads records [from:] of t into r, copied first when a
// record adds to it (a tally's earlier states keep theirs).
func scanRecords(r recordFacts, t *transcript.Transcript, from int, opts TallyOptions) recordFacts {
	cr := format.ContextReaderOf(t.Format)
	if cr == nil {
		return r
	}
	cloned := false
	for i := from; i < len(t.Records); i++ {
		rec := &t.Records[i]
		if !cr.ContextRecord(rec) {
			continue
		}
		if !cloned {
			r, cloned = r.Clone(), true
		}
		cr.ReadContext(rec, &r, opts.CountText)
	}
	return r
}

// knownOutside lists what the transcript names of the outside part.
func (tl Tally) knownOutside(st tallyState) []OutsidePart {
	var out []OutsidePart
	if tl.rec.BaseText {
		out = append(out, OutsidePart{Name: "base instructions", Detail: "recorded in session_meta", Tokens: tl.rec.Base})
	}
	if len(tl.rec.Dynamic) > 0 {
		out = append(out, OutsidePart{Name: "dynamic tools", Detail: strings.Join(tl.rec.Dynamic, ", ")})
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
	for name := range tl.rec.Deferred {
		if s, t, ok := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__"); ok && strings.HasPrefix(name, "mcp__") {
			add(s, t)
		} else {
			builtinDeferred++
		}
	}
	for s := range tl.rec.Instructions {
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
