package anthropic

import (
	"fmt"

	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// Dialect adapts ForkDocument to a flavour of Anthropic-shaped document.
type Dialect struct {
	// Merge puts a summary into the next user message when there is one,
	// instead of writing a message of its own.
	Merge bool
	// Summary renders a summary message (role user).
	Summary func(text string) ([]byte, error)
	// Ack renders a message of role that only keeps roles alternating.
	Ack func(role string) ([]byte, error)
	// Unchanged, when set, may rewrite a kept source record's bytes
	// (nil keeps them).
	Unchanged func(rec int, raw []byte) ([]byte, error)
	// DropUsage, when set, removes API-reported usage from a kept record
	// past the view's unchanged prefix, where it no longer describes the
	// context (nil result: nothing to drop).
	DropUsage func(raw []byte) ([]byte, error)
}

// item is one element of the forked array.
type item struct {
	raw []byte
	// role is "" for passed-through records that are no message.
	role string
	// synth marks messages the fork wrote (summaries, acks).
	synth bool
	// summary is a summary's text still to be placed.
	summary *string
	// exact marks source bytes that must not be re-indented.
	exact bool
	// source is the array element the bytes come from unchanged, or -1.
	source int
}

// ForkDocument writes a view of a transcript parsed by Scan.
func ForkDocument(v *transcript.View, d Dialect) ([]byte, error) {
	src := v.Source
	fr, ok := src.Frame.(*Frame)
	if !ok {
		return nil, fmt.Errorf("fork %s: transcript was not parsed by this codec", src.Format)
	}
	srcParts := jsonx.PartsByRecord(src)
	var edits []jsonx.Edit
	var items []item
	keepUsage := v.UnchangedPrefix()
	for _, s := range jsonx.PlanFork(v, map[int]bool{fr.System: true}) {
		switch {
		case s.Record >= 0:
			r := src.Records[s.Record]
			items = append(items, item{raw: r.Raw, exact: true, source: fr.Doc.ElementAt(int(r.Start))})
		case s.Summary >= 0:
			text := v.Summaries[s.Summary].Text
			items = append(items, item{role: "user", synth: true, summary: &text, source: -1})
		default:
			m := &v.Messages[s.Message]
			if len(m.Records) == 0 {
				raw, err := NewMessage(m)
				if err != nil {
					return nil, err
				}
				if raw != nil {
					items = append(items, item{raw: raw, role: string(m.Role), source: -1})
				}
				continue
			}
			kept := jsonx.KeptParts(m)
			for _, rec := range m.Records {
				if rec == fr.System {
					if jsonx.Untouched(kept[rec], len(srcParts[rec])) {
						continue
					}
					content, err := RenderContent(src.Records[rec].Raw, srcParts[rec], kept[rec])
					if err != nil {
						return nil, fmt.Errorf("fork system prompt: %w", err)
					}
					if content != nil {
						sp := src.Records[rec]
						edits = append(edits, jsonx.Edit{Span: jsonx.Span{Start: int(sp.Start), End: int(sp.End)}, Bytes: content})
					}
					continue
				}
				raw := src.Records[rec].Raw
				it := item{role: string(m.Role), exact: true, source: -1}
				if jsonx.Untouched(kept[rec], len(srcParts[rec])) {
					it.raw, it.source = raw, fr.Doc.ElementAt(int(src.Records[rec].Start))
					if d.Unchanged != nil {
						nr, err := d.Unchanged(rec, raw)
						if err != nil {
							return nil, err
						}
						if nr != nil {
							it.raw, it.exact, it.source = nr, false, -1
						}
					}
				} else {
					nr, err := RenderRecord(raw, srcParts[rec], kept[rec])
					if err != nil {
						return nil, fmt.Errorf("fork record at byte %d: %w", src.Records[rec].Start, err)
					}
					if nr == nil {
						continue
					}
					it.raw, it.exact = nr, false
				}
				if d.DropUsage != nil && s.Message >= keepUsage {
					nr, err := d.DropUsage(it.raw)
					if err != nil {
						return nil, fmt.Errorf("fork record at byte %d: %w", src.Records[rec].Start, err)
					}
					if nr != nil {
						it.raw, it.exact, it.source = nr, false, -1
					}
				}
				items = append(items, it)
			}
		}
	}
	items, err := placeSummaries(items, d)
	if err != nil {
		return nil, err
	}
	layout := jsonx.LayoutOf(fr.Src, fr.Doc)
	elems := make([]jsonx.Elem, len(items))
	for i, it := range items {
		if it.exact {
			elems[i] = jsonx.Elem{Bytes: it.raw, Source: it.source}
		} else {
			elems[i] = jsonx.Elem{Bytes: layout.Format(it.raw), Source: -1}
		}
	}
	edits = append(edits, jsonx.Edit{Span: fr.Doc.Array, Bytes: fr.Doc.ArrayBytes(fr.Src, layout, elems)})
	return jsonx.Splice(fr.Src, edits), nil
}

// placeSummaries merges or renders summaries, then inserts acks wherever
// a synthesized message would sit next to one of the same role.
func placeSummaries(items []item, d Dialect) ([]item, error) {
	var out []item
	for i := 0; i < len(items); i++ {
		it := items[i]
		if it.summary == nil {
			out = append(out, it)
			continue
		}
		next := -1
		for j := i + 1; j < len(items); j++ {
			if items[j].role != "" {
				next = j
				break
			}
		}
		if d.Merge && next >= 0 && items[next].role == "user" && items[next].summary == nil && !items[next].synth {
			merged, err := MergeText(items[next].raw, *it.summary)
			if err != nil {
				return nil, err
			}
			items[next].raw, items[next].exact, items[next].source = merged, false, -1
			continue
		}
		raw, err := d.Summary(*it.summary)
		if err != nil {
			return nil, err
		}
		out = append(out, item{raw: raw, role: "user", synth: true, source: -1})
	}
	var fixed []item
	lastRole, lastSynth := "", false
	for _, it := range out {
		if it.role != "" && it.role == lastRole && (lastSynth || it.synth) {
			other := "assistant"
			if it.role == "assistant" {
				other = "user"
			}
			ack, err := d.Ack(other)
			if err != nil {
				return nil, err
			}
			fixed = append(fixed, item{raw: ack, role: other, synth: true, source: -1})
		}
		fixed = append(fixed, it)
		if it.role != "" {
			lastRole, lastSynth = it.role, it.synth
		}
	}
	return fixed, nil
}
