package claude

import (
	"encoding/json"

	"github.com/compactd/compactd/compaction/transcript"
)

// Resent implements format.Resender. Claude Code announces its skills,
// deferred tools, agents and model once, as attachments, and later only
// what changed; resuming a conversation that holds no announcement of a
// kind (a fork whose first turns were cut or summarized), it announces that
// kind again in full with the next prompt. The source's announcements of
// each kind the fork lost stand for what it sends.
func (Codec) Resent(v *transcript.View) []transcript.Message {
	if v.Source == nil {
		return nil
	}
	kept := map[string]bool{}
	for i := range v.Messages {
		if typ := announcementOf(v.Source, &v.Messages[i]); typ != "" {
			kept[typ] = true
		}
	}
	var out []transcript.Message
	for i := range v.Source.Messages {
		m := &v.Source.Messages[i]
		if typ := announcementOf(v.Source, m); typ != "" && !kept[typ] {
			out = append(out, *m)
		}
	}
	return out
}

// announcementOf returns the attachment type of m when it is one of Claude
// Code's announcements, read from its record in t; "" otherwise.
func announcementOf(t *transcript.Transcript, m *transcript.Message) string {
	if m.Origin != transcript.OriginInjected || len(m.Records) != 1 {
		return ""
	}
	r := m.Records[0]
	if r < 0 || r >= len(t.Records) || t.Records[r].Type != "attachment" || len(t.Records[r].Raw) == 0 {
		return ""
	}
	var l struct {
		Attachment json.RawMessage `json:"attachment"`
	}
	if json.Unmarshal(t.Records[r].Raw, &l) != nil {
		return ""
	}
	if typ := attachmentType(l.Attachment); announcement(typ) {
		return typ
	}
	return ""
}
