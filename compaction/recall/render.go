package recall

import (
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
)

// Messages renders a span of messages as the recall of a summary or of
// removed turns: each part under a one-line header saying whose it is,
// every text, argument and tool output as the transcript held it.
func Messages(msgs []transcript.Message) string {
	var b strings.Builder
	for i := range msgs {
		m := &msgs[i]
		for j := range m.Parts {
			p := &m.Parts[j]
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			switch p.Kind {
			case transcript.PartToolCall:
				fmt.Fprintf(&b, "%s called %s%s:\n%s", m.Role, p.ToolName, callID(p), p.Args)
			case transcript.PartToolResult:
				state := "result"
				if p.IsError {
					state = "error"
				}
				fmt.Fprintf(&b, "tool %s of %s%s:\n%s", state, p.ToolName, callID(p), p.Text)
			case transcript.PartReasoning:
				fmt.Fprintf(&b, "%s (reasoning):\n%s", m.Role, p.Text)
			case transcript.PartOpaque:
				fmt.Fprintf(&b, "%s: [encrypted reasoning, %d bytes]", m.Role, p.Opaque)
			case transcript.PartImage, transcript.PartDocument:
				fmt.Fprintf(&b, "%s: [%s %s, %d bytes]", m.Role, p.Kind, p.MIME, p.Size)
			case transcript.PartAttachment:
				fmt.Fprintf(&b, "%s (attachment):\n%s", m.Role, p.Text)
			default:
				fmt.Fprintf(&b, "%s:\n%s", m.Role, p.Text)
			}
		}
	}
	return b.String()
}

func callID(p *transcript.Part) string {
	if p.ToolCallID == "" {
		return ""
	}
	return " (" + p.ToolCallID + ")"
}
