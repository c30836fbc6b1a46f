package claude

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/anthropic"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/transcript"
)

// Fork writes v as a new session: fresh sessionId, a fresh linear uuid
// chain, untouched records byte-identical apart from those ids, changed
// blocks re-rendered, and a compact_boundary plus isCompactSummary records
// where history was cut.
func (Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	src := v.Source
	if src == nil {
		return nil, fmt.Errorf("fork: view has no source transcript")
	}
	w := forkWriter{session: opts.SessionID, ts: opts.Timestamp, meta: src.Meta, keepIDs: opts.InPlace, lastRec: -1}
	if w.session == "" {
		w.session = newid.UUID()
	}
	if w.ts == "" {
		w.ts = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	w.sidechain, w.agentID = ownThread(src)
	if v.Cut || len(v.Summaries) > 0 {
		w.boundary(opts.TokensBefore)
	}
	summaries := v.Summaries
	for i := 0; i <= len(v.Messages); i++ {
		for len(summaries) > 0 && summaries[0].Before <= i {
			w.summary(summaries[0].Text)
			summaries = summaries[1:]
		}
		if i == len(v.Messages) {
			break
		}
		if err := w.message(src, &v.Messages[i]); err != nil {
			return nil, err
		}
	}
	if w.keepIDs {
		if err := w.trailingRows(src); err != nil {
			return nil, err
		}
	}
	return w.out, nil
}

// trailingRows writes, in place, the rows of the active thread after the
// last record written (Claude Code's turn_duration and hook rows under the
// last answer): the agent names the last of them as the parent of its next
// line.
func (w *forkWriter) trailingRows(src *transcript.Transcript) error {
	st, ok := src.State.(*state)
	if !ok {
		return nil
	}
	last := st.lastConv
	if st.mainThread == 0 {
		last = st.lastSide
	}
	var rev []int
	for i, steps := last, 0; i > w.lastRec && steps <= len(st.nodes); steps++ {
		rev = append(rev, i)
		n := &st.nodes[i]
		if !n.hasParent || n.parent == "" {
			break
		}
		p, ok := st.lookup(n.parent)
		if !ok {
			break
		}
		i = p
	}
	for k := len(rev) - 1; k >= 0; k-- {
		r := rev[k]
		o, err := jsonx.ParseObject(src.Records[r].Raw)
		if err != nil {
			return fmt.Errorf("fork: record %d: %w", r, err)
		}
		w.chain(o)
		w.emit(o)
	}
	return nil
}

type forkWriter struct {
	out     []byte
	session string
	ts      string
	parent  string
	meta    transcript.Meta
	// keepIDs keeps the uuids of the records written (in place).
	keepIDs bool
	// lastRec is the last source record written, -1 before any.
	lastRec int
	// sidechain is set when the source is a subagent's own thread (every
	// row a sidechain, agentId naming the agent): the rows the fork adds
	// belong to it too, or Claude Code and the parser would take them for
	// a main thread of their own and the kept rows for a side branch.
	sidechain bool
	agentID   string
	// renamed maps the source uuid of each record written to its uuid in
	// the fork, for the tool results that name the row holding their call
	// (sourceToolAssistantUUID).
	renamed map[string]string
}

// ownThread reports whether src is a subagent's own thread, and its agent.
func ownThread(src *transcript.Transcript) (bool, string) {
	st, ok := src.State.(*state)
	if !ok || st.mainThread > 0 || st.lastSide < 0 {
		return false, ""
	}
	var row struct {
		AgentID string `json:"agentId"`
	}
	json.Unmarshal(src.Records[st.lastSide].Raw, &row)
	return true, row.AgentID
}

func (w *forkWriter) emit(o *jsonx.Object) {
	w.out = append(w.out, o.Bytes()...)
	w.out = append(w.out, '\n')
}

func (w *forkWriter) chain(o *jsonx.Object) {
	id := newid.UUID()
	var old string
	if json.Unmarshal(o.Get("uuid"), &old) == nil && old != "" {
		if w.keepIDs {
			id = old
		}
		if w.renamed == nil {
			w.renamed = map[string]string{}
		}
		w.renamed[old] = id
	}
	if raw := o.Get("sourceToolAssistantUUID"); raw != nil {
		// The row holding the call is in the fork under its new uuid
		// (written before its results); a row the fork left out is
		// named no more.
		var src string
		if json.Unmarshal(raw, &src) == nil && w.renamed[src] != "" {
			_ = o.Set("sourceToolAssistantUUID", w.renamed[src])
		} else {
			o.Delete("sourceToolAssistantUUID")
		}
	}
	if w.parent == "" {
		o.SetRaw("parentUuid", json.RawMessage("null"))
	} else {
		_ = o.Set("parentUuid", w.parent)
	}
	_ = o.Set("sessionId", w.session)
	_ = o.Set("uuid", id)
	w.parent = id
}

func (w *forkWriter) base(typ string) *jsonx.Object {
	o := &jsonx.Object{}
	o.SetRaw("parentUuid", json.RawMessage("null"))
	_ = o.Set("isSidechain", w.sidechain)
	if w.agentID != "" {
		_ = o.Set("agentId", w.agentID)
	}
	_ = o.Set("userType", "external")
	_ = o.Set("cwd", w.meta.Cwd)
	_ = o.Set("sessionId", w.session)
	_ = o.Set("version", w.meta.AgentVersion)
	_ = o.Set("type", typ)
	return o
}

func (w *forkWriter) boundary(preTokens int) {
	o := w.base("system")
	_ = o.Set("subtype", "compact_boundary")
	_ = o.Set("content", "Conversation compacted")
	if w.parent == "" {
		o.SetRaw("logicalParentUuid", json.RawMessage("null"))
	} else {
		_ = o.Set("logicalParentUuid", w.parent)
	}
	_ = o.Set("compactMetadata", map[string]any{"trigger": "manual", "preTokens": preTokens})
	_ = o.Set("level", "info")
	_ = o.Set("timestamp", w.ts)
	id := newid.UUID()
	_ = o.Set("uuid", id)
	w.parent = id
	w.emit(o)
}

func (w *forkWriter) summary(text string) {
	o := w.base("user")
	_ = o.Set("message", map[string]any{"role": "user", "content": text})
	_ = o.Set("isCompactSummary", true)
	_ = o.Set("isVisibleInTranscriptOnly", true)
	_ = o.Set("timestamp", w.ts)
	w.chain(o)
	w.emit(o)
}

// message re-emits the records of one view message, block by block,
// without the API-reported usage (see dropUsage).
func (w *forkWriter) message(src *transcript.Transcript, m *transcript.Message) error {
	for _, r := range m.Records {
		if r < 0 || r >= len(src.Records) {
			return fmt.Errorf("fork: message %s refers to record %d outside the source", m.ID, r)
		}
		o, err := jsonx.ParseObject(src.Records[r].Raw)
		if err != nil {
			return fmt.Errorf("fork: record %d: %w", r, err)
		}
		keep, err := renderRecord(o, r, m.Parts)
		if err != nil {
			return fmt.Errorf("fork: record %d: %w", r, err)
		}
		if !keep {
			continue
		}
		if err := dropUsage(o); err != nil {
			return fmt.Errorf("fork: record %d: %w", r, err)
		}
		w.chain(o)
		w.emit(o)
		w.lastRec = max(w.lastRec, r)
	}
	return nil
}

// dropUsage removes the API-reported usage from a kept assistant record.
// It describes the source's context, not the fork's: left in, the gauge
// (and Claude Code's own auto-compact check, which reads the last usage)
// would show the source's size for the fork. A fork's gauge is its own
// count plus the overhead measured on its source (gauge.Options.Overhead)
// until the agent resumes it and reports usage of its own.
func dropUsage(o *jsonx.Object) error {
	msgRaw := o.Get("message")
	if len(msgRaw) == 0 || msgRaw[0] != '{' {
		return nil
	}
	msg, err := jsonx.ParseObject(msgRaw)
	if err != nil {
		return err
	}
	if !msg.Has("usage") {
		return nil
	}
	msg.Delete("usage")
	o.SetRaw("message", msg.Bytes())
	return nil
}

// renderRecord rewrites record r's content to hold exactly the view's parts
// located in it. It reports false when nothing of the record remains.
func renderRecord(o *jsonx.Object, r int, parts []transcript.Part) (bool, error) {
	var mine []transcript.Part
	for _, p := range parts {
		if p.Ref.Record == r {
			mine = append(mine, p)
		}
	}
	if len(mine) == 0 {
		return false, nil
	}
	msgRaw := o.Get("message")
	if msgRaw == nil {
		return true, nil // attachments and other whole-record parts
	}
	msg, err := jsonx.ParseObject(msgRaw)
	if err != nil {
		return false, err
	}
	content := msg.Get("content")
	if len(content) > 0 && content[0] == '"' || mine[0].Ref.Block < 0 {
		if mine[0].Changed {
			_ = msg.Set("content", mine[0].Text)
			o.SetRaw("message", msg.Bytes())
		}
		return true, nil
	}
	blocks, err := jsonx.ParseArray(content)
	if err != nil {
		return false, err
	}
	var kept []json.RawMessage
	resultTouched := false
	for k, raw := range blocks {
		var here []transcript.Part
		for _, p := range mine {
			if p.Ref.Block == k {
				here = append(here, p)
			}
		}
		isResult := isToolResult(raw)
		if len(here) == 0 {
			resultTouched = resultTouched || isResult
			continue
		}
		if isResult {
			b, touched, err := renderResult(raw, here)
			if err != nil {
				return false, err
			}
			resultTouched = resultTouched || touched
			if b != nil {
				kept = append(kept, b)
			}
			continue
		}
		changed := false
		for _, p := range here {
			changed = changed || p.Changed
		}
		if !changed {
			kept = append(kept, raw)
			continue
		}
		b, err := jsonx.ParseObject(raw)
		if err != nil {
			return false, err
		}
		p := here[0]
		var typ string
		_ = json.Unmarshal(b.Get("type"), &typ)
		if p.Kind == transcript.PartText && typ != "text" {
			// Media a strategy replaced (strip-attachments) becomes the text
			// standing in for it; setting "text" on the image block would
			// keep the image.
			t := &jsonx.Object{}
			_ = t.Set("type", "text")
			_ = t.Set("text", p.Text)
			kept = append(kept, t.Bytes())
			continue
		}
		switch p.Kind {
		case transcript.PartText:
			_ = b.Set("text", p.Text)
		case transcript.PartReasoning:
			_ = b.Set("thinking", p.Text)
		case transcript.PartToolCall:
			if json.Valid([]byte(p.Args)) {
				b.SetRaw("input", json.RawMessage(p.Args))
			}
		}
		kept = append(kept, b.Bytes())
	}
	if len(kept) == 0 {
		return false, nil
	}
	if resultTouched {
		// The sidecar copy of a stripped result would keep the bytes we cut.
		o.Delete("toolUseResult")
	}
	msg.SetRaw("content", jsonx.Array(kept))
	o.SetRaw("message", msg.Bytes())
	return true, nil
}

// renderResult renders a tool_result block from the view's parts in it
// (here: its result and the media nested in its content). An untouched
// result keeps its bytes; one whose text changed, or whose media the view
// dropped (strip-attachments removes an image a Read returned), gets the
// view's text as its content, followed by its media when the view keeps
// them all. touched reports a rewrite.
func renderResult(raw json.RawMessage, here []transcript.Part) (json.RawMessage, bool, error) {
	var res *transcript.Part
	media := 0
	for k := range here {
		switch here[k].Kind {
		case transcript.PartToolResult:
			if res == nil {
				res = &here[k]
			}
		case transcript.PartImage, transcript.PartDocument:
			media++
		}
	}
	if res == nil {
		// Media without the result they sit in is no result: the
		// pairing pass decides about the call.
		return nil, true, nil
	}
	b, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, false, err
	}
	var srcMedia []json.RawMessage
	if content := b.Get("content"); len(content) > 0 && content[0] == '[' {
		elems, err := jsonx.ParseArray(content)
		if err != nil {
			return nil, false, err
		}
		for _, e := range elems {
			var blk struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(e, &blk) == nil && (blk.Type == "image" || blk.Type == "document") {
				srcMedia = append(srcMedia, e)
			}
		}
	}
	if !res.Changed && media == len(srcMedia) {
		return raw, false, nil
	}
	if media == len(srcMedia) && media > 0 {
		var content []json.RawMessage
		if res.Text != "" {
			content = append(content, anthropic.TextBlock(res.Text))
		}
		b.SetRaw("content", jsonx.Array(append(content, srcMedia...)))
	} else {
		_ = b.Set("content", res.Text)
	}
	return b.Bytes(), true, nil
}

func isToolResult(raw json.RawMessage) bool {
	var b struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(raw, &b) == nil && b.Type == "tool_result"
}
