package salience

import (
	"regexp"
	"strings"
	"sync"

	"github.com/compactd/compactd/compaction/internal/match"
	"github.com/compactd/compactd/compaction/internal/memo"
)

// Kind is what sort of name an entity is.
type Kind uint8

// Entity kinds, in the order summaries list them.
const (
	Path Kind = iota
	Identifier
	Command
	Error
	URL
	nKinds
)

func (k Kind) String() string {
	switch k {
	case Path:
		return "path"
	case Identifier:
		return "identifier"
	case Command:
		return "command"
	case Error:
		return "error"
	case URL:
		return "url"
	}
	return "unknown"
}

// An Entity is one name, in the form a summary writes it.
type Entity struct {
	Kind Kind
	Text string
}

// The expressions are compiled on first use, not at start: every command
// links this package, and one that never runs it (a status line, a gauge)
// paid for compiling them on each run.
var (
	reURL = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s"'<>\x60]+`) })
	// rePath: names joined by slashes, or one name with a file extension.
	rePath = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:~|\.{1,2})?/?(?:[A-Za-z0-9_.@\-]+/)+[A-Za-z0-9_.@\-]+|\b[A-Za-z0-9_\-]+\.(?:go|py|pyi|ts|tsx|js|jsx|mjs|cjs|rs|java|kt|c|h|cc|cpp|hpp|rb|php|cs|swift|md|json|jsonl|toml|yaml|yml|sql|sh|lua|txt|mod|sum|lock|cfg|ini|html|css|scss|proto|vue|svelte|dart|ex|exs|zig|tf|xml|gradle|env)\b`)
	})
	reExt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,5}$`) })
	// reIdent: a backticked name; a member selector (pkg.Func,
	// Type.Member, obj_name.Method: the whole, which names both parts);
	// snake_case (and __dunder__ and _private forms); a word with an
	// inner capital after a lower-case letter or digit (camelCase,
	// PascalCase, CDataExchange, m_listView).
	reIdent = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_.:\\-]{1,60})`|\\b(?:[A-Za-z_][A-Za-z0-9_]*\\.[A-Z][A-Za-z0-9_]*[a-z0-9][A-Za-z0-9_]*|_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+|[A-Za-z_][A-Za-z0-9_]*[a-z0-9][A-Z][A-Za-z0-9_]*)\\b")
	})
	// reCode: compiler, linter and system error codes (TS2345, E0502,
	// SA4006, ENOENT).
	reCode = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:[A-Z]{1,3}[0-9]{3,5}|E(?:ACCES|ADDRINUSE|AGAIN|CONNREFUSED|CONNRESET|EXIST|INVAL|ISDIR|MFILE|NOENT|NOTDIR|NOTEMPTY|PERM|PIPE|TIMEDOUT))\b`)
	})
	pathRuns = sync.OnceValue(func() *match.Runs {
		return match.NewRuns(rePath(), match.WordBytes+".@-~/", func(run string) bool { return strings.ContainsAny(run, "/.") })
	})
	identRuns = sync.OnceValue(func() *match.Runs { return match.NewRuns(reIdent(), match.WordBytes+".:-`", mayBeIdentifier) })
	codeRuns  = sync.OnceValue(func() *match.Runs {
		return match.NewRuns(reCode(), match.WordBytes, func(run string) bool { return hasDigitOrE(run) })
	})
)

func mayBeIdentifier(run string) bool {
	for i := 0; i < len(run); i++ {
		switch c := run[i]; {
		case c == '`' || c == '_':
			return true
		case c >= 'A' && c <= 'Z' && i > 0:
			if p := run[i-1]; p >= 'a' && p <= 'z' || p >= '0' && p <= '9' || p == '.' {
				return true
			}
		}
	}
	return false
}

func hasDigitOrE(run string) bool {
	return strings.ContainsAny(run, "0123456789") || strings.HasPrefix(run, "E")
}

// scans are what Scan found in the texts it read last: one compaction
// indexes the same messages several times (the fit, its restore, the
// summary, the trade-off), and the expressions are most of the cost.
var scans = memo.New[[]Entity](64 << 20)

// Scan returns the entities text names, in order of appearance within
// each kind: URLs, paths, error codes and identifiers. A path is not also
// read as identifiers.
func Scan(text string, into func(Entity)) {
	if text == "" {
		return
	}
	for _, e := range scans.Of(text, entitiesOf) {
		into(e)
	}
}

// entitiesOf is what Scan reports of text, in order.
func entitiesOf(text string) []Entity {
	var out []Entity
	scanText(text, func(e Entity) { out = append(out, e) })
	return out
}

func scanText(text string, into func(Entity)) {
	clean := text
	if strings.Contains(text, "://") {
		clean = reURL().ReplaceAllStringFunc(text, func(u string) string {
			into(Entity{URL, strings.TrimRight(u, ".,;:)]}'\"")})
			return " "
		})
	}
	clean = pathRuns().ReplaceAllFunc(clean, func(p string) string {
		if !isPathLike(p) {
			return p
		}
		into(Entity{Path, strings.TrimRight(p, ".:,")})
		return " "
	})
	if strings.ContainsAny(clean, "0123456789E") {
		for _, c := range codeRuns().FindAllSubmatch(clean) {
			into(Entity{Error, c[0]})
		}
	}
	for _, sub := range identRuns().FindAllSubmatch(clean) {
		id := sub[0]
		if sub[1] != "" {
			id = sub[1]
		}
		id = strings.Trim(id, "`:.")
		if len(id) < 3 || isPathLike(id) || strings.ContainsAny(id, " ") {
			continue
		}
		into(Entity{Identifier, id})
	}
}

// isPathLike tells a path from a dotted word: it has a directory and an
// extension, starts like a path, or has two slashes.
func isPathLike(p string) bool {
	p = strings.TrimRight(p, ".:,")
	if strings.Contains(p, "://") || len(p) < 4 {
		return false
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		return strings.Count(p, "/") >= 1 && len(p) > 2 && !strings.HasSuffix(p, "/")
	}
	if reExt().MatchString(p) && !strings.Contains(p, "(") {
		// "e.g" and "i.e" are prose; a name with an extension is a file.
		return len(p) > 4 || strings.Contains(p, "/")
	}
	return strings.Count(p, "/") >= 2
}

// Relative rewrites an absolute path under cwd as relative to it, so that
// "/home/u/repo/cmd/main.go" and "cmd/main.go" are one file.
func Relative(path, cwd string) string {
	if cwd == "" || !strings.HasPrefix(path, "/") && !(len(path) > 2 && path[1] == ':') {
		return path
	}
	c := strings.TrimRight(cwd, `/\`)
	if len(path) > len(c)+1 && strings.HasPrefix(path, c) && (path[len(c)] == '/' || path[len(c)] == '\\') {
		return path[len(c)+1:]
	}
	return path
}
