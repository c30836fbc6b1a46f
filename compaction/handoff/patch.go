package handoff

import (
	"strings"
)

// Codex's patch language: a patch adds, updates or deletes files, each
// an operation under "*** Add File: P", "*** Update File: P" or
// "*** Delete File: P", between "*** Begin Patch" and "*** End Patch";
// an update's hunks list context (" "), removed ("-") and added ("+")
// lines, each hunk after an "@@" line.

// parsePatch reads a patch that does one thing a neutral call can say:
// add one file (a write) or change one place of one file (an edit).
func parsePatch(input string) (call, bool) {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(input, "\r\n", "\n"), "\n"), "\n")
	if len(lines) < 3 || strings.TrimSpace(lines[0]) != "*** Begin Patch" || strings.TrimSpace(lines[len(lines)-1]) != "*** End Patch" {
		return call{}, false
	}
	body := lines[1 : len(lines)-1]
	if len(body) == 0 {
		return call{}, false
	}
	head := body[0]
	body = body[1:]
	for _, l := range body {
		if strings.HasPrefix(l, "*** ") && l != "*** End of File" {
			return call{}, false // a second operation, or a move
		}
	}
	if p, ok := strings.CutPrefix(head, "*** Add File: "); ok {
		var content strings.Builder
		for _, l := range body {
			text, ok := strings.CutPrefix(l, "+")
			if !ok {
				return call{}, false
			}
			content.WriteString(text)
			content.WriteByte('\n')
		}
		return call{action: Write, args: map[string]string{ArgPath: strings.TrimSpace(p), ArgContent: content.String()}}, true
	}
	p, ok := strings.CutPrefix(head, "*** Update File: ")
	if !ok {
		return call{}, false
	}
	var old, new []string
	hunks := 0
	for i, l := range body {
		switch {
		case strings.HasPrefix(l, "@@"):
			if i > 0 {
				hunks++
			}
			if hunks > 0 {
				return call{}, false // two places: not one edit
			}
		case l == "*** End of File":
		case strings.HasPrefix(l, " "):
			old = append(old, l[1:])
			new = append(new, l[1:])
		case l == "":
			old = append(old, "")
			new = append(new, "")
		case strings.HasPrefix(l, "-"):
			old = append(old, l[1:])
		case strings.HasPrefix(l, "+"):
			new = append(new, l[1:])
		default:
			return call{}, false
		}
	}
	if len(old) == 0 {
		return call{}, false
	}
	return call{action: Edit, args: map[string]string{ArgPath: strings.TrimSpace(p), ArgOld: strings.Join(old, "\n"), ArgNew: strings.Join(new, "\n")}}, true
}

// renderPatch writes an edit or a write in Codex's patch language.
func renderPatch(a Action, args map[string]string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	if a == Write {
		b.WriteString("*** Add File: " + args[ArgPath] + "\n")
		content := strings.TrimSuffix(args[ArgContent], "\n")
		if content != "" || args[ArgContent] != "" {
			for _, l := range strings.Split(content, "\n") {
				b.WriteString("+" + l + "\n")
			}
		}
	} else {
		b.WriteString("*** Update File: " + args[ArgPath] + "\n@@\n")
		for _, l := range strings.Split(args[ArgOld], "\n") {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range strings.Split(args[ArgNew], "\n") {
			b.WriteString("+" + l + "\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}
