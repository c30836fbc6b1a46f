package anthropic

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// Codec reads and writes Anthropic Messages documents: a request object
// ({model, system, messages, …}) or a bare messages array.
type Codec struct{}

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatAnthropicMessages }

// Frame is the Transcript.Frame of Anthropic-shaped documents (this codec
// and Cline's): the source, its layout and the bytes between records.
type Frame struct {
	Src  []byte
	Doc  *jsonx.ArrayDocument
	Gaps jsonx.Gaps
	// System is the record holding the wrapper's system value, or -1.
	System int
}

// Scan validates src and cuts it into records: every messages element
// and, for a request object, the system value. Records are not decoded.
func Scan(src []byte, f transcript.Format) (*transcript.Transcript, *Frame, error) {
	doc, err := jsonx.ScanArrayDocument(src, "messages")
	if err != nil {
		return nil, nil, fmt.Errorf("parse %s document: %w", f, err)
	}
	spans := append([]jsonx.Span(nil), doc.Elements...)
	sys, hasSystem := doc.Member("system")
	if hasSystem {
		spans = append(spans, sys)
		jsonx.SortSpans(spans)
	}
	t := &transcript.Transcript{Format: f, Size: int64(len(src))}
	fr := &Frame{Src: src, Doc: doc, Gaps: jsonx.GapsOf(src, spans), System: -1}
	t.Records = make([]transcript.Record, len(spans))
	for i, sp := range spans {
		t.Records[i] = transcript.Record{Start: int64(sp.Start), End: int64(sp.End), Raw: src[sp.Start:sp.End:sp.End], Kind: transcript.RecordMessage}
		if hasSystem && sp == sys {
			fr.System = i
			t.Records[i].Type = "system"
		}
	}
	if m, ok := doc.Member("model"); ok {
		_ = json.Unmarshal(src[m.Start:m.End], &t.Meta.Model)
	}
	t.Frame = fr
	return t, fr, nil
}

// Malformed marks record i as unusable and reports why.
func Malformed(t *transcript.Transcript, i int, why string) {
	jsonx.MarkMalformed(t, i, "record", why)
}

// RoleOf returns an element's role, or "" when it is not a JSON object
// with a string role.
func RoleOf(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return "", false
	}
	var w struct {
		Role *string `json:"role"`
	}
	if json.Unmarshal(raw, &w) != nil || w.Role == nil {
		return "", true
	}
	return *w.Role, true
}

// Parse implements format.Codec.
func (Codec) Parse(src []byte) (*transcript.Transcript, error) {
	t, fr, err := Scan(src, transcript.FormatAnthropicMessages)
	if err != nil {
		return nil, err
	}
	for i := range t.Records {
		r := &t.Records[i]
		if i == fr.System {
			parts, err := DecodeContent(r.Raw, i)
			if err != nil {
				Malformed(t, i, "system: "+err.Error())
				continue
			}
			t.Messages = append(t.Messages, transcript.Message{Role: transcript.RoleSystem, Origin: transcript.OriginInjected, Records: []int{i}, Parts: parts, Pinned: true})
			continue
		}
		role, isObject := RoleOf(r.Raw)
		if !isObject {
			Malformed(t, i, "message is not a JSON object")
			continue
		}
		r.Type = role
		switch role {
		case "user", "assistant", "system":
		default:
			r.Kind = transcript.RecordUnknown
			continue
		}
		m, err := DecodeMessage(r.Raw, i)
		if err != nil {
			Malformed(t, i, err.Error())
			continue
		}
		if m.Role == transcript.RoleAssistant {
			m.Model = t.Meta.Model
		}
		t.Messages = append(t.Messages, m)
	}
	// The system value is the request's first message wherever the
	// object holds it (a tool that saved the request sorted its keys).
	if k := slices.IndexFunc(t.Messages, func(m transcript.Message) bool {
		return len(m.Records) > 0 && m.Records[0] == fr.System
	}); k > 0 {
		sys := t.Messages[k]
		copy(t.Messages[1:k+1], t.Messages[:k])
		t.Messages[0] = sys
	}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t, nil
}

// Write implements format.Codec.
func (Codec) Write(t *transcript.Transcript) ([]byte, error) { return WriteFrame(t) }

// WriteFrame renders a transcript parsed by Scan from its records.
func WriteFrame(t *transcript.Transcript) ([]byte, error) {
	fr, ok := t.Frame.(*Frame)
	if !ok {
		return nil, fmt.Errorf("write %s: transcript was not parsed by this codec", t.Format)
	}
	out, err := fr.Gaps.JoinRecords(t.Records)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", t.Format, err)
	}
	return out, nil
}

// Fork implements format.Codec: the same request with the messages array
// holding the view. A summary joins the next user message (after its
// tool results) or becomes a user message of its own, with an assistant
// acknowledgement where roles would not alternate.
func (Codec) Fork(v *transcript.View, _ format.ForkOptions) ([]byte, error) {
	return ForkDocument(v, Dialect{
		Merge: true,
		Summary: func(text string) ([]byte, error) {
			return NewMessage(&transcript.Message{Role: transcript.RoleUser, Parts: []transcript.Part{{Kind: transcript.PartText, Text: text}}})
		},
		Ack: func(role string) ([]byte, error) {
			return NewMessage(&transcript.Message{Role: transcript.Role(role), Parts: []transcript.Part{{Kind: transcript.PartText, Text: AckText(role)}}})
		},
	})
}

// AckText is the text of a message synthesized only to keep roles alternating.
func AckText(role string) string {
	if role == "assistant" {
		return "Understood. I will continue from this summary."
	}
	return "Continue."
}
