package strategy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/compactd/compactd/compaction/tokens"
	"regexp"
	"strconv"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
)

// placeholderPrefix starts every stand-in compaction writes, so later steps
// and the retention report can recognise them.
const placeholderPrefix = "[compacted: "

const (
	maxErrorLines   = 3
	maxLineBytes    = 160
	maxCommandBytes = 100
	// Argument strings longer than this (or of more lines) are bulk.
	bulkArgBytes = 200
	bulkArgLines = 3
)

var (
	// errorLine matches lines that report a failure. Bare "error" is left
	// out: it is Go's error type in every other line of code.
	errorLine = regexp.MustCompile(`(?i)(\berror(:|\[| TS\d)|^error\b|\bfail(ed|ure|s)?\b|--- FAIL|\bpanic:|\bfatal\b|exception\b|traceback|\bundefined:|\bcannot (find|use|open|load|read|write|import|assign|convert)|no such file|permission denied|^\S+\.\w+:\d+(:\d+)?: )`)
	exitCode  = regexp.MustCompile(`(?i)\bexit(?:[ _]code|ed with(?: code)?| status)"?[:= ]+(-?\d+)`)
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
	if rd, ok := parseRead(name, call.Args, ""); ok {
		from := rd.lines.from
		if from < 1 {
			from = 1
		}
		to := rd.lines.to
		if to == wholeFile || (lines > 0 && from+lines-1 < to) {
			to = from + lines - 1
		}
		if to < from {
			to = from
		}
		fmt.Fprintf(&b, "%s %s lines %d-%d, %s tokens", name, rd.display, from, to, tokens.Thousands(toks))
	} else if cmd := commandOf(call.Args); cmd != "" {
		fmt.Fprintf(&b, "%s %q", name, truncate(cmd, maxCommandBytes))
		if m := exitCode.FindStringSubmatch(edges(res.Text)); m != nil {
			fmt.Fprintf(&b, " exit %s", m[1])
		} else if res.IsError {
			b.WriteString(" failed")
		}
		fmt.Fprintf(&b, ", %d lines, %s tokens", lines, tokens.Thousands(toks))
	} else {
		b.WriteString(name)
		if target := targetOf(call.Args); target != "" {
			fmt.Fprintf(&b, " %s", truncate(target, maxCommandBytes))
		}
		if res.IsError {
			b.WriteString(" failed")
		}
		fmt.Fprintf(&b, ", %d lines, %s tokens", lines, tokens.Thousands(toks))
	}
	var errs []string
	if failed(res) {
		errs = errorLines(res.Text, maxErrorLines+1)
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
func stripArgs(args string, count func(string) int) (string, bool) {
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
		keep = append(keep, bulkPlaceholder(args, count))
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
			b.Write(encodeString(bulkPlaceholder(s, count)))
			changed = true
		case !isString && len(raw) > 2*bulkArgBytes:
			b.Write(encodeString(bulkPlaceholder(string(raw), count)))
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

// argsObject decodes args as a JSON object; a JSON string holding an object
// (Codex arguments) is unwrapped.
func argsObject(args string) map[string]any {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return nil
	}
	if s, ok := v.(string); ok {
		if json.Unmarshal([]byte(s), &v) != nil {
			return nil
		}
	}
	m, _ := v.(map[string]any)
	return m
}

// commandOf returns the shell command a call ran, or "".
func commandOf(args string) string {
	m := argsObject(args)
	if m == nil {
		return ""
	}
	for _, k := range []string{"command", "cmd"} {
		switch c := m[k].(type) {
		case string:
			return c
		case []any:
			parts := make([]string, 0, len(c))
			for _, x := range c {
				if s, ok := x.(string); ok {
					parts = append(parts, s)
				}
			}
			// ["bash", "-lc", "script"]: the script is what matters.
			if len(parts) == 3 && (parts[1] == "-lc" || parts[1] == "-c") {
				return parts[2]
			}
			return strings.Join(parts, " ")
		}
	}
	return ""
}

// targetOf returns the argument that best says what a call acted on.
func targetOf(args string) string {
	m := argsObject(args)
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

func errorLines(text string, limit int) []string {
	var out []string
	seen := map[string]bool{}
	for len(text) > 0 {
		line := text
		if k := strings.IndexByte(text, '\n'); k >= 0 {
			line, text = text[:k], text[k+1:]
		} else {
			text = ""
		}
		line = strings.TrimSpace(line)
		if line == "" || !mayReportError(line) || !errorLine.MatchString(line) {
			continue
		}
		line = truncate(line, maxLineBytes)
		if seen[line] {
			continue
		}
		seen[line] = true
		out = append(out, line)
		if len(out) >= limit {
			break
		}
	}
	return out
}

// failed reports whether a tool result reports a failure: flagged by the
// agent, or a non-zero exit code stated at its start or end (Claude
// "Exit code 1", Codex "Exit code: 1" and "exit_code":1). Only failed
// results are searched for error lines: a file listing of Go code has
// "error" everywhere and reports nothing.
func failed(p *transcript.Part) bool {
	if p.IsError {
		return true
	}
	m := exitCode.FindStringSubmatch(edges(p.Text))
	return m != nil && m[1] != "0"
}

// edges is the start and end of s, where tools state exit codes.
func edges(s string) string {
	const n = 256
	if len(s) <= 2*n {
		return s
	}
	return s[:n] + "\n" + s[len(s)-n:]
}

// errorHints are substrings every errorLine match contains (in one of
// these cases), so most lines skip the regexp.
var errorHints = []string{"rror", "RROR", "ail", "AIL", "anic", "atal", "ATAL", "xception", "raceback", "ndefined", "annot", "o such file", "ermission denied"}

func mayReportError(line string) bool {
	for _, h := range errorHints {
		if strings.Contains(line, h) {
			return true
		}
	}
	// file.go:12: style locations.
	if k := strings.IndexByte(line, ':'); k > 0 && k+1 < len(line) && line[k+1] >= '0' && line[k+1] <= '9' {
		return true
	}
	return false
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return truncate(line, maxLineBytes)
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

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
