package gemini

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// Codec reads and writes Gemini CLI recordings and checkpoints.
type Codec struct{}

var (
	_ format.Codec    = Codec{}
	_ format.Appender = Codec{}
)

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatGeminiCLI }

// Parse implements format.Codec. A JSON document holding a messages or
// history array (or a bare array of Content) is a legacy session or a
// checkpoint; anything else is read as the JSONL recording.
func (c Codec) Parse(src []byte) (*transcript.Transcript, error) {
	if t, ok, err := parseDocument(src); ok {
		return t, err
	}
	t := c.appendLines(emptyLines(), src, true)
	if err := jsonl.NotInFormat(t, "Gemini CLI recording", "a JSON record"); err != nil {
		return nil, err
	}
	return t, nil
}

// Append implements format.Appender for the JSONL recording. Documents
// are rewritten whole by Gemini CLI: appending to one is an error, and the
// caller parses again.
func (c Codec) Append(prev *transcript.Transcript, tail []byte) (*transcript.Transcript, error) {
	if prev == nil || (prev.State == nil && len(prev.Records) == 0) {
		prev = emptyLines()
	}
	if _, ok := prev.State.(*lineState); !ok {
		return nil, fmt.Errorf("append to a Gemini CLI transcript that is not a JSONL recording: parse it again")
	}
	return c.appendLines(prev, jsonl.CompleteLines(tail), false), nil
}

// Write implements format.Codec: records with the bytes between them, as
// read.
func (Codec) Write(t *transcript.Transcript) ([]byte, error) {
	switch f := t.Frame.(type) {
	case *jsonl.Frame:
		return jsonl.Write(f, t.Records), nil
	case *docFrame:
		out, err := f.gaps.JoinRecords(t.Records)
		if err != nil {
			return nil, fmt.Errorf("write gemini-cli document: %w", err)
		}
		return out, nil
	case nil:
		return jsonl.Write(nil, t.Records), nil
	}
	return nil, fmt.Errorf("write gemini-cli: transcript was not parsed by this codec")
}

// lineState is Transcript.State of a JSONL recording. It is copied, never
// changed, once a transcript holds it; msgs only gains entries (keyed by
// record index and $set element, which never change meaning).
type lineState struct {
	// order is the conversation: message records by id, first-seen order,
	// each pointing at its latest version.
	order []entry
	pos   map[string]int
	msgs  map[msgKey][]transcript.Message
	meta  transcript.Meta
	lines int
}

// An entry is one message of the conversation: a message line (elem -1)
// or element elem of the messages array of a $set line.
type entry struct {
	id   string
	rec  int
	elem int
}

// msgKey locates the record a message was decoded from: a line, or one
// element of a $set line's messages.
type msgKey struct{ rec, elem int }

func (e entry) key() msgKey { return msgKey{e.rec, e.elem} }

// A $set line's messages array is the whole conversation as Gemini CLI
// holds it: on every resume it writes the history it loaded back as
// {"$set":{"messages":[…]}}, and its loader replaces everything read so
// far with that array. The array is not the lines before it: the model
// messages' toolCalls[].result hold the responses of their whole call
// group, and each is followed by a "<id>_response" user message — so the
// copies of every tool result grow with each resume, and Gemini CLI sends
// them all. Parts of element e of a $set line carry Ref.Block
// setBlock(e) + their block within the element.
const setStride = 1 << 24

func setBlock(elem int) int { return (elem + 1) * setStride }

// splitBlock returns the $set element a part's block belongs to (-1 for a
// message line's own parts) and its block within that element.
func splitBlock(block int) (elem, inner int) {
	elem = (block+1)/setStride - 1
	if elem < 0 {
		return -1, block
	}
	return elem, block - setBlock(elem)
}

func emptyLines() *transcript.Transcript {
	return &transcript.Transcript{Format: transcript.FormatGeminiCLI, Frame: &jsonl.Frame{},
		State: &lineState{pos: map[string]int{}, msgs: map[msgKey][]transcript.Message{}}}
}

// lineKind classifies one JSONL record.
type lineKind struct {
	Set      map[string]json.RawMessage `json:"$set"`
	RewindTo *string                    `json:"$rewindTo"`
	wireMessage
	SessionID   string   `json:"sessionId"`
	ProjectHash string   `json:"projectHash"`
	Summary     string   `json:"summary"`
	Directories []string `json:"directories"`
}

func (c Codec) appendLines(prev *transcript.Transcript, data []byte, whole bool) *transcript.Transcript {
	ps := prev.State.(*lineState)
	st := &lineState{order: slices.Clone(ps.order), pos: maps.Clone(ps.pos), msgs: ps.msgs, meta: ps.meta}
	t := jsonl.Continue(prev)
	st.lines = jsonl.Decode(t, data, ps.lines, func(idx int, rec *transcript.Record, k *lineKind) error {
		return st.note(rec, idx, k)
	})
	t.State = st
	t.Meta = st.meta
	for _, e := range st.order {
		t.Messages = append(t.Messages, st.msgs[e.key()]...)
	}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t
}

