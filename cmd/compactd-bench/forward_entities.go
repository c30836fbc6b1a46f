package main

// The forward-coverage measure's own entity extractor. It is written for
// the measure alone and shares nothing with what compactd uses to choose
// what to keep (compaction/facts, compaction/summarize, the strategy's
// salience): a bar scored with the selector's own list could not fail.
//
// An entity is something a coding conversation refers to by name: a file
// path, an identifier, a shell command, an error code, a URL. A mention is
// not understanding; the measure only sees whether the name is still in the
// text the model reads.

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
)

// Entity kinds.
const (
	entPath    = "path"
	entIdent   = "identifier"
	entCommand = "command"
	entError   = "error-code"
	entURL     = "url"
)

// An entity is one reference, by kind and normalized key.
type entity struct{ Kind, Key string }

// entitySet is a set of entities.
type entitySet map[entity]bool

func (s entitySet) add(kind, key string) {
	if key != "" {
		s[entity{kind, key}] = true
	}
}

func (s entitySet) addAll(o entitySet) {
	for e := range o {
		s[e] = true
	}
}

var (
	urlRE = regexp.MustCompile(`\bhttps?://[^\s"'<>()\[\]{}\x60]+`)
	// pathRE: slash-separated names (absolute, relative, ~), or a bare file
	// name with an extension of two to five letters.
	pathRE = regexp.MustCompile(`(?:~|\.{1,2})?/?(?:[A-Za-z0-9_@.+-]+/)+[A-Za-z0-9_@.+-]+|\b[A-Za-z0-9_-]+\.[A-Za-z][A-Za-z0-9]{1,4}\b`)
	wordRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`)
	// errCodeRE: compiler and runtime error codes (TS2345, E0502, SA4006,
	// ENOENT, EADDRINUSE) and HTTP statuses named as such.
	errCodeRE = regexp.MustCompile(`\b(?:[A-Z]{1,4}[0-9]{3,5}|E[A-Z]{3,}[A-Z0-9_]*|(?:HTTP|status) [1-5][0-9]{2})\b`)
)

// fileExtensions a bare name must end in to count as a file.
var fileExtensions = map[string]bool{}

func init() {
	for _, e := range strings.Fields("go mod sum py pyi ts tsx js jsx mjs cjs rs java kt c h cc cpp hpp rb php cs swift md json jsonl toml yaml yml sql sh bash zsh lua txt lock cfg ini html css scss proto vue svelte dart ex exs zig tf hcl xml gradle mk env") {
		fileExtensions[e] = true
	}
}

// textEntities extracts the entities a piece of prose or output names.
func textEntities(text string, into entitySet) {
	if text == "" {
		return
	}
	for _, u := range urlRE.FindAllString(text, -1) {
		into.add(entURL, strings.TrimRight(u, ".,;:!?"))
	}
	rest := urlRE.ReplaceAllString(text, " ")
	for _, p := range pathRE.FindAllString(rest, -1) {
		if k := pathKey(p); k != "" {
			into.add(entPath, k)
		}
	}
	for _, c := range errCodeRE.FindAllString(rest, -1) {
		into.add(entError, c)
	}
	// File names are paths, not identifiers: read words from what the
	// paths leave.
	rest = pathRE.ReplaceAllStringFunc(rest, func(p string) string {
		if pathKey(p) != "" {
			return " "
		}
		return p
	})
	for _, w := range wordRE.FindAllString(rest, -1) {
		for _, id := range identifierKeys(w) {
			into.add(entIdent, id)
		}
	}
}

// pathKey normalizes a path to its last two segments ("cli/reset.go"), so
// an absolute and a repository-relative mention of one file agree; "" for
// what is no file path.
func pathKey(p string) string {
	p = strings.TrimRight(p, ".,:;")
	p = strings.TrimLeft(p, "~./")
	if p == "" || strings.HasPrefix(p, "-") {
		return ""
	}
	segs := strings.Split(p, "/")
	last := segs[len(segs)-1]
	dot := strings.LastIndexByte(last, '.')
	hasExt := dot > 0 && fileExtensions[strings.ToLower(last[dot+1:])]
	switch {
	case len(segs) == 1 && !hasExt:
		return ""
	case len(segs) == 2 && !hasExt && len(last) < 3:
		return ""
	case len(segs) == 2 && !hasExt && !strings.ContainsAny(p, "_-") && isAllLetters(p):
		// "and/or", "read/write": prose, not paths.
		return ""
	}
	if len(segs) > 2 {
		segs = segs[len(segs)-2:]
	}
	key := strings.Join(segs, "/")
	if len(key) < 4 {
		return ""
	}
	return key
}

func isAllLetters(s string) bool {
	for _, r := range s {
		if r != '/' && !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// identifierKeys returns the identifiers a word is or holds: camelCase and
// PascalCase with an inner capital, snake_case, SCREAMING_CASE with an
// underscore, and dotted selectors (pkg.Func: both the whole and the last
// name).
func identifierKeys(w string) []string {
	var out []string
	if strings.Contains(w, ".") {
		parts := strings.Split(w, ".")
		if len(parts) == 2 && len(parts[0]) >= 2 && len(parts[1]) >= 3 && unicode.IsUpper(rune(parts[1][0])) {
			out = append(out, w) // pkg.Func, obj.Method
		}
		for _, p := range parts {
			if isIdentLike(p) {
				out = append(out, p)
			}
		}
		return out
	}
	if isIdentLike(w) {
		out = append(out, w)
	}
	return out
}

// isIdentLike says whether a bare word reads as a code identifier rather
// than an English word.
func isIdentLike(w string) bool {
	if len(w) < 4 || len(w) > 80 {
		return false
	}
	if strings.Contains(strings.Trim(w, "_"), "_") {
		return true
	}
	hasLower := false
	for i, r := range w {
		switch {
		case unicode.IsLower(r) || unicode.IsDigit(r):
			hasLower = hasLower || unicode.IsLower(r)
		case unicode.IsUpper(r) && i > 0 && hasLower:
			return true // an inner capital after a lower-case letter
		}
	}
	return false
}

// commandKey reduces a shell command to what names it: the program and,
// when the second word is a subcommand, that word ("go test", "git
// rebase", "npm run"). Leading env assignments, cd … && and sudo are
// skipped.
func commandKey(cmd string) []string {
	var out []string
	for _, seg := range splitShell(shellCode(cmd)) {
		f := strings.Fields(seg)
		for len(f) > 0 && (strings.Contains(f[0], "=") || f[0] == "sudo" || f[0] == "env" || f[0] == "time") {
			f = f[1:]
		}
		if len(f) == 0 || f[0] == "cd" || f[0] == "echo" {
			continue
		}
		prog := f[0]
		if i := strings.LastIndexByte(prog, '/'); i >= 0 {
			prog = prog[i+1:]
		}
		if prog == "" || !isWordish(prog) {
			continue
		}
		key := prog
		if len(f) > 1 && isWordish(f[1]) && !strings.HasPrefix(f[1], "-") && len(f[1]) > 1 {
			key += " " + f[1]
		}
		out = append(out, key)
	}
	return out
}

// shellFlags are the options after which a quoted argument is a command
// line for a shell again (bash -lc "…", cmd /c "…", powershell -Command "…").
var shellFlags = map[string]bool{"-c": true, "-lc": true, "-ic": true, "/c": true, "-Command": true, "-command": true, "-c:": true}

// shellCode is what of a command line the shell runs as commands. A
// here-document's body (<<EOF … EOF), a PowerShell here-string (@' … '@)
// and a quoted argument are data for the program they are handed to — a
// script for node -e or python -c, a commit message — and are left out;
// the quoted argument of a shell's own -c is read as commands again.
func shellCode(cmd string) string {
	var b strings.Builder
	word, last := "", ""
	endWord := func() {
		if word != "" {
			last, word = word, ""
		}
	}
	for i := 0; i < len(cmd); {
		c := cmd[i]
		switch {
		case c == '<' && strings.HasPrefix(cmd[i:], "<<") && !strings.HasPrefix(cmd[i:], "<<<"):
			j := i + 2
			for j < len(cmd) && (cmd[j] == '-' || cmd[j] == '~' || cmd[j] == ' ' || cmd[j] == '\'' || cmd[j] == '"') {
				j++
			}
			k := j
			for k < len(cmd) && isIdentByte(cmd[k]) {
				k++
			}
			delim := cmd[j:k]
			if delim == "" {
				b.WriteByte(c)
				i++
				continue
			}
			for k < len(cmd) && (cmd[k] == '\'' || cmd[k] == '"') {
				k++
			}
			eol := strings.IndexByte(cmd[k:], '\n')
			if eol < 0 {
				i = len(cmd)
				continue
			}
			b.WriteString(cmd[k : k+eol+1]) // the rest of the command's line
			i = len(cmd)
			for off := k + eol + 1; off < len(cmd); {
				n := strings.IndexByte(cmd[off:], '\n')
				line := cmd[off:]
				if n >= 0 {
					line = cmd[off : off+n]
				}
				if strings.TrimSpace(line) == delim {
					i = off + len(line)
					break
				}
				if n < 0 {
					break
				}
				off += n + 1
			}
			endWord()
		case c == '@' && i+1 < len(cmd) && (cmd[i+1] == '\'' || cmd[i+1] == '"'):
			end := strings.Index(cmd[i+2:], "\n"+string(cmd[i+1])+"@")
			if end < 0 {
				i = len(cmd)
			} else {
				i += 2 + end + 3
			}
			b.WriteString(" STR ")
			endWord()
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(cmd) && cmd[j] != c {
				if c == '"' && cmd[j] == '\\' {
					j++
				}
				j++
			}
			content := cmd[i+1 : min(j, len(cmd))]
			endWord()
			if shellFlags[last] {
				b.WriteString("\n" + shellCode(content) + "\n")
			} else {
				b.WriteString(" STR ")
			}
			last = "STR"
			i = j + 1
		default:
			if c == ' ' || c == '\t' || c == '\n' {
				endWord()
			} else {
				word += string(c)
			}
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func splitShell(cmd string) []string {
	r := strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n", "|", "\n")
	return strings.Split(r.Replace(cmd), "\n")
}

func isWordish(s string) bool {
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return s != ""
}

// argsEntities reads a tool call's JSON arguments: every string value is
// text, and a command argument is also a command.
func argsEntities(args string, into entitySet) {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		textEntities(args, into)
		return
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case string:
			textEntities(x, into)
			switch strings.ToLower(key) {
			case "command", "cmd", "script":
				for _, c := range commandKey(x) {
					into.add(entCommand, c)
				}
			}
		case []any:
			// Codex's shell tool takes ["bash", "-lc", "go test ./..."].
			if strings.EqualFold(key, "command") || strings.EqualFold(key, "cmd") {
				var words []string
				for _, e := range x {
					if s, ok := e.(string); ok {
						words = append(words, s)
					}
				}
				if len(words) >= 3 && (words[1] == "-lc" || words[1] == "-c") {
					walk("command", words[2])
					return
				}
				walk("command", strings.Join(words, " "))
				return
			}
			for _, e := range x {
				walk(key, e)
			}
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		}
	}
	walk("", v)
}

// containsEntity reports whether text (lower-cased where the kind is
// case-insensitive) still names e.
func containsEntity(text string, e entity) bool {
	switch e.Kind {
	case entIdent, entError:
		return containsWord(text, e.Key)
	case entCommand:
		return strings.Contains(text, e.Key)
	default:
		return strings.Contains(text, e.Key)
	}
}

// containsWord finds w in text not glued to other identifier characters.
func containsWord(text, w string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len(w)
		if (s == 0 || !isIdentByte(text[s-1])) && (e == len(text) || !isIdentByte(text[e])) {
			return true
		}
		i = s + 1
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
