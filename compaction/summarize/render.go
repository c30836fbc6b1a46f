package summarize

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/transcript"
)

// RenderOptions control how transcript text is rendered for a prompt.
type RenderOptions struct {
	// FirstTurn numbers the first turn of the rendered messages.
	FirstTurn int
	// ToolResultChars caps each tool result, keeping its head and tail
	// (0 = DefaultToolResultChars): the model needs the outcome and the
	// error lines, not every line of a file it read.
	ToolResultChars int
	// TextChars caps each prose part (0 = DefaultTextChars).
	TextChars int
}

const (
	DefaultToolResultChars = 1200
	DefaultTextChars       = 6000
	reasoningChars         = 400
	toolArgsChars          = 600
)

// Render writes messages compactly for a prompt: one block per turn, one
// line per speaker, tool calls as name(args), tool results truncated,
// images and documents as short placeholders. Signed or encrypted content
// the model cannot read is left out.
func Render(msgs []transcript.Message, opts RenderOptions) string {
	if opts.ToolResultChars <= 0 {
		opts.ToolResultChars = DefaultToolResultChars
	}
	if opts.TextChars <= 0 {
		opts.TextChars = DefaultTextChars
	}
	var b strings.Builder
	turns := transcript.BuildTurns(msgs)
	for ti, t := range turns {
		fmt.Fprintf(&b, "### Turn %d\n", opts.FirstTurn+ti)
		for i := t.Start; i < t.End; i++ {
			renderMessage(&b, &msgs[i], opts)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func speaker(m *transcript.Message) string {
	switch {
	case m.Origin == transcript.OriginSummary:
		return "EARLIER SUMMARY"
	case m.Origin == transcript.OriginInjected:
		return "CONTEXT (injected by the harness)"
	case m.Origin == transcript.OriginSubagent:
		return "SUBAGENT"
	}
	switch m.Role {
	case transcript.RoleUser:
		return "USER"
	case transcript.RoleAssistant:
		return "ASSISTANT"
	case transcript.RoleSystem, transcript.RoleDeveloper:
		return "SYSTEM"
	case transcript.RoleTool:
		return "TOOL"
	}
	return strings.ToUpper(string(m.Role))
}

func renderMessage(b *strings.Builder, m *transcript.Message, opts RenderOptions) {
	who := speaker(m)
	for i := range m.Parts {
		p := &m.Parts[i]
		switch p.Kind {
		case transcript.PartText:
			if strings.TrimSpace(p.Text) == "" {
				continue
			}
			fmt.Fprintf(b, "%s: %s\n", who, Truncate(strings.TrimSpace(p.Text), opts.TextChars))
		case transcript.PartReasoning:
			if strings.TrimSpace(p.Text) == "" {
				continue
			}
			fmt.Fprintf(b, "%s (thinking): %s\n", who, Truncate(oneLine(p.Text), reasoningChars))
		case transcript.PartToolCall:
			fmt.Fprintf(b, "%s → %s(%s)\n", who, orUnknown(p.ToolName), Truncate(oneLine(p.Args), toolArgsChars))
		case transcript.PartToolResult:
			status := "result"
			if p.IsError {
				status = "ERROR result"
			}
			fmt.Fprintf(b, "TOOL %s %s:\n%s\n", orUnknown(p.ToolName), status, indent(Truncate(strings.TrimSpace(p.Text), opts.ToolResultChars)))
		case transcript.PartImage:
			fmt.Fprintf(b, "%s: [image %s %dx%d]\n", who, p.MIME, p.Width, p.Height)
		case transcript.PartDocument:
			fmt.Fprintf(b, "%s: [document %s, %d bytes] %s\n", who, p.MIME, p.Size, Truncate(oneLine(p.Text), reasoningChars))
		case transcript.PartAttachment:
			fmt.Fprintf(b, "%s: [attachment] %s\n", who, Truncate(strings.TrimSpace(p.Text), opts.ToolResultChars))
		}
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "tool"
	}
	return s
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Truncate shortens s to about max bytes, keeping its head (two thirds)
// and tail (one third) on line boundaries where it can — error messages
// and exit statuses tend to sit at the end of tool output — and says how
// much it left out. It never splits a UTF-8 sequence.
func Truncate(s string, max int) string {
	if len(s) <= max || max <= 0 {
		return s
	}
	headLen, tailLen := max*2/3, max/3
	head := s[:runeStart(s, headLen)]
	tail := s[runeStart(s, len(s)-tailLen):]
	if i := strings.LastIndexByte(head, '\n'); i > len(head)/2 {
		head = head[:i+1]
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
		tail = tail[i+1:]
	}
	omitted := len(s) - len(head) - len(tail)
	lines := strings.Count(s[len(head):len(s)-len(tail)], "\n")
	marker := fmt.Sprintf(" […%d bytes omitted…] ", omitted)
	if lines > 0 {
		marker = fmt.Sprintf("\n[…%d lines omitted…]\n", lines)
	}
	return strings.TrimRight(head, "\n") + marker + strings.TrimLeft(tail, "\n")
}

// runeStart moves i back to the start of the UTF-8 sequence holding it.
func runeStart(s string, i int) int {
	if i <= 0 {
		return 0
	}
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
