package strategy

import (
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// wholeFile is the end line of a read without a range.
const wholeFile = math.MaxInt

// lineRange is an inclusive 1-based line range.
type lineRange struct{ from, to int }

func (r lineRange) covers(o lineRange) bool { return r.from <= o.from && r.to >= o.to }

// readCall is a tool call recognised as reading (part of) one file.
type readCall struct {
	// path is the cleaned, absolute-when-possible key reads are compared by;
	// display is the path as the call wrote it.
	path, display string
	lines         lineRange
}

// readTools take a path and an optional line range as JSON arguments.
var readTools = map[string]bool{"Read": true, "fs_read_file": true, "read_file": true, "view": true}

// shellTools run a command; some commands are plain file reads.
var shellTools = map[string]bool{
	"Bash": true, "shell": true, "shell_command": true, "exec_command": true, "local_shell": true,
	"run_shell_command": true, "execute_command": true,
}

// parseRead recognises a file read: Claude Read (file_path, offset, limit),
// jp fs_read_file (path, start_line, end_line), generic read_file, and shell
// reads (cat f, sed -n 'a,bp' f, nl -ba f | sed -n 'a,bp', head -n N f).
func parseRead(tool, args, cwd string) (readCall, bool) {
	m := argsObject(args)
	if m == nil {
		return readCall{}, false
	}
	if wd, ok := m["workdir"].(string); ok && wd != "" {
		cwd = wd
	}
	switch {
	case readTools[tool]:
		p := firstString(m, "file_path", "path", "absolute_path", "filePath")
		if p == "" {
			return readCall{}, false
		}
		lines := lineRange{1, wholeFile}
		if s, ok := intArg(m, "start_line"); ok {
			lines.from = s
			if e, ok := intArg(m, "end_line"); ok {
				lines.to = e
			}
		} else {
			if off, ok := intArg(m, "offset"); ok && off > 0 {
				lines.from = off
			}
			if lim, ok := intArg(m, "limit"); ok && lim > 0 {
				lines.to = lines.from + lim - 1
			}
		}
		return readCall{path: normPath(p, cwd), display: p, lines: lines}, true
	case shellTools[tool]:
		cmd := commandOf(args)
		if cmd == "" {
			return readCall{}, false
		}
		return parseShellRead(cmd, cwd)
	}
	return readCall{}, false
}

var (
	sedRange  = regexp.MustCompile(`^sed -n ['"]?(\d+),(\d+)p['"]?(?: (\S+))?$`)
	nlPrefix  = regexp.MustCompile(`^nl -ba (\S+)$`)
	catFile   = regexp.MustCompile(`^cat(?: -n)? (\S+)$`)
	headLines = regexp.MustCompile(`^head (?:-n ?|-)(\d+) (\S+)$`)
)

func parseShellRead(cmd, cwd string) (readCall, bool) {
	cmd = strings.TrimSpace(cmd)
	if strings.ContainsAny(cmd, ";&><`$") {
		return readCall{}, false
	}
	stages := strings.Split(cmd, "|")
	for i := range stages {
		stages[i] = strings.Join(strings.Fields(stages[i]), " ")
	}
	mk := func(file string, from, to int) (readCall, bool) {
		file = unquote(file)
		if file == "" || from < 1 || to < from {
			return readCall{}, false
		}
		return readCall{path: normPath(file, cwd), display: file, lines: lineRange{from, to}}, true
	}
	switch len(stages) {
	case 1:
		if m := sedRange.FindStringSubmatch(stages[0]); m != nil && m[3] != "" {
			return mk(m[3], atoi(m[1]), atoi(m[2]))
		}
		if m := catFile.FindStringSubmatch(stages[0]); m != nil {
			return mk(m[1], 1, wholeFile)
		}
		if m := headLines.FindStringSubmatch(stages[0]); m != nil {
			return mk(m[2], 1, atoi(m[1]))
		}
	case 2:
		nl := nlPrefix.FindStringSubmatch(stages[0])
		if nl == nil {
			nl = catFile.FindStringSubmatch(stages[0])
		}
		if nl == nil {
			return readCall{}, false
		}
		if m := sedRange.FindStringSubmatch(stages[1]); m != nil && m[3] == "" {
			return mk(nl[1], atoi(m[1]), atoi(m[2]))
		}
		if m := regexp.MustCompile(`^head (?:-n ?|-)(\d+)$`).FindStringSubmatch(stages[1]); m != nil {
			return mk(nl[1], 1, atoi(m[1]))
		}
	}
	return readCall{}, false
}

func normPath(p, cwd string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if !path.IsAbs(p) && cwd != "" {
		p = path.Join(strings.ReplaceAll(cwd, `\`, "/"), p)
	}
	return path.Clean(p)
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func intArg(m map[string]any, key string) (int, bool) {
	switch v := m[key].(type) {
	case float64:
		return int(v), true
	case string:
		n, err := strconv.Atoi(v)
		return n, err == nil
	}
	return 0, false
}
