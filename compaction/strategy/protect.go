package strategy

import (
	"strings"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/transcript"
)

// protectedMessages marks what survives every strategy but explicit
// removal: system and developer prompts, the first user prompt, injected
// standing instructions, human prompts that lay down rules, pinned messages.
func protectedMessages(msgs []transcript.Message) []bool {
	out := make([]bool, len(msgs))
	firstPrompt := true
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.Pinned:
			out[i] = true
		case m.Role == transcript.RoleSystem || m.Role == transcript.RoleDeveloper:
			out[i] = true
		case transcript.StartsTurn(m) && m.Origin == transcript.OriginHuman:
			if firstPrompt {
				out[i] = true
				firstPrompt = false
			} else {
				out[i] = hasInstructionLine(m)
			}
		case m.Role == transcript.RoleUser && m.Origin == transcript.OriginInjected:
			out[i] = facts.IsStandingInstruction(messageText(m))
		}
	}
	return out
}

func hasInstructionLine(m *transcript.Message) bool {
	for _, p := range m.Parts {
		if p.Kind == transcript.PartText && facts.LaysDownRule(p.Text) {
			return true
		}
	}
	return false
}

func messageText(m *transcript.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind == transcript.PartText || p.Kind == transcript.PartAttachment {
			b.WriteString(p.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