// note applies one decoded line to the conversation state.
func (s *lineState) note(rec *transcript.Record, idx int, k *lineKind) error {
	switch {
	case k.RewindTo != nil:
		rec.Kind, rec.Type, rec.ID = transcript.RecordMarker, "$rewindTo", *k.RewindTo
		if p, ok := s.pos[*k.RewindTo]; ok {
			for _, e := range s.order[p:] {
				delete(s.pos, e.id)
			}
			s.order = s.order[:p:p]
		}
	case k.Set != nil:
		rec.Kind, rec.Type = transcript.RecordMeta, "$set"
		var patch lineKind
		b, _ := json.Marshal(k.Set)
		if json.Unmarshal(b, &patch) == nil {
			s.noteMeta(&patch)
		}
		if raw, ok := k.Set["messages"]; ok {
			if err := s.setMessages(idx, raw); err != nil {
				return fmt.Errorf("$set messages: %w", err)
			}
		}
	case k.Type != nil && k.ID != "":
		rec.Type, rec.ID = *k.Type, k.ID
		visible, known := messageTypes[*k.Type]
		switch {
		case !known:
			rec.Kind = transcript.RecordUnknown
		case visible:
			rec.Kind = transcript.RecordMessage
		default:
			rec.Kind = transcript.RecordMeta
		}
		if known {
			msgs, err := decodeMessage(&k.wireMessage, idx)
			if err != nil {
				return fmt.Errorf("message %s: %w", k.ID, err)
			}
			s.msgs[msgKey{idx, -1}] = msgs
			s.noteModel(msgs)
		}
		s.put(entry{id: k.ID, rec: idx, elem: -1})
	case k.SessionID != "" || k.ProjectHash != "":
		rec.Kind, rec.Type = transcript.RecordMeta, "metadata"
		s.noteMeta(k)
	default:
		rec.Kind = transcript.RecordUnknown
	}
	return nil
}

// put places a message in the conversation as Gemini CLI's loader does
// (a Map by id): an update takes the place of the version it replaces.
func (s *lineState) put(e entry) {
	if p, ok := s.pos[e.id]; ok {
		s.order[p] = e // an update: last version, first position
		return
	}
	s.pos[e.id] = len(s.order)
	s.order = append(s.order, e)
}

func (s *lineState) noteModel(msgs []transcript.Message) {
	for _, m := range msgs {
		if m.Model != "" {
			s.meta.Model = m.Model
		}
	}
}

// setMessages replaces the conversation with the messages array of the
// $set line idx, as Gemini CLI's loader does. An array it cannot read
// leaves the conversation as it was (Gemini CLI skips such a line too).
func (s *lineState) setMessages(idx int, raw json.RawMessage) error {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil
	}
	s.order, s.pos = nil, map[string]int{}
	for e, el := range elems {
		var w wireMessage
		if json.Unmarshal(el, &w) != nil || w.ID == "" {
			continue
		}
		if w.Type == nil {
			continue
		}
		if visible, known := messageTypes[*w.Type]; known && visible {
			msgs, err := decodeMessage(&w, idx)
			if err != nil {
				return fmt.Errorf("message %s: %w", w.ID, err)
			}
			for i := range msgs {
				parts := slices.Clone(msgs[i].Parts)
				for k := range parts {
					parts[k].Ref.Block += setBlock(e)
				}
				msgs[i].Parts = parts
				if isSnapshot(&msgs[i]) {
					// Gemini CLI's chat compression put it there.
					msgs[i].Origin = transcript.OriginSummary
				}
			}
			s.msgs[msgKey{idx, e}] = msgs
			s.noteModel(msgs)
		}
		s.put(entry{id: w.ID, rec: idx, elem: e})
	}
	return nil
}

func (s *lineState) noteMeta(k *lineKind) {
	if k.SessionID != "" {
		s.meta.SessionID = k.SessionID
	}
	if k.Summary != "" {
		s.meta.Title = k.Summary
	}
	if len(k.Directories) > 0 {
		s.meta.Cwd = k.Directories[0]
	}
}

// Detect implements format.Codec.
func (Codec) Detect(name string, head []byte) int {
	score := detectLines(head)
	if score == 0 {
		score = detectDocument(head)
	}
	base := filepath.Base(name)
	if score > 0 && (strings.HasPrefix(base, "session-") || strings.HasPrefix(base, "checkpoint-") || strings.Contains(filepath.ToSlash(name), ".gemini/")) {
		score = min(score+5, 100)
	}
	return score
}

// detectLines scores a JSONL head: the metadata line, message lines of
// Gemini's types, $set and $rewindTo records.
func detectLines(head []byte) int {
	score := 0
	// A line cut by a crash is kept and counted; more than a few mean
	// this is not JSONL.
	ok := jsonl.HeadObjects(head, func(k *lineKind) bool {
		switch {
		case k.SessionID != "" && k.ProjectHash != "" && k.Type == nil:
			score = max(score, 95)
		case k.RewindTo != nil || k.Set != nil && len(k.Set) > 0:
			score = max(score, 60)
		case k.Type != nil && k.ID != "" && *k.Type == "gemini":
			score = max(score, 80)
		case k.Type != nil && k.ID != "" && *k.Type == "user" && k.Timestamp != "" && len(k.Content) > 0:
			score = max(score, 40)
		}
		return true
	})
	if !ok {
		return 0
	}
	return score
}
