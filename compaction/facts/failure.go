package facts

import (
	"regexp"
	"strings"
	"sync"

	"github.com/compactd/compactd/compaction/internal/match"
	"github.com/compactd/compactd/compaction/transcript"
)

// maxErrorLineBytes caps one error line: the diagnosis, not the dump.
const maxErrorLineBytes = 160

var (
	// errorLine matches lines that report a failure. Bare "error" is left
	// out: it is Go's error type in every other line of code.
	errorLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(\berror(:|\[| TS\d)|^error\b|\bfail(ed|ure|s)?\b|--- FAIL|\bpanic:|\bfatal\b|exception\b|traceback|\bundefined:|\bcannot (find|use|open|load|read|write|import|assign|convert)|no such file|permission denied|^\S+\.\w+:\d+(:\d+)?: )`)
	})
	exitCode = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bexit(?:[ _]code|ed with(?: code)?| status)"?[:= ]+(-?\d+)`)
	})
)

// errorWords and exitWords are words every match of errorLine (but its
// file:line alternative) and exitCode holds, in any case (see match).
var (
	errorWords = []string{"error", "fail", "panic:", "fatal", "exception", "traceback", "undefined:", "cannot ", "no such file", "permission denied"}
	exitWords  = []string{"exit"}
)

// Failed reports whether a tool result reports a failure: flagged by the
// agent, or a non-zero exit code stated at its start or end (Claude
// "Exit code 1", Codex "Exit code: 1", "Process exited with code 1" and
// "exit_code":1). Only failed results have error facts: a file listing of
// Go code says "error" everywhere and reports nothing.
func Failed(p *transcript.Part) bool {
	if p.IsError {
		return true
	}
	code, ok := ExitCode(p.Text)
	return ok && code != "0"
}

// ExitCode returns the exit code a tool result states at its start or
// end, as written.
func ExitCode(text string) (string, bool) {
	e := edges(text)
	if !match.MayHold(e, exitWords) {
		return "", false
	}
	m := exitCode().FindStringSubmatch(e)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// edges is the start and end of s, where tools state exit codes.
func edges(s string) string {
	const n = 256
	if len(s) <= 2*n {
		return s
	}
	return s[:n] + "\n" + s[len(s)-n:]
}

// IsErrorLine reports whether one line of output reports a failure.
func IsErrorLine(line string) bool { return mayReportError(line) && errorLine().MatchString(line) }

// ErrorLines returns up to limit distinct error lines of text, trimmed and
// capped, in order.
func ErrorLines(text string, limit int) []string {
	var out []string
	seen := map[string]bool{}
	for len(text) > 0 && len(out) < limit {
		line := text
		if k := strings.IndexByte(text, '\n'); k >= 0 {
			line, text = text[:k], text[k+1:]
		} else {
			text = ""
		}
		line = strings.TrimSpace(line)
		if line == "" || !IsErrorLine(line) {
			continue
		}
		line = Truncate(line, maxErrorLineBytes)
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}

func mayReportError(line string) bool {
	if match.MayHold(line, errorWords) {
		return true
	}
	// file.go:12: style locations: a colon before a digit.
	for k := strings.IndexByte(line, ':'); k >= 0 && k+1 < len(line); {
		if c := line[k+1]; c >= '0' && c <= '9' {
			return true
		}
		next := strings.IndexByte(line[k+1:], ':')
		if next < 0 {
			break
		}
		k += 1 + next
	}
	return false
}

// Truncate cuts s to one line of at most n bytes on a rune boundary,
// marking the cut.
func Truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
