package codex

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// Codec reads and writes Codex CLI rollout JSONL.
type Codec struct{}

var (
	_ format.Codec    = Codec{}
	_ format.Appender = Codec{}
	_ format.Trimmer  = Codec{}
)

func (Codec) Format() transcript.Format { return transcript.FormatCodex }

// envelopeTypes are the rollout line types a detector may rely on.
var envelopeTypes = map[string]bool{
	typeSessionMeta: true, typeTurnContext: true, typeResponseItem: true, typeEventMsg: true, typeCompacted: true,
}

// Detect looks for the rollout envelope: a first line of type session_meta
// and {timestamp, type, payload} lines. A head cut inside a long first line
// (base instructions run to tens of kilobytes) still shows the envelope's
// leading keys.
func (Codec) Detect(name string, head []byte) int {
	score := 0
	envelopes, lines := 0, 0
	for l := range bytes.Lines(head) {
		if jsonl.IsBlank(l) {
			continue
		}
		lines++
		if lines > 20 {
			break
		}
		p := jsonx.Peek(l)
		obj, ok := p.Value.(map[string]any)
		if p.Bad || !ok {
			if lines == 1 {
				return 0
			}
			continue
		}
		typ, _ := obj["type"].(string)
		_, hasPayload := obj["payload"]
		_, hasTimestamp := obj["timestamp"]
		if _, claude := obj["parentUuid"]; claude {
			return 0
		}
		switch {
		case hasPayload && hasTimestamp && envelopeTypes[typ]:
			envelopes++
			if lines == 1 && typ == typeSessionMeta {
				score = 95
			}
		case lines == 1 && typ == "" && obj["id"] != nil && obj["timestamp"] != nil && !hasPayload:
			// An older rollout's bare session meta line.
			if _, ok := obj["instructions"]; ok {
				score = 60
			} else if _, ok := obj["git"]; ok {
				score = 50
			}
		case bareItemTypes[typ] && !hasPayload && score >= 50:
			score = max(score, 65)
		}
	}
	if score == 0 && envelopes > 0 && envelopes*2 >= lines {
		score = 70 // a rollout seen from the middle, or one that lost its first line
	}
	base := filepath.Base(name)
	if score > 0 && strings.HasPrefix(base, "rollout-") {
		score = min(score+5, 100)
	}
	return score
}

// Parse reads a whole rollout. A last line without a newline is a record
// when it decodes, and otherwise kept unconsumed (a write in progress).
func (c Codec) Parse(src []byte) (*transcript.Transcript, error) {
	t, err := c.append(empty(), src, true)
	if err != nil {
		return nil, err
	}
	if len(t.Records) > 0 && !recognized(t) {
		return nil, errors.New("not a Codex rollout: no line is a session_meta, turn_context, response_item, event_msg or compacted record")
	}
	return t, nil
}

// recognized reports whether any record is one the codec understood.
func recognized(t *transcript.Transcript) bool {
	for _, r := range t.Records {
		if r.Kind == transcript.RecordMessage || r.Kind == transcript.RecordMarker || (r.Kind == transcript.RecordMeta && envelopeTypes[r.Type]) {
			return true
		}
	}
	return false
}

// Trim implements format.Trimmer. Rollouts only ever change their last
// message (the token_count after it sets its usage) or replace the whole
// history (a compaction, whose messages come whole from its record), so
// everything before the last message may go.
func (Codec) Trim(t *transcript.Transcript, keep int) int {
	st, ok := t.State.(*state)
	if !ok {
		return 0
	}
	keep = max(min(keep, len(t.Messages)-1), 0)
	if keep <= st.trimmed {
		return st.trimmed
	}
	format.TrimParts(t.Messages, st.trimmed, keep)
	st.trimmed = keep
	return keep
}

// Floor is the last message: a token_count read later attaches its usage
// there; a compacted record replaces the history with new messages.
func (Codec) Floor(t *transcript.Transcript) int { return max(len(t.Messages)-1, 0) }

// Append parses the complete lines of tail (the bytes from prev.Size on).
func (c Codec) Append(prev *transcript.Transcript, tail []byte) (*transcript.Transcript, error) {
	if prev == nil || prev.State == nil {
		if prev != nil && len(prev.Records) > 0 {
			return nil, errors.New("append to a Codex rollout that was not parsed by this codec")
		}
		prev = empty()
	}
	if _, ok := prev.State.(*state); !ok {
		return nil, errors.New("append to a Codex rollout that was not parsed by this codec")
	}
	return c.append(prev, tail, false)
}

// Write renders t; for a parsed transcript the bytes equal the source.
func (Codec) Write(t *transcript.Transcript) ([]byte, error) {
	f, _ := t.Frame.(*jsonl.Frame)
	return jsonl.Write(f, t.Records), nil
}
