package facts

import (
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// WholeFile is the end line of a read without a range.
const WholeFile = math.MaxInt

// LineRange is an inclusive 1-based line range.
type LineRange struct{ From, To int }

// Covers reports whether r includes all of o.
func (r LineRange) Covers(o LineRange) bool { return r.From <= o.From && r.To >= o.To }

// A Read is a tool call recognised as reading (part of) one file.
type Read struct {
	// Path is the cleaned, absolute-when-possible key reads are compared
	// by; Display is the path as the call wrote it.
	Path, Display string
	Lines         LineRange
}

// readTools take a path and an optional line range as JSON arguments.
var readTools = map[string]bool{"Read": true, "fs_read_file": true, "read_file": true, "view": true}

// ParseRead recognises a file read: Claude Read (file_path, offset, limit),
// jp fs_read_file (path, start_line, end_line), generic read_file, and shell
// reads (cat f, sed -n 'a,bp' f, nl -ba f | sed -n 'a,bp', head -n N f).
// Relative paths are resolved against the call's workdir, else cwd.
func ParseRead(tool, args, cwd string) (Read, bool) {
	m := Args(args)
	if m == nil {
		return Read{}, false
	}
	if wd, ok := m["workdir"].(string); ok && wd != "" {
		cwd = wd
	}
	switch {
	case readTools[tool]:
		p := StringArg(m, "file_path", "path", "absolute_path", "filePath")
		if p == "" {
			return Read{}, false
		}
		lines := LineRange{1, WholeFile}
		if s, ok := intArg(m, "start_line"); ok {
			lines.From = s
			if e, ok := intArg(m, "end_line"); ok {
				lines.To = e
			}
		} else {
			if off, ok := intArg(m, "offset"); ok && off > 0 {
				lines.From = off
			}
			if lim, ok := intArg(m, "limit"); ok && lim > 0 {
				lines.To = lines.From + lim - 1
			}
		}
		return Read{Path: normPath(p, cwd), Display: p, Lines: lines}, true
	case IsShellTool(tool):
		cmd := CommandText(m)
		if cmd == "" {
			return Read{}, false
		}
		return parseShellRead(cmd, cwd)
	}
	return Read{}, false
}

var (
	sedRange  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sed -n ['"]?(\d+),(\d+)p['"]?(?: (\S+))?$`) })
	nlPrefix  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^nl -ba (\S+)$`) })
	catFile   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cat(?: -n)? (\S+)$`) })
	headLines = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^head (?:-n ?|-)(\d+) (\S+)$`) })
	headPipe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^head (?:-n ?|-)(\d+)$`) })
)

func parseShellRead(cmd, cwd string) (Read, bool) {
	cmd = strings.TrimSpace(cmd)
	if strings.ContainsAny(cmd, ";&><`$") {
		return Read{}, false
	}
	stages := strings.Split(cmd, "|")
	for i := range stages {
		stages[i] = strings.Join(strings.Fields(stages[i]), " ")
	}
	mk := func(file string, from, to int) (Read, bool) {
		file = unquote(file)
		if file == "" || from < 1 || to < from {
			return Read{}, false
		}
		return Read{Path: normPath(file, cwd), Display: file, Lines: LineRange{from, to}}, true
	}
	switch len(stages) {
	case 1:
		if m := sedRange().FindStringSubmatch(stages[0]); m != nil && m[3] != "" {
			return mk(m[3], atoi(m[1]), atoi(m[2]))
		}
		if m := catFile().FindStringSubmatch(stages[0]); m != nil {
			return mk(m[1], 1, WholeFile)
		}
		if m := headLines().FindStringSubmatch(stages[0]); m != nil {
			return mk(m[2], 1, atoi(m[1]))
		}
	case 2:
		nl := nlPrefix().FindStringSubmatch(stages[0])
		if nl == nil {
			nl = catFile().FindStringSubmatch(stages[0])
		}
		if nl == nil {
			return Read{}, false
		}
		if m := sedRange().FindStringSubmatch(stages[1]); m != nil && m[3] == "" {
			return mk(nl[1], atoi(m[1]), atoi(m[2]))
		}
		if m := headPipe().FindStringSubmatch(stages[1]); m != nil {
			return mk(nl[1], 1, atoi(m[1]))
		}
	}
	return Read{}, false
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
