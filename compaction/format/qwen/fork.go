package qwen

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/genai"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/transcript"
)

// Fork implements format.Codec: a new session file (new sessionId, the
// source's cwd so Qwen Code finds it in the same project) holding the
// view as one linear uuid chain. Messages read from plain records are
// written as those records (untouched parts byte for byte); a summary, and
// messages that came from a chat_compression history, are written as a
// chat_compression record whose compressedHistory is the whole
// conversation up to that point, which is what Qwen Code's resume sends.
// usageMetadata is dropped: it counted the source's context, and a fork's
// gauge is its own count plus the overhead measured on the source.
func (Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	src := v.Source
	if src == nil {
		return nil, fmt.Errorf("fork: view has no source transcript")
	}
	ts := opts.Timestamp
	if ts == "" {
		ts = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	f := &forker{v: v, src: src, ts: ts, session: opts.SessionID, opts: opts, count: jsonx.SourceParts(src)}
	if f.session == "" {
		f.session = newid.UUID()
	}
	f.cwd, f.version = src.Meta.Cwd, src.Meta.AgentVersion
	onChain := map[int]bool{}
	if st, ok := src.State.(*state); ok {
		for _, i := range st.chain() {
			onChain[i] = true
		}
	}
	// Records the codec writes itself or drops (metadata, records off the
	// chain) are not passed through; message records stay in the plan so
	// unknown records keep their place before the next message.
	owned := map[int]bool{}
	for _, m := range src.Messages {
		for _, r := range m.Records {
			owned[r] = true
		}
	}
	skip := map[int]bool{}
	for i, r := range src.Records {
		if !owned[i] && (r.Kind != transcript.RecordUnknown || !onChain[i]) {
			skip[i] = true
		}
	}
	for _, s := range jsonx.PlanFork(v, skip) {
		switch {
		case s.Summary >= 0:
			f.history = append(f.history, genai.TextContent("user", v.Summaries[s.Summary].Text))
			if b := v.Summaries[s.Summary].Before; b >= len(v.Messages) || v.Messages[b].Role != transcript.RoleAssistant || f.fromCompression(&v.Messages[b]) {
				f.history = append(f.history, genai.TextContent("model", ackText))
			}
			f.pending = true
		case s.Record >= 0:
			if err := f.passthrough(src.Records[s.Record].Raw); err != nil {
				return nil, err
			}
		default:
			if err := f.message(&v.Messages[s.Message], true); err != nil {
				return nil, err
			}
		}
	}
	if f.pending {
		f.compression()
	}
	return f.out.Bytes(), nil
}

type forker struct {
	v        *transcript.View
	src      *transcript.Transcript
	opts     format.ForkOptions
	ts       string
	session  string
	cwd      string
	version  string
	count    map[int]int
	out      bytes.Buffer
	prevUUID string
	// history is the conversation written so far, as Content, for the
	// next chat_compression record.
	history []json.RawMessage
	// pending is set while history holds content no record holds yet.
	pending bool
	made    int
}

func (f *forker) fromCompression(m *transcript.Message) bool {
	return len(m.Records) > 0 && f.src.Records[m.Records[0]].Kind == transcript.RecordMarker
}

// newUUID names a record the fork makes: derived from the fork's session
// id, so the same fork is written the same way twice.
func (f *forker) newUUID() string {
	f.made++
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", f.session, f.made)))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// emit writes o as the next record of the chain.
func (f *forker) emit(o *jsonx.Object) {
	uuid := ""
	if raw := o.Get("uuid"); raw != nil {
		_ = json.Unmarshal(raw, &uuid)
	}
	if uuid == "" {
		uuid = f.newUUID()
		_ = o.Set("uuid", uuid)
	}
	if f.prevUUID == "" {
		o.SetRaw("parentUuid", json.RawMessage("null"))
	} else {
		_ = o.Set("parentUuid", f.prevUUID)
	}
	_ = o.Set("sessionId", f.session)
	f.prevUUID = uuid
	f.out.Write(o.Bytes())
	f.out.WriteByte('\n')
}

// compression writes a chat_compression record holding the history so far.
func (f *forker) compression() {
	o := &jsonx.Object{}
	_ = o.Set("uuid", f.newUUID())
	o.SetRaw("parentUuid", json.RawMessage("null"))
	_ = o.Set("sessionId", f.session)
	_ = o.Set("timestamp", f.ts)
	_ = o.Set("type", "system")
	if f.cwd != "" {
		_ = o.Set("cwd", f.cwd)
	}
	if f.version != "" {
		_ = o.Set("version", f.version)
	}
	_ = o.Set("subtype", "chat_compression")
	info := map[string]any{"originalTokenCount": f.opts.TokensBefore, "newTokenCount": f.opts.TokensAfter,
		"compressionStatus": 1, "newTokenCountIsEstimated": true, "originalTokenCountIsEstimated": true}
	payload := &jsonx.Object{}
	_ = payload.Set("info", info)
	payload.SetRaw("compressedHistory", jsonx.Array(f.history))
	o.SetRaw("systemPayload", payload.Bytes())
	f.emit(o)
	f.pending = false
}

func (f *forker) passthrough(raw []byte) error {
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return fmt.Errorf("fork: %w", err)
	}
	if f.pending {
		f.compression()
	}
	f.emit(o)
	return nil
}

// message writes one view message: as its own record, or into the
// history of the next compression record when it came from one.
func (f *forker) message(m *transcript.Message, dropUsage bool) error {
	if len(m.Records) == 0 {
		return nil
	}
	r := m.Records[0]
	if r < 0 || r >= len(f.src.Records) {
		return fmt.Errorf("fork: message refers to record %d outside the source", r)
	}
	raw := f.src.Records[r].Raw
	if f.fromCompression(m) {
		c, err := f.compressedContent(raw, m)
		if err != nil {
			return err
		}
		if c != nil {
			f.history = append(f.history, c)
			f.pending = true
		}
		return nil
	}
	if len(m.Parts) == 0 {
		return nil
	}
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return fmt.Errorf("fork: record %d: %w", r, err)
	}
	if !jsonx.Untouched(m.Parts, f.count[r]) {
		msg, err := jsonx.ParseObject(o.Get("message"))
		if err != nil {
			return fmt.Errorf("fork: record %d message: %w", r, err)
		}
		parts, err := genai.RenderParts(msg.Get("parts"), m.Parts, 0)
		if err != nil {
			return fmt.Errorf("fork: record %d parts: %w", r, err)
		}
		msg.SetRaw("parts", parts)
		o.SetRaw("message", msg.Bytes())
		if tc := o.Get("toolCallResult"); tc != nil {
			if tco, err := jsonx.ParseObject(tc); err == nil {
				for _, p := range m.Parts {
					if p.Kind == transcript.PartToolResult && p.Changed {
						_ = tco.Set("resultDisplay", p.Text)
					}
				}
				o.SetRaw("toolCallResult", tco.Bytes())
			}
		}
	}
	if dropUsage {
		o.Delete("usageMetadata")
	}
	if f.pending {
		f.compression()
	}
	if msg, err := jsonx.ParseObject(o.Get("message")); err == nil {
		f.history = append(f.history, msg.Bytes())
	}
	f.emit(o)
	return nil
}

// compressedContent renders the Content of a message that a source
// chat_compression record holds, with the view's parts of it.
func (f *forker) compressedContent(raw []byte, m *transcript.Message) (json.RawMessage, error) {
	var w struct {
		SystemPayload struct {
			CompressedHistory []json.RawMessage `json:"compressedHistory"`
		} `json:"systemPayload"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("fork: compression record: %w", err)
	}
	if len(m.Parts) == 0 {
		return nil, nil
	}
	k := m.Parts[0].Ref.Block / compressedBlock
	if k < 0 || k >= len(w.SystemPayload.CompressedHistory) {
		return nil, fmt.Errorf("fork: compression history entry %d out of range", k)
	}
	c, err := jsonx.ParseObject(w.SystemPayload.CompressedHistory[k])
	if err != nil {
		return nil, fmt.Errorf("fork: compression history entry %d: %w", k, err)
	}
	parts, err := genai.RenderParts(c.Get("parts"), m.Parts, k*compressedBlock)
	if err != nil {
		return nil, fmt.Errorf("fork: compression history entry %d: %w", k, err)
	}
	c.SetRaw("parts", parts)
	return c.Bytes(), nil
}
