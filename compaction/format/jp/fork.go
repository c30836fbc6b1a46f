package jp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// Fork implements format.Codec. When the view is what compaction overlays
// over whole turns would project (a summary standing for removed turns,
// reasoning stripped, tool calls omitted), the source events are kept byte
// for byte and those overlays appended; the result is verified by
// projecting it. Otherwise the view is rendered as a new event list:
// untouched events as they were, edited ones re-rendered (base64 fields
// encoded again), summaries as the request/response pair jp itself
// projects. A signed reasoning block whose text changed loses its
// signature.
func (c Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	src := v.Source
	if src == nil {
		return nil, fmt.Errorf("fork: view has no source transcript")
	}
	fr, ok1 := src.Frame.(*frame)
	st, ok2 := src.State.(*state)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("fork: transcript was not parsed by the jp codec")
	}
	ts := time.Now().UTC()
	if opts.Timestamp != "" {
		if p, err := time.Parse(time.RFC3339Nano, opts.Timestamp); err == nil {
			ts = p.UTC()
		}
	}
	f := &forker{v: v, src: src, fr: fr, st: st, layout: jsonx.LayoutOf(fr.src, fr.doc), ts: ts}
	want := expected(v)
	if out, ok := f.native(); ok {
		if back, err := c.Parse(out); err == nil && slices.Equal(flatten(back.Messages), want) {
			return out, nil
		}
	}
	return f.render()
}

type forker struct {
	v      *transcript.View
	src    *transcript.Transcript
	fr     *frame
	st     *state
	layout jsonx.Layout
	ts     time.Time
	made   int
}

// flatten renders messages as what the model reads, one line per part.
func flatten(msgs []transcript.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == transcript.RoleSystem {
			continue
		}
		for _, p := range m.Parts {
			out = append(out, fmt.Sprintf("%s %s|%s|%s|%s|%s", m.Role, p.Kind, p.Text, p.ToolCallID, p.ToolName, p.Args))
		}
	}
	return out
}

// expected is what a fork of v must project: the view's messages with
// each summary as jp's request/response pair.
func expected(v *transcript.View) []string {
	var out []string
	sum := func(i int) {
		for _, s := range v.Summaries {
			if s.Before == i {
				out = append(out, flatten(summaryPair(s.Text))...)
			}
		}
	}
	for i, m := range v.Messages {
		sum(i)
		out = append(out, flatten([]transcript.Message{m})...)
	}
	sum(len(v.Messages))
	return out
}

func summaryPair(text string) []transcript.Message {
	return []transcript.Message{
		{Role: transcript.RoleUser, Parts: []transcript.Part{{Kind: transcript.PartText, Text: summaryRequest}}},
		{Role: transcript.RoleAssistant, Parts: []transcript.Part{{Kind: transcript.PartText, Text: text}}},
	}
}

// native tries to express the view as overlays appended to the source.
func (f *forker) native() ([]byte, bool) {
	inView := map[int][]transcript.Part{}
	for _, m := range f.v.Messages {
		for _, p := range m.Parts {
			if p.Changed {
				return nil, false
			}
			inView[p.Ref.Record] = append(inView[p.Ref.Record], p)
		}
	}
	var removed, reasoning, tools []int
	for _, m := range f.src.Messages {
		for _, p := range m.Parts {
			r := p.Ref.Record
			if r < 0 || slices.ContainsFunc(inView[r], func(q transcript.Part) bool { return q.Ref == p.Ref }) {
				continue
			}
			turn := f.st.turnOf[r]
			switch {
			case p.Kind == transcript.PartReasoning:
				reasoning = append(reasoning, turn)
			case p.Kind == transcript.PartToolCall || p.Kind == transcript.PartToolResult:
				tools = append(tools, turn)
			default:
				removed = append(removed, turn)
			}
		}
	}
	// A summary's range covers whatever else its turns lost.
	reasoning = slices.DeleteFunc(reasoning, func(t int) bool { return slices.Contains(removed, t) })
	tools = slices.DeleteFunc(tools, func(t int) bool { return slices.Contains(removed, t) })
	if len(removed) > 0 && len(f.v.Summaries) == 0 || len(removed) == 0 && len(f.v.Summaries) > 0 {
		return nil, false
	}
	var events [][]byte
	if len(f.v.Summaries) > 0 {
		texts := make([]string, len(f.v.Summaries))
		for i, s := range f.v.Summaries {
			texts[i] = s.Text
		}
		o := f.overlay(removed)
		_ = o.Set("summary", map[string]string{"summary": strings.Join(texts, "\n\n")})
		events = append(events, o.Bytes())
	}
	if len(reasoning) > 0 {
		o := f.overlay(reasoning)
		_ = o.Set("reasoning", "strip")
		events = append(events, o.Bytes())
	}
	if len(tools) > 0 {
		o := f.overlay(tools)
		_ = o.Set("tool_calls", map[string]string{"policy": "omit"})
		events = append(events, o.Bytes())
	}
	if len(events) == 0 {
		out, err := Codec{}.Write(f.src)
		return out, err == nil
	}
	elems := make([]jsonx.Elem, 0, len(f.src.Records)+len(events))
	for i := range f.src.Records {
		elems = append(elems, jsonx.Elem{Bytes: f.src.Records[i].Raw, Source: i})
	}
	for _, e := range events {
		elems = append(elems, jsonx.Elem{Bytes: f.layout.Format(e), Source: -1})
	}
	return f.document(elems), true
}

