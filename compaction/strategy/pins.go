package strategy

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/compactd/compactd/compaction/transcript"
)

// PinKey names a message across parses and forks, for a pin stored per
// conversation: the message's own id where its format has one (Claude
// Code's uuid, Copilot CLI's event id), else its role and the digest of
// its content.
func PinKey(m *transcript.Message) string {
	if m.ID != "" {
		return "id:" + m.ID
	}
	h := sha256.New()
	h.Write([]byte(m.Role))
	for _, p := range m.Parts {
		h.Write([]byte{0})
		h.Write([]byte(p.Kind))
		h.Write([]byte(p.Text))
		h.Write([]byte(p.Args))
	}
	return "sha:" + hex.EncodeToString(h.Sum(nil)[:12])
}

// pinned reports which of msgs Options.Pins names.
func pinned(msgs []transcript.Message, pins []string) []bool {
	out := make([]bool, len(msgs))
	if len(pins) == 0 {
		return out
	}
	want := make(map[string]bool, len(pins))
	for _, k := range pins {
		want[k] = true
	}
	for i := range msgs {
		out[i] = want[PinKey(&msgs[i])]
	}
	return out
}
