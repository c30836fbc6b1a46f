package strategy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/compactd/compactd/compaction/facts"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// placeholderPrefix starts every stand-in compaction writes, so later steps
// and the retention report can recognise them.
const placeholderPrefix = facts.PlaceholderPrefix

const (
	maxErrorLines   = facts.MaxErrorLines
	maxLineBytes    = 160
	maxCommandBytes = 100
	// Argument strings longer than this (or of more lines) are bulk.
	bulkArgBytes = 200
	bulkArgLines = 3
)

// resultPlaceholder writes the one-line stand-in for a stripped tool result:
// what was called, on what, how it ended, its size, and the error lines
// when they are few enough to keep.
func resultPlaceholder(call, res *transcript.Part, toks int) string {
	var b strings.Builder
	b.WriteString(placeholderPrefix)
	name := call.ToolName
	if name == "" {
		name = res.ToolName
	}
	lines := countLines(res.Text)
	if rd, ok := facts.ParseRead(name, call.Args, ""); ok {
		from := rd.Lines.From
		if from < 1 {
			from = 1
		}
		to := rd.Lines.To
		if to == facts.WholeFile || (lines > 0 && from+lines-1 < to) {
			to = from + lines - 1
		}
		if to < from {
			to = from
		}
		fmt.Fprintf(&b, "%s %s lines %d-%d, %s tokens", name, rd.Display, from, to, tokens.Thousands(toks))
	} else if cmd := facts.CommandOf(call.Args); cmd != "" {
		fmt.Fprintf(&b, "%s %q", name, facts.Truncate(cmd, maxCommandBytes))
		if code, ok := facts.ExitCode(res.Text); ok {
			fmt.Fprintf(&b, " exit %s", code)
		} else if res.IsError {
			b.WriteString(" failed")
		}
		fmt.Fprintf(&b, ", %d lines, %s tokens", lines, tokens.Thousands(toks))
	} else {
		b.WriteString(name)
		if target := targetOf(call.Args); target != "" {
			fmt.Fprintf(&b, " %s", facts.Truncate(target, maxCommandBytes))
		}
		if res.IsError {
			b.WriteString(" failed")
		}
		fmt.Fprintf(&b, ", %d lines, %s tokens", lines, tokens.Thousands(toks))
	}
	var errs []string
	if facts.Failed(res) {
		errs = facts.ErrorLines(res.Text, maxErrorLines+1)
	}
	switch {
	case len(errs) > 0 && len(errs) <= maxErrorLines:
		fmt.Fprintf(&b, ", %d error lines kept: %s", len(errs), strings.Join(errs, " | "))
	case len(errs) > maxErrorLines:
		fmt.Fprintf(&b, ", first %d error lines kept: %s", maxErrorLines, strings.Join(errs[:maxErrorLines], " | "))
	case res.IsError:
		if first := firstLine(res.Text); first != "" {
			fmt.Fprintf(&b, ": %s", first)
		}
	}
	b.WriteString("]")
	return b.String()
}

// attachmentPlaceholder stands in for an image, document or injected file.
func attachmentPlaceholder(p *transcript.Part, toks int) string {
	switch p.Kind {
	case transcript.PartImage, transcript.PartDocument:
		s := placeholderPrefix + string(p.Kind)
		if p.MIME != "" {
			s += " " + p.MIME
		}
		if p.Width > 0 && p.Height > 0 {
			s += fmt.Sprintf(" %dx%d", p.Width, p.Height)
		}
		if p.Size > 0 {
			s += fmt.Sprintf(", %s bytes", tokens.Thousands(p.Size))
		}
		return s + "]"
	default:
		s := placeholderPrefix + "attachment"
		if first := firstLine(p.Text); first != "" {
			s += " " + first
		}
		return s + fmt.Sprintf(", %d lines, %s tokens]", countLines(p.Text), tokens.Thousands(toks))
	}
}

// stripArgs replaces bulky string values in a tool call's JSON arguments
// with a placeholder, keeping the keys and the short values (paths,
// patterns) that say what the call did. Non-JSON arguments (apply_patch's
// raw patch) keep their header lines. ok is false when nothing is bulky.
// Each placeholder goes through name, which adds its recall handle.
func stripArgs(args string, count func(string) int, name func(placeholder, original string) string) (string, bool) {
	trimmed := strings.TrimSpace(args)
	if !strings.HasPrefix(trimmed, "{") {
		if !isBulk(args) {
			return "", false
		}
		var keep []string
		for _, line := range strings.Split(args, "\n") {
			if strings.HasPrefix(line, "*** ") {
				keep = append(keep, line)
			}
		}
		keep = append(keep, name(bulkPlaceholder(args, count), args))
		return strings.Join(keep, "\n"), true
	}
	members, err := orderedMembers([]byte(trimmed))
	if err != nil {
		return "", false
	}
	changed := false
	var b bytes.Buffer
	b.WriteByte('{')
	for k, m := range members {
		if k > 0 {
			b.WriteByte(',')
		}
		b.Write(encodeString(m.key))
		b.WriteByte(':')
		raw := m.value
		var s string
		isString := len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil
		switch {
		case isString && isBulk(s):
			b.Write(encodeString(name(bulkPlaceholder(s, count), s)))
			changed = true
		case !isString && len(raw) > 2*bulkArgBytes:
			b.Write(encodeString(name(bulkPlaceholder(string(raw), count), string(raw))))
			changed = true
		default:
			b.Write(raw)
		}
	}
	b.WriteByte('}')
	if !changed {
		return "", false
	}
	return b.String(), true
}

func isBulk(s string) bool {
	return len(s) > bulkArgBytes || strings.Count(s, "\n") >= bulkArgLines
}

func bulkPlaceholder(s string, count func(string) int) string {
	return fmt.Sprintf("%s%d lines, %s tokens]", placeholderPrefix, countLines(s), tokens.Thousands(count(s)))
}

type member struct {
	key   string
	value json.RawMessage
}

// orderedMembers decodes a JSON object's members in source order.
func orderedMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("object key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	return out, nil
}

func encodeString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// canonicalJSON renders args with sorted keys and no insignificant
// whitespace, so identical calls compare equal however they were spaced.
func canonicalJSON(args string) string {
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return strings.TrimSpace(args)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return strings.TrimSpace(args)
	}
	return string(b)
}

// targetOf returns the argument that best says what a call acted on.
func targetOf(args string) string {
	m := facts.Args(args)
	if m == nil {
		return ""
	}
	var out []string
	for _, k := range []string{"pattern", "query", "url", "file_path", "path", "notebook_path", "description"} {
		if s, ok := m[k].(string); ok && s != "" {
			if k == "pattern" || k == "query" {
				s = strconv.Quote(s)
			}
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return facts.Truncate(line, maxLineBytes)
		}
	}
	return ""
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
