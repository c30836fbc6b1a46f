package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/transcript"
)

// defaultCompactMessage is the compacted record's message when history was
// cut without a summary.
const defaultCompactMessage = "history compacted by compactd"

// Fork writes v as a new rollout: the source's session_meta with a new id
// and forked_from_id, then the view's items. Where history was cut (or the
// view keeps history that only a compacted record of the source holds), a
// compacted record carries the summary and, as replacement_history, every
// item up to the last summary; the remaining items follow as response_item
// lines, byte-exact where unchanged, with the turn_context and event lines
// that accompanied them. token_count events are not copied: they describe
// the old context.
func (Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	src := v.Source
	if src == nil {
		return nil, fmt.Errorf("fork: view has no source transcript")
	}
	w := forkWriter{src: src, id: opts.SessionID, ts: opts.Timestamp}
	if w.id == "" {
		w.id = newid.UUID()
	}
	if w.ts == "" {
		w.ts = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	w.index()

	// Order the view's items, summaries before the message they name.
	var items []forkItem
	var system *transcript.Message
	summariesAt := func(i int) {
		for s := range v.Summaries {
			if b := v.Summaries[s].Before; b == i || (i == len(v.Messages) && (b < 0 || b > i)) {
				items = append(items, forkItem{rec: -1, summary: v.Summaries[s].Text, isSummary: true})
			}
		}
	}
	for i := range v.Messages {
		summariesAt(i)
		m := &v.Messages[i]
		if len(m.Parts) == 0 {
			continue
		}
		it, err := w.item(m)
		if err != nil {
			return nil, err
		}
		if it.system {
			system = m
			continue
		}
		items = append(items, it)
	}
	summariesAt(len(v.Messages))

	// Everything up to the last summary, or the last item only a compacted
	// record can hold, goes into the new compacted record.
	cut := -1
	for i, it := range items {
		if it.isSummary || it.fromCompacted {
			cut = i
		}
	}
	// A fork that leaves out context the source sent (a cut, a dropped
	// environment or permissions message) must make the resumed Codex
	// send it again, as Codex's own truncated forks do: a compacted record
	// clears the context baseline, and no turn_context or world_state
	// after it sets one that claims the dropped context was sent.
	w.rebuild = rebuilds(v) // cut >= 0 with it: a summary, or an item only a compacted record holds
	compact := w.rebuild

	meta, err := w.sessionMeta(system)
	if err != nil {
		return nil, err
	}
	w.line(meta)
	rest := items[cut+1:]
	first := len(src.Records)
	if len(rest) > 0 && rest[0].rec >= 0 {
		first = rest[0].rec
	}
	if tc := w.turnContextBefore(first, compact); tc >= 0 {
		w.line(src.Records[tc].Raw)
		w.emitted[tc] = true
	}
	if compact {
		w.compacted(items[:cut+1])
	}
	lastKept := -1
	for _, it := range rest {
		if it.rec >= 0 {
			w.passthrough(w.before[it.rec])
		}
		w.line(it.line)
		if it.rec >= 0 {
			w.passthrough(w.after[it.rec])
			lastKept = it.rec
		}
	}
	if lastKept >= 0 && lastKept == w.lastOwned {
		w.passthrough(w.tail)
	}
	return w.out, nil
}

// A forkItem is one model-visible item of the fork.
type forkItem struct {
	// rec is the source response_item line the item comes from, or -1.
	rec int
	// payload is the item's JSON; line is its whole rollout line.
	payload, line []byte
	// summary is the text of a summary item.
	summary   string
	isSummary bool
	// fromCompacted marks items only a source compacted record holds.
	fromCompacted bool
	// system marks the base instructions, which live in session_meta.
	system bool
}

type forkWriter struct {
	src    *transcript.Transcript
	id, ts string
	out    []byte
	// byItem finds a source message by (record, replacement item index),
	// the index being -1 for a response_item line.
	byItem map[[2]int]*transcript.Message
	// before and after are the source lines that travel with a response
	// item: turn_context and events before it, the user_message event
	// that repeats it after it. tail follows the last item.
	before, after map[int][]int
	tail          []int
	lastOwned     int
	turnContexts  []int
	emitted       map[int]bool
	// rebuild leaves out the source's context baselines after the fork's
	// compacted record.
	rebuild bool
}

func (w *forkWriter) line(b []byte) {
	w.out = append(w.out, b...)
	w.out = append(w.out, '\n')
}

func (w *forkWriter) passthrough(recs []int) {
	for _, r := range recs {
		if w.rebuild && isBaseline(w.src.Records[r].Type) {
			continue
		}
		if !w.emitted[r] {
			w.line(w.src.Records[r].Raw)
			w.emitted[r] = true
		}
	}
}

// index maps the source: which message each record holds and which lines
// travel with which item.
func (w *forkWriter) index() {
	src := w.src
	w.byItem = map[[2]int]*transcript.Message{}
	owned := map[int]bool{}
	for i := range src.Messages {
		m := &src.Messages[i]
		if len(m.Records) == 0 || len(m.Parts) == 0 {
			continue
		}
		r := m.Records[0]
		if r < 0 || r >= len(src.Records) {
			continue
		}
		switch src.Records[r].Type {
		case typeCompacted:
			w.byItem[[2]int{r, m.Parts[0].Ref.Block}] = m
		case typeSessionMeta:
		default:
			w.byItem[[2]int{r, -1}] = m
			owned[r] = true
		}
	}
	w.before, w.after, w.emitted = map[int][]int{}, map[int][]int{}, map[int]bool{}
	w.lastOwned = -1
	var pending []int
	// unread is where in pending the first item the history does not
	// hold came (one a rollback took back), -1 while there is none.
	unread := -1
	for r := range src.Records {
		rec := &src.Records[r]
		if owned[r] {
			w.before[r] = pending
			pending, unread = nil, -1
			w.lastOwned = r
			continue
		}
		switch {
		case rec.Type == typeCompacted:
			// What came before was replaced, with the lines around it.
			pending, unread = nil, -1
			continue
		case rec.Kind == transcript.RecordMessage && rec.Type != typeSessionMeta:
			// An item a compaction replaced or a rollback took back.
			if unread < 0 {
				unread = len(pending)
			}
			continue
		case rec.Kind == transcript.RecordMalformed || rec.Kind == transcript.RecordMessage || rec.Type == typeSessionMeta:
			// Garbage, and the meta the fork writes itself.
			continue
		}
		if rec.Type == typeTurnContext {
			w.turnContexts = append(w.turnContexts, r)
		}
		if rec.Type == typeTokenUsageRecord {
			continue // the source's cumulative usage, as token_count
		}
		if rec.Type == typeEventMsg {
			switch eventType(rec.Raw) {
			case "token_count":
				continue // describes the old context
			case "thread_rolled_back":
				// The source's messages are read with the rollback
				// applied and the fork holds no turn it took back: in
				// the fork it would take back turns the user kept. The
				// lines of the turns it took back go too (their user
				// message events, and the turn context before them).
				if unread >= 0 {
					pending = pending[:unread]
					for len(pending) > 0 && startsTurnLine(&src.Records[pending[len(pending)-1]]) {
						pending = pending[:len(pending)-1]
					}
				}
				unread = -1
				continue
			case "user_message":
				// Written after the item it repeats.
				if w.lastOwned >= 0 && len(pending) == 0 {
					w.after[w.lastOwned] = append(w.after[w.lastOwned], r)
					continue
				}
			}
		}
		pending = append(pending, r)
	}
	w.tail = pending
}

// Rollout line types that set the context baseline a resumed Codex diffs
// the next turn's context against, and its cumulative usage record.
const (
	typeWorldState       = "world_state"
	typeTokenUsageRecord = "token_usage_record"
)

func isBaseline(typ string) bool { return typ == typeTurnContext || typ == typeWorldState }

// startsTurnLine reports whether rec is a line Codex writes as a turn
// begins, before the user's message: its context baseline, task_started.
func startsTurnLine(rec *transcript.Record) bool {
	return isBaseline(rec.Type) || rec.Type == typeEventMsg && eventType(rec.Raw) == "task_started"
}

// rebuilds reports whether the fork of v clears the context baseline:
// history cut or summarized, history only a source compacted record holds
// kept, or injected context left out (see Fork).
func rebuilds(v *transcript.View) bool {
	if v.Cut || len(v.Summaries) > 0 || droppedContext(v) {
		return true
	}
	for i := range v.Messages {
		m := &v.Messages[i]
		if len(m.Parts) > 0 && len(m.Records) > 0 && m.Records[0] >= 0 && m.Records[0] < len(v.Source.Records) && v.Source.Records[m.Records[0]].Type == typeCompacted {
			return true
		}
	}
	return false
}

// Resent implements format.Resender. A fork that clears the context
// baseline makes the resumed Codex send its initial context at the next
// turn — developer instructions (permissions, skills), AGENTS.md, the
// environment — as after its own compaction: the source's latest message
// of each kind stands for what it sends.
func (Codec) Resent(v *transcript.View) []transcript.Message {
	if v.Source == nil || !rebuilds(v) {
		return nil
	}
	latest := map[string]int{}
	var order []string
	for i := range v.Source.Messages {
		m := &v.Source.Messages[i]
		kind, ok := initialContext(m)
		if !ok {
			continue
		}
		if _, seen := latest[kind]; !seen {
			order = append(order, kind)
		}
		latest[kind] = i
	}
	var out []transcript.Message
	for _, k := range order {
		out = append(out, v.Source.Messages[latest[k]])
	}
	return out
}

// initialContextPrefixes open the user messages of Codex's initial context.
var initialContextPrefixes = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions"}

// initialContext reports whether m is a message of Codex's initial
// context, and which kind: a developer message (by its opening), or a
// user message of environment or AGENTS.md instructions.
func initialContext(m *transcript.Message) (string, bool) {
	if len(m.Parts) == 0 || m.Parts[0].Kind != transcript.PartText {
		return "", false
	}
	text := strings.TrimSpace(m.Parts[0].Text)
	switch {
	case m.Role == transcript.RoleDeveloper:
		return "developer " + firstLine(text), true
	case m.Role == transcript.RoleUser && m.Origin == transcript.OriginInjected:
		for _, p := range initialContextPrefixes {
			if strings.HasPrefix(text, p) {
				return p, true
			}
		}
	}
	return "", false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// droppedContext reports whether the view leaves out (or rewrites) a
// message of context the harness injected: the environment, permissions,
// AGENTS.md instructions.
func droppedContext(v *transcript.View) bool {
	key := func(m *transcript.Message) [2]int {
		k := [2]int{-1, -1}
		if len(m.Records) > 0 {
			k[0] = m.Records[0]
		}
		if len(m.Parts) > 0 {
			k[1] = m.Parts[0].Ref.Block
		}
		return k
	}
	kept := map[[2]int]bool{}
	for i := range v.Messages {
		m := &v.Messages[i]
		changed := false
		for _, p := range m.Parts {
			changed = changed || p.Changed
		}
		if !changed {
			kept[key(m)] = true
		}
	}
	for i := range v.Source.Messages {
		m := &v.Source.Messages[i]
		if m.Role == transcript.RoleSystem || len(m.Parts) == 0 {
			continue
		}
		if (m.Origin == transcript.OriginInjected || m.Role == transcript.RoleDeveloper) && !kept[key(m)] {
			return true
		}
	}
	return false
}

func eventType(raw []byte) string {
	var e struct {
		Payload struct {
			Type string `json:"type"`
		} `json:"payload"`
	}
	_ = unmarshal(raw, &e)
	return e.Payload.Type
}

// turnContextBefore returns the last turn_context line before record
// first when the lines copied with the first item do not bring one, so
// the fork's items keep their model; -1 when none is needed. Before a
// compacted record one is always wanted: the replacement history's items
// belong to a turn too.
func (w *forkWriter) turnContextBefore(first int, compact bool) int {
	for _, r := range w.before[first] {
		if w.src.Records[r].Type == typeTurnContext && !compact {
			return -1
		}
	}
	last := -1
	for _, r := range w.turnContexts {
		if r < first {
			last = r
		}
	}
	return last
}

// item renders one view message as a fork item.
func (w *forkWriter) item(m *transcript.Message) (forkItem, error) {
	if len(m.Records) == 0 {
		payload, err := freshItem(m)
		return forkItem{rec: -1, payload: payload, line: w.envelope(typeResponseItem, payload)}, err
	}
	r := m.Records[0]
	if r < 0 || r >= len(w.src.Records) {
		return forkItem{}, fmt.Errorf("fork: message %q refers to record %d outside the source", m.ID, r)
	}
	rec := &w.src.Records[r]
	switch rec.Type {
	case typeSessionMeta:
		return forkItem{system: true}, nil
	case typeCompacted:
		return w.compactedItem(m, r)
	}
	o, err := jsonx.ParseObject(rec.Raw)
	if err != nil {
		return forkItem{}, fmt.Errorf("fork: record %d: %w", r, err)
	}
	payload, bare := o.Get("payload"), false
	if payload == nil {
		payload, bare = rec.Raw, true
	}
	source := w.byItem[[2]int{r, -1}]
	var sourceParts []transcript.Part
	if source != nil {
		sourceParts = source.Parts
	}
	out, changed, err := renderItem(payload, sourceParts, m)
	if err != nil {
		return forkItem{}, fmt.Errorf("fork: record %d: %w", r, err)
	}
	it := forkItem{rec: r, payload: out}
	switch {
	case bare:
		it.line = w.envelope(typeResponseItem, out)
	case changed:
		o.SetRaw("payload", out)
		it.line = o.Bytes()
	default:
		it.line = rec.Raw
	}
	return it, nil
}

// compactedItem renders a message a source compacted record holds: one of
// its replacement_history items, or its summary.
func (w *forkWriter) compactedItem(m *transcript.Message, r int) (forkItem, error) {
	k := m.Parts[0].Ref.Block
	if k < 0 {
		text := m.Parts[0].Text
		return forkItem{rec: -1, summary: text, isSummary: true, fromCompacted: true}, nil
	}
	o, err := jsonx.ParseObject(w.src.Records[r].Raw)
	if err != nil {
		return forkItem{}, fmt.Errorf("fork: record %d: %w", r, err)
	}
	p, err := jsonx.ParseObject(o.Get("payload"))
	if err != nil {
		return forkItem{}, fmt.Errorf("fork: record %d: %w", r, err)
	}
	hist, err := jsonx.ParseArray(p.Get("replacement_history"))
	if err != nil || k >= len(hist) {
		return forkItem{}, fmt.Errorf("fork: record %d has no replacement item %d", r, k)
	}
	// Parts of replacement items all carry the item index: find which
	// content block each kept part is by decoding the item again.
	var it item
	_ = unmarshal(hist[k], &it)
	full, _ := itemMessage(&it, refs{rec: r, fixed: noFixedBlock})
	var sourceParts []transcript.Part
	if source := w.byItem[[2]int{r, k}]; source != nil {
		sourceParts = full.Parts
	}
	located := *m
	located.Parts = locate(m.Parts, full.Parts)
	out, _, err := renderItem(hist[k], sourceParts, &located)
	if err != nil {
		return forkItem{}, fmt.Errorf("fork: record %d item %d: %w", r, k, err)
	}
	summary := m.Origin == transcript.OriginSummary
	return forkItem{rec: -1, payload: out, fromCompacted: true, isSummary: summary, summary: textOf(m)}, nil
}

// locate gives kept parts the refs of the source parts they match, in
// order: a part matches the next source part of its kind that it equals
// or replaces.
func locate(kept, source []transcript.Part) []transcript.Part {
	out := make([]transcript.Part, len(kept))
	j := 0
	for i, p := range kept {
		out[i] = p
		for ; j < len(source); j++ {
			s := source[j]
			if s.Kind == p.Kind && (p.Changed || s.Text == p.Text) {
				out[i].Ref = s.Ref
				j++
				break
			}
		}
	}
	return out
}

func textOf(m *transcript.Message) string {
	for _, p := range m.Parts {
		if p.Kind == transcript.PartText {
			return p.Text
		}
	}
	return ""
}

// envelope wraps a payload in a rollout line stamped with the fork's time.
func (w *forkWriter) envelope(typ string, payload []byte) []byte {
	o := &jsonx.Object{}
	_ = o.Set("timestamp", w.ts)
	_ = o.Set("type", typ)
	o.SetRaw("payload", payload)
	return o.Bytes()
}

// compacted writes the record that replaces the history with items.
func (w *forkWriter) compacted(items []forkItem) {
	message := defaultCompactMessage
	hist := make([]json.RawMessage, 0, len(items))
	for _, it := range items {
		payload := it.payload
		if payload == nil && it.isSummary {
			payload = userMessage(it.summary)
		}
		if it.isSummary && it.summary != "" {
			message = it.summary
		}
		hist = append(hist, payload)
	}
	p := &jsonx.Object{}
	_ = p.Set("message", message)
	p.SetRaw("replacement_history", jsonx.Array(hist))
	w.line(w.envelope(typeCompacted, p.Bytes()))
}

// sessionMeta renders the fork's first line from the source's first
// session_meta: new id, forked_from_id, and the base instructions as the
// view has them.
func (w *forkWriter) sessionMeta(system *transcript.Message) ([]byte, error) {
	src := w.src
	metaRec := -1
	for r := range src.Records {
		if src.Records[r].Type == typeSessionMeta && src.Records[r].Kind != transcript.RecordUnknown {
			metaRec = r
			break
		}
	}
	var env, p *jsonx.Object
	if metaRec >= 0 {
		o, err := jsonx.ParseObject(src.Records[metaRec].Raw)
		if err != nil {
			return nil, fmt.Errorf("fork: session_meta: %w", err)
		}
		payload := o.Get("payload")
		if payload == nil {
			payload = src.Records[metaRec].Raw // an older rollout's bare meta line
		} else {
			env = o
		}
		if p, err = jsonx.ParseObject(payload); err != nil {
			return nil, fmt.Errorf("fork: session_meta payload: %w", err)
		}
	} else {
		p = &jsonx.Object{}
		_ = p.Set("timestamp", w.ts)
		_ = p.Set("cwd", src.Meta.Cwd)
		_ = p.Set("originator", "compactd")
		_ = p.Set("cli_version", src.Meta.AgentVersion)
	}
	_ = p.Set("id", w.id)
	if p.Has("session_id") {
		_ = p.Set("session_id", w.id)
	}
	if src.Meta.SessionID != "" {
		_ = p.Set("forked_from_id", src.Meta.SessionID)
	}
	switch {
	case system == nil:
		p.Delete("base_instructions")
		p.Delete("instructions")
	case !system.Parts[0].Changed && len(system.Parts) == 1 && system.Parts[0].Kind == transcript.PartText:
		// unchanged
	default:
		text := textOf(system)
		if bi := bytes.TrimSpace(p.Get("base_instructions")); len(bi) > 0 && bi[0] == '{' {
			o, err := jsonx.ParseObject(bi)
			if err != nil {
				return nil, fmt.Errorf("fork: base_instructions: %w", err)
			}
			_ = o.Set("text", text)
			p.SetRaw("base_instructions", o.Bytes())
		} else if p.Has("instructions") && !p.Has("base_instructions") {
			_ = p.Set("instructions", text)
		} else {
			_ = p.Set("base_instructions", struct {
				Text string `json:"text"`
			}{text})
		}
	}
	if env == nil {
		return w.envelope(typeSessionMeta, p.Bytes()), nil
	}
	env.SetRaw("payload", p.Bytes())
	return env.Bytes(), nil
}

// renderItem rewrites one response item to hold exactly the view message's
// parts. It reports whether anything changed. Encrypted content is never
// re-encoded: members the codec does not touch keep their bytes.
func renderItem(payload []byte, source []transcript.Part, m *transcript.Message) ([]byte, bool, error) {
	kept := m.Parts
	if jsonx.Untouched(kept, len(source)) && sameKinds(kept, source) {
		return payload, false, nil
	}
	for _, p := range kept {
		if p.Signed && p.Changed {
			return nil, false, fmt.Errorf("encrypted reasoning was altered: it may be dropped, never changed")
		}
	}
	o, err := jsonx.ParseObject(payload)
	if err != nil {
		return nil, false, err
	}
	var it item
	_ = unmarshal(payload, &it)
	if lostResult(kept, source) {
		out, err := leftoverMessage(o, kept)
		return out, true, err
	}
	if !fitsSource(kept, sourceKinds(source, kept)) {
		out, err := freshItem(m)
		return out, true, err
	}
	switch it.Type {
	case "message", "agent_message":
		err = renderContent(o, kept, it.Role)
	case "reasoning":
		_ = o.Set("summary", []textBlock{{"summary_text", kept[0].Text}})
	case "function_call":
		_ = o.Set("arguments", kept[0].Args)
	case "custom_tool_call":
		_ = o.Set("input", kept[0].Args)
	case "local_shell_call", "web_search_call", "image_generation_call", "tool_search_call":
		if json.Valid([]byte(kept[0].Args)) {
			key := "action"
			if !o.Has("action") && o.Has("arguments") {
				key = "arguments"
			}
			o.SetRaw(key, json.RawMessage(kept[0].Args))
		}
	case "tool_search_output":
		// The tool definitions it loaded stay whole: the calls after it
		// name those tools. (Dropped with its call, it goes whole too.)
		return payload, false, nil
	default:
		if kept[0].Kind == transcript.PartToolResult {
			err = renderOutput(o, kept)
		}
	}
	if err != nil {
		return nil, false, err
	}
	return o.Bytes(), true, nil
}

// fitsSource reports whether the item the kept parts came from can hold
// them: each part of its source's kind, or a text stand-in for an image or
// document block (compactd's placeholder for an attachment it stripped),
// which takes that block's place. A tool output rendered any other way
// would lose its call_id, and its call its result.
func fitsSource(kept, source []transcript.Part) bool {
	if len(kept) != len(source) {
		return false
	}
	for i := range kept {
		if kept[i].Kind != source[i].Kind && !standsIn(&kept[i], &source[i]) {
			return false
		}
	}
	return true
}

// lostResult reports whether kept are what is left of a tool output
// without its result (an image the output held, or its stand-in, the call
// and the result cut): no longer the output of any call.
func lostResult(kept, source []transcript.Part) bool {
	return len(source) > 0 && source[0].Kind == transcript.PartToolResult && kept[0].Kind != transcript.PartToolResult
}

// leftoverMessage writes what is left of a tool output without its result
// as a user message: stand-ins as input_text blocks, images as the
// output's own blocks.
func leftoverMessage(o *jsonx.Object, kept []transcript.Part) ([]byte, error) {
	out := bytes.TrimSpace(o.Get("output"))
	var blocks []json.RawMessage
	switch {
	case len(out) > 0 && out[0] == '[':
		blocks, _ = jsonx.ParseArray(out)
	case len(out) > 0 && out[0] == '{':
		blocks = []json.RawMessage{out}
	}
	content := make([]json.RawMessage, 0, len(kept))
	for _, p := range kept {
		if p.Kind == transcript.PartImage && p.Ref.Block >= 0 && p.Ref.Block < len(blocks) {
			content = append(content, blocks[p.Ref.Block])
			continue
		}
		if p.Kind != transcript.PartText {
			continue
		}
		t, err := jsonx.Marshal(textBlock{"input_text", p.Text})
		if err != nil {
			return nil, err
		}
		content = append(content, t)
	}
	if len(content) == 0 {
		return nil, fmt.Errorf("fork: a tool output without its result holds nothing the rollout can hold")
	}
	msg := &jsonx.Object{}
	_ = msg.Set("type", "message")
	_ = msg.Set("role", "user")
	msg.SetRaw("content", jsonx.Array(content))
	return msg.Bytes(), nil
}

// standsIn reports whether p is a text stand-in for the attachment s.
func standsIn(p, s *transcript.Part) bool {
	return p.Kind == transcript.PartText && p.Changed && (s.Kind == transcript.PartImage || s.Kind == transcript.PartDocument)
}

func sameKinds(a, b []transcript.Part) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind != b[i].Kind {
			return false
		}
	}
	return true
}