// overlay starts a compaction event over the turns' range. Its timestamp
// is after every existing overlay so that it wins.
func (f *forker) overlay(turns []int) *jsonx.Object {
	o := &jsonx.Object{}
	_ = o.Set("timestamp", f.stamp())
	_ = o.Set("type", "compaction")
	_ = o.Set("from_turn", slices.Min(turns))
	_ = o.Set("to_turn", slices.Max(turns))
	return o
}

func (f *forker) stamp() string {
	ts := f.ts
	for i := range f.st.events {
		if e := &f.st.events[i]; e.typ == "compaction" && !e.ts.Before(ts) {
			ts = e.ts.Add(time.Millisecond)
		}
	}
	ts = ts.Add(time.Duration(f.made) * time.Microsecond)
	f.made++
	return ts.Format("2006-01-02 15:04:05.000000")
}

func (f *forker) document(elems []jsonx.Elem) []byte {
	src, doc := f.fr.src, f.fr.doc
	out := append([]byte(nil), src[:doc.Array.Start]...)
	out = append(out, doc.ArrayBytes(src, f.layout, elems)...)
	return append(out, src[doc.Array.End:]...)
}

// render writes the view as a new event list.
func (f *forker) render() ([]byte, error) {
	kept := map[int][]transcript.Part{}
	for _, m := range f.v.Messages {
		for _, p := range m.Parts {
			kept[p.Ref.Record] = append(kept[p.Ref.Record], p)
		}
	}
	count := jsonx.SourceParts(f.src)
	var elems []jsonx.Elem
	isTurn := []bool{}
	push := func(e jsonx.Elem, turn bool) {
		elems = append(elems, e)
		isTurn = append(isTurn, turn)
	}
	newEvent := func(o *jsonx.Object) { push(jsonx.Elem{Bytes: f.layout.Format(o.Bytes()), Source: -1}, false) }
	summary := func(text string) {
		ts := f.stamp()
		o := &jsonx.Object{}
		_ = o.Set("timestamp", ts)
		_ = o.Set("type", "turn_start")
		push(jsonx.Elem{Bytes: f.layout.Format(o.Bytes()), Source: -1}, true)
		o = &jsonx.Object{}
		_ = o.Set("timestamp", ts)
		_ = o.Set("type", "chat_request")
		_ = o.Set("content", summaryRequest)
		newEvent(o)
		o = &jsonx.Object{}
		_ = o.Set("timestamp", ts)
		_ = o.Set("type", "chat_response")
		_ = o.Set("message", text)
		newEvent(o)
	}
	next := 0
	context := func(upTo int) {
		for ; next < upTo; next++ {
			r := f.src.Records[next]
			switch {
			case r.Kind == transcript.RecordMessage || r.Kind == transcript.RecordMarker:
			default:
				push(jsonx.Elem{Bytes: r.Raw, Source: next}, r.Type == "turn_start")
			}
		}
	}
	done := map[int]bool{}
	for i := 0; i <= len(f.v.Messages); i++ {
		for _, s := range f.v.Summaries {
			if s.Before == i {
				summary(s.Text)
			}
		}
		if i == len(f.v.Messages) {
			break
		}
		m := &f.v.Messages[i]
		for _, r := range m.Records {
			if r < 0 || r >= len(f.src.Records) || done[r] {
				continue
			}
			if f.src.Records[r].Kind == transcript.RecordMarker {
				// A summary the source projected: materialize it once.
				if len(m.Parts) > 0 && m.Parts[0].Ref.Block == blockSummaryText {
					summary(m.Parts[0].Text)
				}
				continue
			}
			done[r] = true
			context(r)
			next = max(next, r+1)
			parts := kept[r]
			if jsonx.Untouched(parts, count[r]) && !f.st.projected[r] {
				push(jsonx.Elem{Bytes: f.src.Records[r].Raw, Source: r}, false)
				continue
			}
			b, err := renderEvent(f.src.Records[r].Raw, parts)
			if err != nil {
				return nil, fmt.Errorf("fork: event %d: %w", r, err)
			}
			push(jsonx.Elem{Bytes: f.layout.Format(b), Source: -1}, false)
		}
	}
	context(len(f.src.Records))
	// Drop turns left without any conversation event.
	var out []jsonx.Elem
	for i, e := range elems {
		if isTurn[i] {
			empty := true
			for j := i + 1; j < len(elems) && !isTurn[j]; j++ {
				if e := elems[j]; e.Source < 0 || f.src.Records[e.Source].Kind == transcript.RecordMessage {
					empty = false
					break
				}
			}
			if empty {
				continue
			}
		}
		out = append(out, e)
	}
	return f.document(out), nil
}

// renderEvent rewrites a conversation event to hold the view's parts of it.
func renderEvent(raw []byte, parts []transcript.Part) ([]byte, error) {
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return o.Bytes(), nil
	}
	p := parts[0]
	switch p.Kind {
	case transcript.PartText:
		switch {
		case o.Has("content"):
			_ = o.Set("content", p.Text)
		case o.Has("data") && json.Valid([]byte(p.Text)):
			o.SetRaw("data", json.RawMessage(p.Text))
		default:
			o.Delete("data")
			_ = o.Set("message", p.Text)
		}
	case transcript.PartReasoning:
		if p.Changed {
			_ = o.Set("reasoning", p.Text)
			o.Delete("metadata") // the signature no longer matches
		}
	case transcript.PartToolCall:
		args := p.Args
		if !json.Valid([]byte(args)) {
			args = "{}"
		}
		o.SetRaw("arguments", mapStrings(json.RawMessage(args), encodeString))
	case transcript.PartToolResult:
		_ = o.Set("content", encodeString(p.Text))
	}
	return o.Bytes(), nil
}
