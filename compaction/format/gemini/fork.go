package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/genai"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/transcript"
)

// ackText is what Gemini CLI's own /compress puts after a summary.
const ackText = "Got it. Thanks for the additional context!"

// Fork implements format.Codec. A fork keeps its source's container: a
// JSONL recording forks into a new recording (a fresh metadata line with a
// new sessionId, then the view's messages), a legacy session-*.json into
// one JSON document of the same layout (new sessionId and times, its
// messages array holding the view), a checkpoint into a checkpoint.
// Untouched records are copied byte for byte, edited ones re-rendered; each
// summary is a user message followed by a model acknowledgement unless a
// model message follows anyway. A tool call whose result the view dropped
// is dropped with it: the API rejects a call without a response.
func (Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	src := v.Source
	if src == nil {
		return nil, fmt.Errorf("fork: view has no source transcript")
	}
	ts := opts.Timestamp
	if ts == "" {
		ts = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	session := opts.SessionID
	if session == "" {
		session = newid.UUID()
	}
	f := forker{v: v, src: src, ts: ts, session: session, count: map[msgKey]int{}, kept: map[msgKey][]transcript.Part{}, done: map[msgKey]bool{}}
	for i := range src.Messages {
		for _, p := range src.Messages[i].Parts {
			f.count[partKey(p)]++
		}
	}
	for i := range v.Messages {
		for _, p := range v.Messages[i].Parts {
			f.kept[partKey(p)] = append(f.kept[partKey(p)], p)
		}
	}
	if fr, ok := src.Frame.(*docFrame); ok {
		return f.document(fr)
	}
	var out bytes.Buffer
	meta, err := f.metadata(f.session)
	if err != nil {
		return nil, err
	}
	out.Write(meta)
	out.WriteByte('\n')
	line := func(b []byte) {
		out.Write(b)
		out.WriteByte('\n')
	}
	for _, s := range jsonx.PlanFork(v, f.skip()) {
		switch {
		case s.Summary >= 0:
			line(f.newMessage("user", `[{"text":`+quote(v.Summaries[s.Summary].Text)+`}]`))
			if f.needsAck(v.Summaries[s.Summary].Before) {
				line(f.newMessage("gemini", quote(ackText)))
			}
		case s.Record >= 0:
			line(src.Records[s.Record].Raw)
		default:
			for _, k := range f.sources(&v.Messages[s.Message]) {
				b, ok, err := f.record(k)
				if err != nil {
					return nil, err
				}
				if ok {
					if b, err = dropTokens(b); err != nil {
						return nil, fmt.Errorf("fork: record %d: %w", k.rec, err)
					}
				}
				if ok {
					line(b)
				}
			}
		}
	}
	return out.Bytes(), nil
}

// partKey is the record (and $set element) a part was decoded from.
func partKey(p transcript.Part) msgKey {
	elem, _ := splitBlock(p.Ref.Block)
	return msgKey{p.Ref.Record, elem}
}

// sources lists the records (and $set elements) a view message renders
// from, in order: a message decoded from a $set line's messages is
// written as a message line of its own.
func (f *forker) sources(m *transcript.Message) []msgKey {
	var out []msgKey
	seen := map[msgKey]bool{}
	add := func(k msgKey) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, p := range m.Parts {
		add(partKey(p))
	}
	for _, r := range m.Records {
		if !f.isSet(r) {
			add(msgKey{r, -1})
		}
	}
	return out
}

func (f *forker) isSet(r int) bool {
	return r >= 0 && r < len(f.src.Records) && f.src.Records[r].Type == "$set"
}

// setElement returns element elem of the messages array of $set line r.
func (f *forker) setElement(r, elem int) ([]byte, error) {
	var line struct {
		Set struct {
			Messages []json.RawMessage `json:"messages"`
		} `json:"$set"`
	}
	if err := json.Unmarshal(f.src.Records[r].Raw, &line); err != nil {
		return nil, err
	}
	if elem < 0 || elem >= len(line.Set.Messages) {
		return nil, fmt.Errorf("no message %d in its messages", elem)
	}
	return line.Set.Messages[elem], nil
}

type forker struct {
	v     *transcript.View
	src   *transcript.Transcript
	ts    string
	count map[msgKey]int
	kept  map[msgKey][]transcript.Part
	done  map[msgKey]bool
	// session names synthesized messages: <session>-<n>.
	session string
	made    int
}

// skip lists the records a fork must not pass through: everything but
// unknown records that are still part of the conversation.
func (f *forker) skip() map[int]bool {
	current := map[int]bool{}
	if st, ok := f.src.State.(*lineState); ok {
		for _, e := range st.order {
			current[e.rec] = true
		}
	} else {
		for i := range f.src.Records {
			current[i] = true
		}
	}
	skip := map[int]bool{}
	for i, r := range f.src.Records {
		if r.Kind != transcript.RecordUnknown || !current[i] {
			skip[i] = true
		}
	}
	return skip
}

func (f *forker) needsAck(before int) bool {
	return before >= len(f.v.Messages) || f.v.Messages[before].Role != transcript.RoleAssistant
}

// metadata renders the fork's first line from the source's metadata.
func (f *forker) metadata(session string) ([]byte, error) {
	o := &jsonx.Object{}
	for i, r := range f.src.Records {
		if r.Kind == transcript.RecordMeta && r.Type == "metadata" {
			var err error
			if o, err = jsonx.ParseObject(r.Raw); err != nil {
				return nil, fmt.Errorf("fork: metadata record %d: %w", i, err)
			}
			break
		}
	}
	if fr, ok := f.src.Frame.(*docFrame); ok {
		if sp, ok := fr.doc.Member("projectHash"); ok {
			o.SetRaw("projectHash", fr.src[sp.Start:sp.End])
		}
	}
	_ = o.Set("sessionId", session)
	if !o.Has("projectHash") {
		_ = o.Set("projectHash", "")
	}
	_ = o.Set("startTime", f.ts)
	_ = o.Set("lastUpdated", f.ts)
	if !o.Has("kind") {
		_ = o.Set("kind", "main")
	}
	return o.Bytes(), nil
}

func (f *forker) newMessage(typ, content string) []byte {
	o := &jsonx.Object{}
	f.made++
	_ = o.Set("id", fmt.Sprintf("%s-%d", f.session, f.made))
	_ = o.Set("timestamp", f.ts)
	_ = o.Set("type", typ)
	o.SetRaw("content", json.RawMessage(content))
	return o.Bytes()
}

// record renders source record k (a line, or a message of a $set line)
// with the view's parts of it, once.
func (f *forker) record(k msgKey) ([]byte, bool, error) {
	r := k.rec
	if r < 0 || r >= len(f.src.Records) {
		return nil, false, fmt.Errorf("fork: message refers to record %d outside the source", r)
	}
	if f.done[k] {
		return nil, false, nil
	}
	f.done[k] = true
	parts := f.kept[k]
	raw := f.src.Records[r].Raw
	if k.elem >= 0 {
		var err error
		if raw, err = f.setElement(r, k.elem); err != nil {
			return nil, false, fmt.Errorf("fork: record %d: %w", r, err)
		}
		inner := make([]transcript.Part, len(parts))
		for i, p := range parts {
			_, p.Ref.Block = splitBlock(p.Ref.Block)
			inner[i] = p
		}
		parts = inner
	}
	if jsonx.Untouched(parts, f.count[k]) {
		return raw, true, nil
	}
	if len(parts) == 0 {
		return nil, false, nil
	}
	b, err := renderRecord(raw, parts)
	if err != nil {
		return nil, false, fmt.Errorf("fork: record %d: %w", r, err)
	}
	return b, true, nil
}

// dropTokens removes a message's `tokens`: they counted the source's
// context, and the gauge would calibrate the fork on them. A fork's gauge
// is its own count plus the overhead measured on its source.
func dropTokens(raw []byte) ([]byte, error) {
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	if !o.Has("tokens") {
		return raw, nil
	}
	o.Delete("tokens")
	return o.Bytes(), nil
}

// renderRecord rewrites a message or Content record to hold exactly parts.
func renderRecord(raw []byte, parts []transcript.Part) ([]byte, error) {
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	byBlock := map[int]transcript.Part{}
	for _, p := range parts {
		if _, seen := byBlock[p.Ref.Block]; !seen {
			byBlock[p.Ref.Block] = p
		}
	}
	for _, key := range []string{"content", "parts"} {
		c := bytes.TrimSpace(o.Get(key))
		if len(c) == 0 || string(c) == "null" {
			continue
		}
		switch c[0] {
		case '"', '{':
			p, ok := byBlock[-1]
			switch {
			case !ok && c[0] == '"':
				_ = o.Set(key, "")
			case !ok:
				o.SetRaw(key, json.RawMessage("[]"))
			case p.Changed && c[0] == '"':
				_ = o.Set(key, p.Text)
			case p.Changed:
				o.SetRaw(key, genai.RenderPart(c, p))
			}
		case '[':
			els, err := jsonx.ParseArray(c)
			if err != nil {
				return nil, err
			}
			var keep []json.RawMessage
			for k, el := range els {
				p, ok := byBlock[k]
				if !ok {
					if isThought(el) {
						keep = append(keep, el) // as recorded: the model never reads it
					}
					continue
				}
				if p.Changed {
					el = genai.RenderPart(el, p)
				}
				keep = append(keep, el)
			}
			o.SetRaw(key, jsonx.Array(keep))
		}
	}
	if tc := o.Get("toolCalls"); tc != nil {
		els, err := jsonx.ParseArray(tc)
		if err != nil {
			return nil, err
		}
		// The history a resume writes back holds the calls in the content:
		// a toolCalls entry there only carries its results.
		ownCalls := bytes.Contains(o.Get("content"), []byte(`"functionCall"`))
		var keep []json.RawMessage
		for k, el := range els {
			call, okCall := byBlock[blockCall+k]
			res, okRes := byBlock[blockResult+k]
			eo, err := jsonx.ParseObject(el)
			if err != nil || !okCall && !(ownCalls && okRes) {
				continue
			}
			hasResult := len(eo.Get("result")) > 0 && string(eo.Get("result")) != "null"
			if hasResult && !okRes {
				continue
			}
			if call.Changed && json.Valid([]byte(call.Args)) {
				eo.SetRaw("args", json.RawMessage(call.Args))
			}
			if okRes && res.Changed {
				resp := map[string]any{"id": res.ToolCallID, "name": res.ToolName, "response": map[string]any{"output": res.Text}}
				b, _ := jsonx.Marshal([]any{map[string]any{"functionResponse": resp}})
				eo.SetRaw("result", b)
				if rd := eo.Get("resultDisplay"); len(rd) > 0 && rd[0] == '"' {
					_ = eo.Set("resultDisplay", res.Text)
				}
			}
			keep = append(keep, eo.Bytes())
		}
		o.SetRaw("toolCalls", jsonx.Array(keep))
	}
	return o.Bytes(), nil
}

// isThought reports whether an API Part is a thought, which the codec
// does not read as a part (see decodePart).
func isThought(raw []byte) bool {
	var p struct {
		Thought bool `json:"thought"`
	}
	return json.Unmarshal(raw, &p) == nil && p.Thought
}

// document forks a whole-file source into the same document: its record
// array holding the view, and for a legacy session a new sessionId and
// start and update times.
func (f *forker) document(fr *docFrame) ([]byte, error) {
	layout := jsonx.LayoutOf(fr.src, fr.doc)
	var elems []jsonx.Elem
	fresh := func(b []byte) { elems = append(elems, jsonx.Elem{Bytes: layout.Format(b), Source: -1}) }
	content := func(role, text string) []byte {
		o := &jsonx.Object{}
		_ = o.Set("role", role)
		o.SetRaw("parts", json.RawMessage(`[{"text":`+quote(text)+`}]`))
		return o.Bytes()
	}
	for _, s := range jsonx.PlanFork(f.v, f.skip()) {
		switch {
		case s.Summary >= 0:
			text := f.v.Summaries[s.Summary].Text
			if fr.checkpoint {
				fresh(content("user", text))
			} else {
				fresh(f.newMessage("user", `[{"text":`+quote(text)+`}]`))
			}
			if f.needsAck(f.v.Summaries[s.Summary].Before) {
				if fr.checkpoint {
					fresh(content("model", ackText))
				} else {
					fresh(f.newMessage("gemini", quote(ackText)))
				}
			}
		case s.Record >= 0:
			elems = append(elems, jsonx.Elem{Bytes: f.src.Records[s.Record].Raw, Source: s.Record})
		default:
			for _, r := range f.v.Messages[s.Message].Records {
				k := msgKey{r, -1}
				untouched := !f.done[k] && jsonx.Untouched(f.kept[k], f.count[k])
				b, ok, err := f.record(k)
				if err != nil {
					return nil, err
				}
				if ok && !fr.checkpoint {
					var dropped []byte
					if dropped, err = dropTokens(b); err != nil {
						return nil, fmt.Errorf("fork: record %d: %w", r, err)
					}
					untouched = untouched && bytes.Equal(dropped, b)
					b = dropped
				}
				switch {
				case ok && untouched:
					elems = append(elems, jsonx.Elem{Bytes: b, Source: r})
				case ok:
					fresh(b)
				}
			}
		}
	}
	edits := []jsonx.Edit{{Span: fr.doc.Array, Bytes: fr.doc.ArrayBytes(fr.src, layout, elems)}}
	if !fr.checkpoint {
		for key, value := range map[string]string{"sessionId": f.session, "startTime": f.ts, "lastUpdated": f.ts} {
			if sp, ok := fr.doc.Member(key); ok {
				edits = append(edits, jsonx.Edit{Span: sp, Bytes: []byte(quote(value))})
			}
		}
	}
	return jsonx.Splice(fr.src, edits), nil
}

func quote(s string) string {
	b, _ := jsonx.Marshal(s)
	return string(b)
}
