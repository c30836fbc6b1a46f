package modelserver

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// SummaryHeading opens the gist of every summary the server writes when an
// agent asks it to summarize the conversation (its own compaction), so a
// test can tell the summary in a later request.
const SummaryHeading = "Summary of the conversation so far"

// A summaryStyle is the shape an agent's summarisation request asks for.
type summaryStyle int

const (
	noSummary summaryStyle = iota
	// claudeSummary: Claude Code's /compact and auto-compact ask for an
	// <analysis> block, then a <summary> block of nine numbered sections.
	claudeSummary
	// codexSummary: Codex's compaction ("CONTEXT CHECKPOINT COMPACTION")
	// asks for a handoff summary in plain text.
	codexSummary
	// snapshotSummary: Gemini CLI's and Qwen Code's chat compression ask
	// for a <state_snapshot> XML document (Qwen after an <analysis> block).
	snapshotSummary
	// plainSummary: opencode's compaction asks for a prompt that lets the
	// conversation continue, in plain text.
	plainSummary
)

// summaryStyle reads whether the request asks for a summary of the
// conversation before its last message, and in which shape. Each agent
// puts its summarisation instructions in the last user message (Gemini CLI
// in the system instruction, with a short last message).
func (c *Conversation) summaryStyle() summaryStyle {
	last := ""
	for i := len(c.Items) - 1; i >= 0; i-- {
		if it := c.Items[i]; it.Role == "user" && it.Kind == KindText {
			last = it.Text
			break
		}
		if c.Items[i].Kind != KindReasoning {
			break // the last item is no user text: a tool loop, not a summary request
		}
	}
	switch {
	case last == "":
		return noSummary
	case strings.Contains(last, "create a detailed summary of the conversation") && strings.Contains(last, "<summary>"):
		return claudeSummary
	case strings.HasPrefix(strings.TrimSpace(last), "You are performing a CONTEXT CHECKPOINT COMPACTION"):
		return codexSummary
	case strings.Contains(last, "<state_snapshot>") || strings.Contains(c.System, "<state_snapshot>") && strings.Contains(last, "state_snapshot"):
		return snapshotSummary
	case strings.Contains(last, "Provide a detailed prompt for continuing our conversation") ||
		strings.Contains(last, "summary of our conversation") && strings.Contains(c.System, "summar"):
		return plainSummary
	}
	return noSummary
}

// editedPath finds the files edit and write calls name: an argument
// holding a path, or the file headers of a patch.
var patchFile = regexp.MustCompile(`(?m)^\*\*\* (?:Update|Add) File: (\S+)`)

// editTools are the tools agents edit and write files with.
var editTools = map[string]bool{"Edit": true, "Write": true, "MultiEdit": true, "replace": true, "write_file": true,
	"edit": true, "write": true, "apply_patch": true, "edit_file": true, "str_replace_based_edit_tool": true}

// A digest is what the server's summary keeps of a conversation: the
// user's requests (verbatim, without the script's task tags) and the files
// edited or written. It deliberately keeps nothing else — not the commands
// run, the files only read, the tool results, nor what the answers said —
// as a model's summary keeps only some of the facts, so a comparison of
// what summaries retain has something to find.
type digest struct {
	requests []string
	files    []string
	earlier  bool // an earlier summary of this server's is part of what is summarized
}

func (c *Conversation) digest() digest {
	var d digest
	seen := map[string]bool{}
	// The summarisation instructions themselves are the last user text.
	end := len(c.Items)
	for i := len(c.Items) - 1; i >= 0; i-- {
		if c.Items[i].Role == "user" && c.Items[i].Kind == KindText {
			end = i
			break
		}
	}
	for _, it := range c.Items[:end] {
		switch {
		case it.Kind == KindText && it.Role == "user":
			if strings.Contains(it.Text, SummaryHeading) {
				d.earlier = true
			}
			if taskTag.MatchString(it.Text) {
				d.requests = append(d.requests, strings.TrimSpace(taskTag.ReplaceAllString(it.Text, "")))
			}
		case it.Kind == KindCall && editTools[it.Name]:
			for _, p := range callPaths(it.Text) {
				if !seen[p] {
					seen[p] = true
					d.files = append(d.files, p)
				}
			}
		}
	}
	return d
}

// callPaths returns the files an edit or write call names.
func callPaths(args string) []string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) == nil {
		for _, k := range []string{"file_path", "absolute_path", "filePath", "path"} {
			if p, ok := m[k].(string); ok && p != "" {
				return []string{p}
			}
		}
		if in, ok := m["input"].(string); ok {
			args = in
		}
	}
	var out []string
	for _, sm := range patchFile.FindAllStringSubmatch(args, -1) {
		out = append(out, sm[1])
	}
	return out
}

// gist is the summary's first paragraph, the same in every shape.
func (d digest) gist() string {
	s := SummaryHeading + ": the user is improving a project with the assistant's help"
	if d.earlier {
		s += ", continuing work an earlier summary described"
	}
	return s + "."
}

func (d digest) current() string {
	if len(d.requests) == 0 {
		return "No request is open."
	}
	return "The latest request was: \"" + d.requests[len(d.requests)-1] + "\""
}

// summary writes the digest of c in the shape style asks for.
func (c *Conversation) summary(style summaryStyle) string {
	d := c.digest()
	var b strings.Builder
	list := func(indent string, xs []string, none string) {
		if len(xs) == 0 {
			fmt.Fprintf(&b, "%s- %s\n", indent, none)
		}
		for _, x := range xs {
			fmt.Fprintf(&b, "%s- %s\n", indent, x)
		}
	}
	switch style {
	case claudeSummary:
		fmt.Fprintf(&b, "<analysis>\nThe conversation holds %d requests from the user; the work touched %d files.\n</analysis>\n\n<summary>\n", len(d.requests), len(d.files))
		fmt.Fprintf(&b, "1. Primary Request and Intent:\n   %s\n\n2. Key Technical Concepts:\n   - Go\n\n3. Files and Code Sections:\n", d.gist())
		list("   ", d.files, "(no file was changed)")
		b.WriteString("\n4. Errors and fixes:\n   - None.\n\n5. Problem Solving:\n   Each request was handled in turn.\n\n6. All user messages:\n")
		list("    ", d.requests, "(none)")
		fmt.Fprintf(&b, "\n7. Pending Tasks:\n   - None.\n\n8. Current Work:\n   %s\n\n9. Optional Next Step:\n   Wait for the user's next request.\n</summary>", d.current())
	case snapshotSummary:
		fmt.Fprintf(&b, "<state_snapshot>\n    <overall_goal>\n        %s\n    </overall_goal>\n    <key_knowledge>\n", d.gist())
		list("        ", d.requests, "(no request)")
		b.WriteString("    </key_knowledge>\n    <file_system_state>\n")
		list("        ", d.files, "(no file was changed)")
		fmt.Fprintf(&b, "    </file_system_state>\n    <current_plan>\n        %s\n    </current_plan>\n</state_snapshot>", d.current())
	default: // codexSummary, plainSummary
		fmt.Fprintf(&b, "%s\n\nRequests so far:\n", d.gist())
		list("", d.requests, "(none)")
		b.WriteString("\nFiles changed:\n")
		list("", d.files, "(none)")
		fmt.Fprintf(&b, "\nNext: %s", d.current())
	}
	return b.String()
}
