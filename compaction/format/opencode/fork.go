package opencode

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// ids makes opencode identifiers: prefix_ + 12 hex digits of
// (milliseconds·4096 + counter) + 14 base62 characters; session ids
// invert the hex part so newer sessions sort first. opencode orders
// messages by creation time then id, and parts by id, so ids made in
// writing order keep the fork's order. The random part derives from the
// fork's seed, so a fork is written the same way twice.
type ids struct {
	seed    string
	ms      int64
	counter int64
	n       int
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func (g *ids) next(prefix string, descending bool) string {
	g.counter++
	g.n++
	v := uint64(g.ms)*0x1000 + uint64(g.counter)
	if descending {
		v = ^v
	}
	v &= 1<<48 - 1
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", g.seed, g.n)))
	var r [14]byte
	for i := range r {
		r[i] = base62[int(sum[i])%62]
	}
	return fmt.Sprintf("%s_%012x%s", prefix, v, r[:])
}

// Fork implements format.Codec: a new export document — the source's
// session info under a new id, then the view's messages with fresh
// message and part ids (opencode import skips rows whose id exists) and
// parentID links remapped. A summary before the first message is written
// as opencode's own compaction: a user message with a compaction part
// answered by an assistant message with summary: true; elsewhere it is a
// user text message. Usage (assistant tokens, step-finish tokens) is
// zeroed: it counted the source's context (a fork's gauge is its own count
// plus the overhead measured on the source).
func (c Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	src := v.Source
	fr, ok := src.Frame.(*frame)
	if src == nil || !ok {
		return nil, fmt.Errorf("fork: the view's source was not parsed by the %s codec", c.Agent)
	}
	now := time.Now().UTC()
	if opts.Timestamp != "" {
		if ts, err := time.Parse(time.RFC3339Nano, opts.Timestamp); err == nil {
			now = ts
		}
	}
	seed := opts.SessionID
	if seed == "" {
		seed = fmt.Sprint(now.UnixNano())
	}
	g := &ids{seed: seed, ms: now.UnixMilli()}
	session := opts.SessionID
	if !strings.HasPrefix(session, "ses_") {
		session = g.next("ses", true)
	}
	f := &forker{c: c, v: v, src: src, g: g, session: session, now: now.UnixMilli(), msgIDs: map[string]string{}}
	info, err := f.info(fr)
	if err != nil {
		return nil, err
	}
	f.template()
	kept := map[int][]transcript.Part{}
	first := map[int]int{}
	for i := range v.Messages {
		for _, r := range v.Messages[i].Records {
			if _, seen := first[r]; !seen {
				first[r] = i
			}
		}
		for _, p := range v.Messages[i].Parts {
			kept[p.Ref.Record] = append(kept[p.Ref.Record], p)
		}
	}
	var msgs []json.RawMessage
	summary := func(s transcript.Summary) {
		if len(msgs) == 0 {
			msgs = append(msgs, f.compaction(s.Text)...)
		} else {
			msgs = append(msgs, f.userText(s.Text))
		}
	}
	for i := range v.Messages {
		for _, s := range v.Summaries {
			if s.Before == i {
				summary(s)
			}
		}
		for _, r := range v.Messages[i].Records {
			if first[r] != i {
				continue
			}
			if r < 0 || r >= len(src.Records) {
				return nil, fmt.Errorf("fork: message refers to record %d outside the source", r)
			}
			b, ok, err := f.record(r, kept[r], true)
			if err != nil {
				return nil, err
			}
			if ok {
				msgs = append(msgs, b)
			}
		}
	}
	for _, s := range v.Summaries {
		if s.Before < 0 || s.Before >= len(v.Messages) {
			summary(s)
		}
	}
	doc := &jsonx.Object{}
	doc.SetRaw("info", info)
	doc.SetRaw("messages", jsonx.Array(msgs))
	var out bytes.Buffer
	if err := json.Indent(&out, doc.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

type forker struct {
	c       Codec
	v       *transcript.View
	src     *transcript.Transcript
	g       *ids
	session string
	now     int64
	// msgIDs maps source message ids to the fork's.
	msgIDs map[string]string
	// lastUser is the fork's last user message id, for parentID links.
	lastUser string
	// lastTime is the creation time of the last message written.
	lastTime int64
	// the agent and model a synthesized message names.
	agent, providerID, modelID, cwd string
}

// info renders the session: the source's, under the new id.
func (f *forker) info(fr *frame) (json.RawMessage, error) {
	sp, ok := fr.doc.Member("info")
	if !ok {
		return nil, fmt.Errorf("fork: the source export has no info")
	}
	o, err := jsonx.ParseObject(fr.src[sp.Start:sp.End])
	if err != nil {
		return nil, fmt.Errorf("fork: session info: %w", err)
	}
	_ = o.Set("id", f.session)
	var title string
	_ = json.Unmarshal(o.Get("title"), &title)
	if !strings.Contains(title, "(compacted)") {
		_ = o.Set("title", strings.TrimSpace(title+" (compacted)"))
	}
	_ = o.Set("time", map[string]int64{"created": f.now, "updated": f.now})
	for _, k := range []string{"share", "revert", "parentID"} {
		o.Delete(k)
	}
	return o.Bytes(), nil
}

// template finds the agent and model synthesized messages name.
func (f *forker) template() {
	f.agent, f.cwd = "build", f.src.Meta.Cwd
	for _, r := range f.src.Records {
		var w wireMessage
		if json.Unmarshal(r.Raw, &w) != nil {
			continue
		}
		var extra struct {
			Agent string `json:"agent"`
			Model struct {
				ProviderID string `json:"providerID"`
				ModelID    string `json:"modelID"`
			} `json:"model"`
		}
		_ = json.Unmarshal(mustInfo(r.Raw), &extra)
		if w.Info.Role == "user" && extra.Agent != "" {
			f.agent = extra.Agent
		}
		if extra.Model.ModelID != "" {
			f.providerID, f.modelID = extra.Model.ProviderID, extra.Model.ModelID
		}
		if w.Info.ModelID != "" {
			f.providerID, f.modelID = w.Info.ProviderID, w.Info.ModelID
		}
	}
}

func mustInfo(raw []byte) json.RawMessage {
	var m struct {
		Info json.RawMessage `json:"info"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.Info
}

func (f *forker) stamp() int64 {
	if f.lastTime == 0 {
		f.lastTime = f.firstTime() - 2
	}
	return f.lastTime
}

// firstTime is the creation time of the view's first message.
func (f *forker) firstTime() int64 {
	for _, m := range f.v.Messages {
		if !m.Timestamp.IsZero() {
			return m.Timestamp.UnixMilli()
		}
	}
	return f.now
}

func (f *forker) part(msgID string, fields map[string]any) json.RawMessage {
	fields["id"] = f.g.next("prt", false)
	fields["sessionID"] = f.session
	fields["messageID"] = msgID
	b, _ := jsonx.Marshal(fields)
	return b
}

// compaction writes opencode's own compaction: the prompt and the summary.
func (f *forker) compaction(text string) []json.RawMessage {
	t := f.stamp()
	userID := f.g.next("msg", false)
	model := map[string]any{"providerID": f.providerID, "modelID": f.modelID}
	user := map[string]any{"info": map[string]any{"id": userID, "sessionID": f.session, "role": "user", "time": map[string]any{"created": t},
		"agent": f.agent, "model": model},
		"parts": []json.RawMessage{f.part(userID, map[string]any{"type": "compaction", "auto": false})}}
	asstID := f.g.next("msg", false)
	zero := map[string]any{"total": 0, "input": 0, "output": 0, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}}
	asst := map[string]any{"info": map[string]any{"id": asstID, "sessionID": f.session, "parentID": userID, "role": "assistant", "mode": "compaction",
		"agent": "compaction", "summary": true, "path": map[string]any{"cwd": f.cwd, "root": "/"}, "cost": 0, "tokens": zero,
		"modelID": f.modelID, "providerID": f.providerID, "time": map[string]any{"created": t + 1, "completed": t + 1}, "finish": "stop"},
		"parts": []json.RawMessage{f.part(asstID, map[string]any{"type": "text", "text": text, "time": map[string]any{"start": t + 1, "end": t + 1}})}}
	f.lastUser, f.lastTime = userID, t+1
	u, _ := jsonx.Marshal(user)
	a, _ := jsonx.Marshal(asst)
	return []json.RawMessage{u, a}
}

// userText writes a summary placed after other messages as a user message.
func (f *forker) userText(text string) json.RawMessage {
	t := f.stamp()
	id := f.g.next("msg", false)
	m := map[string]any{"info": map[string]any{"id": id, "sessionID": f.session, "role": "user", "time": map[string]any{"created": t},
		"agent": f.agent, "model": map[string]any{"providerID": f.providerID, "modelID": f.modelID}},
		"parts": []json.RawMessage{f.part(id, map[string]any{"type": "text", "text": text})}}
	f.lastUser = id
	b, _ := jsonx.Marshal(m)
	return b
}

// modelParts are the part types that become model-visible parts.
var modelParts = map[string]bool{"text": true, "reasoning": true, "tool": true, "file": true, "compaction": true, "subtask": true}

// record renders source record r holding exactly the kept parts, under
// new ids; ok is false when none of its model-visible parts is kept.
func (f *forker) record(r int, kept []transcript.Part, dropUsage bool) (json.RawMessage, bool, error) {
	raw := f.src.Records[r].Raw
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, false, fmt.Errorf("fork: record %d: %w", r, err)
	}
	info, err := jsonx.ParseObject(o.Get("info"))
	if err != nil {
		return nil, false, fmt.Errorf("fork: record %d info: %w", r, err)
	}
	var w wireMessage
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, false, fmt.Errorf("fork: record %d: %w", r, err)
	}
	byBlock := map[int]transcript.Part{}
	for _, p := range kept {
		if _, seen := byBlock[p.Ref.Block]; !seen {
			byBlock[p.Ref.Block] = p
		}
	}
	id := f.g.next("msg", false)
	var parts []json.RawMessage
	visibleKept := 0
	for k, el := range w.Parts {
		var p wirePart
		if json.Unmarshal(el, &p) != nil {
			continue
		}
		po, err := jsonx.ParseObject(el)
		if err != nil {
			continue
		}
		call, okCall := byBlock[k]
		res, okRes := byBlock[resultBlock+k]
		if p.Type == "tool" && okRes && !okCall {
			// A result without its call: opencode sends both halves of
			// a tool part or neither, and the compaction kept no call.
			continue
		}
		if modelParts[p.Type] {
			if !okCall && !okRes {
				if p.Type == "text" && (p.Ignored || p.Text == "") || p.Type == "file" && (p.Mime == "text/plain" || p.Mime == "application/x-directory") {
					// Never shown to the model: kept as it was.
				} else {
					continue
				}
			} else {
				visibleKept++
			}
			if okCall && call.Changed {
				switch p.Type {
				case "text", "reasoning":
					_ = po.Set("text", call.Text)
				case "tool":
					if st, err := jsonx.ParseObject(po.Get("state")); err == nil && json.Valid([]byte(call.Args)) {
						st.SetRaw("input", json.RawMessage(call.Args))
						po.SetRaw("state", st.Bytes())
					}
				}
			}
			if okCall && !okRes && p.Type == "tool" {
				cutShort(po)
			}
			if okRes && res.Changed && p.Type == "tool" {
				if st, err := jsonx.ParseObject(po.Get("state")); err == nil {
					_ = st.Set("status", "completed")
					_ = st.Set("output", res.Text)
					st.Delete("error")
					// The compaction's text stands for the whole result:
					// opencode would send the attachments beside it.
					st.Delete("attachments")
					if meta, err := jsonx.ParseObject(st.Get("metadata")); err == nil && meta.Has("output") {
						_ = meta.Set("output", res.Text)
						st.SetRaw("metadata", meta.Bytes())
					}
					if tm, err := jsonx.ParseObject(st.Get("time")); err == nil {
						tm.Delete("compacted")
						st.SetRaw("time", tm.Bytes())
					}
					po.SetRaw("state", st.Bytes())
				}
			}
		}
		if p.Type == "step-finish" && dropUsage {
			_ = po.Set("tokens", zeroTokens())
		}
		_ = po.Set("id", f.g.next("prt", false))
		_ = po.Set("sessionID", f.session)
		_ = po.Set("messageID", id)
		parts = append(parts, po.Bytes())
	}
	if visibleKept == 0 {
		return nil, false, nil
	}
	f.msgIDs[w.Info.ID] = id
	_ = info.Set("id", id)
	_ = info.Set("sessionID", f.session)
	if w.Info.Role == "user" {
		f.lastUser = id
	} else if w.Info.ParentID != "" || info.Has("parentID") {
		parent, ok := f.msgIDs[w.Info.ParentID]
		if !ok {
			parent = f.lastUser
		}
		if parent != "" {
			_ = info.Set("parentID", parent)
		} else {
			info.Delete("parentID")
		}
	}
	if dropUsage && info.Has("tokens") {
		_ = info.Set("tokens", zeroTokens())
	}
	if w.Info.Time.Created > 0 {
		f.lastTime = max(f.lastTime, w.Info.Time.Created)
	}
	o.SetRaw("info", info.Bytes())
	o.SetRaw("parts", jsonx.Array(parts))
	return o.Bytes(), true, nil
}

// abortedCall is the error opencode records for a call that never
// returned (its processor's cleanup).
const abortedCall = "Tool execution aborted"

// cutShort rewrites tool part po, whose call the compaction kept and whose
// result it removed, as opencode records a call that never returned: an
// error, flagged interrupted, without output. opencode sends a result for
// every tool part it holds, the source's output in full unless the part
// says otherwise: written as it was, the fork would hand the model a
// result the compaction removed and never counted.
func cutShort(po *jsonx.Object) {
	st, err := jsonx.ParseObject(po.Get("state"))
	if err != nil {
		return
	}
	out := &jsonx.Object{}
	_ = out.Set("status", "error")
	if in := st.Get("input"); len(in) > 0 {
		out.SetRaw("input", in)
	} else {
		out.SetRaw("input", json.RawMessage(`{}`))
	}
	_ = out.Set("error", abortedCall)
	_ = out.Set("metadata", map[string]bool{"interrupted": true})
	var tm struct {
		Start int64 `json:"start"`
		End   int64 `json:"end"`
	}
	_ = json.Unmarshal(st.Get("time"), &tm)
	if tm.End < tm.Start {
		tm.End = tm.Start
	}
	_ = out.Set("time", map[string]int64{"start": tm.Start, "end": tm.End})
	po.SetRaw("state", out.Bytes())
}

func zeroTokens() map[string]any {
	return map[string]any{"total": 0, "input": 0, "output": 0, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}}
}