// sourceKinds returns the source parts the kept parts stand in for, by ref.
func sourceKinds(source, kept []transcript.Part) []transcript.Part {
	out := make([]transcript.Part, 0, len(kept))
	for _, p := range kept {
		for _, s := range source {
			if s.Ref == p.Ref {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// renderContent keeps the content blocks that kept parts name, rewriting
// changed text; a text stand-in for an image becomes a text block of the
// message's role in the image's place.
func renderContent(o *jsonx.Object, kept []transcript.Part, role string) error {
	content := bytes.TrimSpace(o.Get("content"))
	if len(content) > 0 && content[0] == '"' {
		return o.Set("content", kept[0].Text)
	}
	blocks, err := jsonx.ParseArray(content)
	if err != nil {
		return err
	}
	out := make([]json.RawMessage, 0, len(kept))
	for _, p := range kept {
		k := p.Ref.Block
		if k < 0 || k >= len(blocks) {
			return fmt.Errorf("content block %d out of range", k)
		}
		if !p.Changed {
			out = append(out, blocks[k])
			continue
		}
		if p.Kind == transcript.PartText && blockPart(blocks[k], transcript.Ref{}).Kind != transcript.PartText {
			typ := "input_text"
			if role == "assistant" {
				typ = "output_text"
			}
			t, err := jsonx.Marshal(textBlock{typ, p.Text})
			if err != nil {
				return err
			}
			out = append(out, t)
			continue
		}
		b, err := jsonx.ParseObject(blocks[k])
		if err != nil {
			return err
		}
		_ = b.Set("text", p.Text)
		out = append(out, b.Bytes())
	}
	o.SetRaw("content", jsonx.Array(out))
	return nil
}

// renderOutput rewrites a tool output: a string output becomes the kept
// text; a list (or one content item, which becomes a list) keeps the kept
// images, puts an input_text block with its stand-in where an image was
// replaced by one, and holds the text in one block.
func renderOutput(o *jsonx.Object, kept []transcript.Part) error {
	res := kept[0]
	out := bytes.TrimSpace(o.Get("output"))
	var blocks []json.RawMessage
	switch {
	case len(out) > 0 && out[0] == '[':
		var err error
		if blocks, err = jsonx.ParseArray(out); err != nil {
			return err
		}
	case len(out) > 0 && out[0] == '{' && blockPart(out, transcript.Ref{}).Kind != transcript.PartOpaque:
		// One content item (Codex 0.146 wrote some outputs so); an
		// object of another shape (early builds' {content, success})
		// becomes the text.
		blocks = []json.RawMessage{out}
	default:
		return o.Set("output", res.Text)
	}
	keepImage := map[int]bool{}
	standIn := map[int]string{}
	for _, p := range kept[1:] {
		if p.Kind == transcript.PartText {
			standIn[p.Ref.Block] = p.Text
		} else {
			keepImage[p.Ref.Block] = true
		}
	}
	var list []json.RawMessage
	textDone := false
	for k, raw := range blocks {
		switch blockPart(raw, transcript.Ref{}).Kind {
		case transcript.PartImage:
			if keepImage[k] {
				list = append(list, raw)
			} else if text, ok := standIn[k]; ok {
				t, err := jsonx.Marshal(textBlock{"input_text", text})
				if err != nil {
					return err
				}
				list = append(list, t)
			}
		case transcript.PartText:
			if !textDone && res.Text != "" {
				b, err := jsonx.ParseObject(raw)
				if err != nil {
					return err
				}
				_ = b.Set("text", res.Text)
				list = append(list, b.Bytes())
			}
			textDone = true
		}
	}
	if !textDone && res.Text != "" {
		t, _ := jsonx.Marshal(textBlock{"input_text", res.Text})
		list = append([]json.RawMessage{t}, list...)
	}
	if list == nil {
		list = []json.RawMessage{}
	}
	o.SetRaw("output", jsonx.Array(list))
	return nil
}

// freshItem renders a message the source does not hold as it stands (a
// strategy's stand-in text) as a message item of its role.
func freshItem(m *transcript.Message) ([]byte, error) {
	role := string(m.Role)
	kind := "input_text"
	switch m.Role {
	case transcript.RoleAssistant:
		kind = "output_text"
	case transcript.RoleTool:
		role = "user"
	}
	var content []textBlock
	for _, p := range m.Parts {
		if p.Kind == transcript.PartText || p.Kind == transcript.PartToolResult {
			content = append(content, textBlock{kind, p.Text})
		}
	}
	if content == nil {
		return nil, fmt.Errorf("fork: message %q has no text the rollout can hold", m.ID)
	}
	return jsonx.Marshal(messageItem{"message", role, content})
}

// messageItem and textBlock render new items with Codex's key order.
type messageItem struct {
	Type    string      `json:"type"`
	Role    string      `json:"role"`
	Content []textBlock `json:"content"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func userMessage(text string) []byte {
	b, _ := jsonx.Marshal(messageItem{"message", "user", []textBlock{{"input_text", text}}})
	return b
}
