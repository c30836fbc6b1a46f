package strategy

import (
	"regexp"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
)

// standingMarkers identify injected standing instructions: the memory files
// agents load (CLAUDE.md, AGENTS.md, GEMINI.md, .clinerules) and the tags
// harnesses wrap them in.
var standingMarkers = []string{
	"CLAUDE.md", "AGENTS.md", "GEMINI.md", ".clinerules", "CONVENTIONS.md",
	"<INSTRUCTIONS>", "<user_instructions>", "# AGENTS.md instructions", "claudeMd",
}

// instructionLine matches a line that lays down a rule.
var instructionLine = regexp.MustCompile(`(?i)\b(must|never|always)\b`)

// isStandingInstruction reports whether injected text carries standing
// instructions.
func isStandingInstruction(text string) bool {
	for _, m := range standingMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

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
			out[i] = isStandingInstruction(messageText(m))
		}
	}
	return out
}

func hasInstructionLine(m *transcript.Message) bool {
	for _, p := range m.Parts {
		if p.Kind == transcript.PartText && instructionLine.MatchString(p.Text) {
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
