package strategy

import (
	"index/suffixarray"
	"strings"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/salience"
	"github.com/compactd/compactd/compaction/transcript"
)

// Retain checks the key facts of original (facts.Extract) against what
// view v keeps. A part kept unchanged keeps its facts (extraction is per
// part); for the rest, a fact survives if its text appears in a rewritten
// part, an argument or a summary.
func Retain(original []transcript.Message, v *transcript.View) Retention {
	return retainFacts(facts.Extract(original), original, v)
}

// retainFacts is Retain with the original's facts already extracted.
func retainFacts(want []facts.Fact, original []transcript.Message, v *transcript.View) Retention {
	if len(want) == 0 {
		return Retention{Score: 1}
	}
	var kept facts.Set
	var rewritten strings.Builder
	for i := range v.Messages {
		m := &v.Messages[i]
		for j := range m.Parts {
			p := &m.Parts[j]
			if p.Changed {
				rewritten.WriteString(p.Text)
				rewritten.WriteByte('\n')
				rewritten.WriteString(p.Args)
				rewritten.WriteByte('\n')
			}
			kept.AddPart(m, p)
		}
	}
	for _, s := range v.Summaries {
		rewritten.WriteString(s.Text)
		rewritten.WriteByte('\n')
	}
	hay := rewritten.String()
	cwd := ""
	if v.Source != nil {
		cwd = v.Source.Meta.Cwd
	}
	ret := Retention{Total: len(want)}
	// Many facts looked for in a long text (a whole session's summaries
	// and rewritten parts): past a few, an index of the text finds each
	// in time proportional to the fact, not to the text.
	var idx *suffixarray.Index
	lookups := 0
	contains := func(s string) bool {
		if lookups++; idx == nil && lookups > 32 && len(hay) > 64<<10 {
			idx = suffixarray.New([]byte(hay))
		}
		if idx == nil {
			return strings.Contains(hay, s)
		}
		return s == "" || len(idx.Lookup([]byte(s), 1)) > 0
	}
	for _, f := range want {
		if kept.Has(f) {
			ret.Kept++
			continue
		}
		text := f.Text
		if f.Kind == facts.Path && hay != "" && !contains(text) {
			// A summary writes paths under the working folder relative to it.
			text = salience.Relative(text, cwd)
		}
		if hay != "" && contains(text) {
			ret.Kept++
			continue
		}
		ret.Lost = append(ret.Lost, f)
	}
	ret.Score = float64(ret.Kept) / float64(ret.Total)
	ret.ContentsLost = contentsLost(original, v)
	return ret
}

// contentsLost lists, in order of first read, the files whose contents a
// read's result held in original and no unchanged read result holds in v.
func contentsLost(original []transcript.Message, v *transcript.View) []string {
	held := func(msgs []transcript.Message, unchangedOnly bool) ([]string, map[string]bool) {
		calls := map[string]*transcript.Part{}
		var order []string
		files := map[string]bool{}
		for i := range msgs {
			for j := range msgs[i].Parts {
				p := &msgs[i].Parts[j]
				switch p.Kind {
				case transcript.PartToolCall:
					calls[p.ToolCallID] = p
				case transcript.PartToolResult:
					call := calls[p.ToolCallID]
					if call == nil || p.IsError || strings.TrimSpace(p.Text) == "" || facts.IsPlaceholder(p.Text) || unchangedOnly && p.Changed {
						continue
					}
					rd, ok := facts.ParseRead(call.ToolName, call.Args, "")
					if !ok || rd.Path == "" {
						continue
					}
					if !files[rd.Path] {
						files[rd.Path] = true
						order = append(order, rd.Path)
					}
				}
			}
		}
		return order, files
	}
	read, _ := held(original, false)
	_, still := held(v.Messages, true)
	var lost []string
	for _, f := range read {
		if !still[f] {
			lost = append(lost, f)
		}
	}
	return lost
}
