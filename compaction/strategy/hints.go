package strategy

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Hint modes for ToolHint.Request and ToolHint.Response.
const (
	HintKeep   = "keep"
	HintStrip  = "strip"
	HintRemove = "remove"
)

// HintModes lists the valid Request/Response values.
func HintModes() []string { return []string{HintKeep, HintRemove, HintStrip} }

// resolvedHint is a ToolHint with every field decided.
type resolvedHint struct {
	request, response string
	dedup, subsumes   bool
}

func hint(req, resp string, dedup, subsumes bool) resolvedHint {
	return resolvedHint{request: req, response: resp, dedup: dedup, subsumes: subsumes}
}

// defaultHints are the shipped per-tool defaults. Reads are cheap to keep as
// requests (a path) and expensive as responses; writes are the opposite.
// State tools (TodoWrite, update_plan) are deduplicated with subsumption: the
// latest call is the current list, every earlier one is noise.
var defaultHints = map[string]resolvedHint{
	// Claude Code
	"Read":         hint(HintKeep, HintStrip, true, true),
	"Grep":         hint(HintKeep, HintStrip, true, false),
	"Glob":         hint(HintKeep, HintStrip, true, false),
	"LS":           hint(HintKeep, HintStrip, true, false),
	"Bash":         hint(HintKeep, HintStrip, true, true),
	"BashOutput":   hint(HintKeep, HintStrip, false, false),
	"Edit":         hint(HintStrip, HintStrip, false, false),
	"MultiEdit":    hint(HintStrip, HintStrip, false, false),
	"Write":        hint(HintStrip, HintKeep, false, false),
	"NotebookEdit": hint(HintStrip, HintStrip, false, false),
	"Task":         hint(HintKeep, HintKeep, false, false),
	"TodoWrite":    hint(HintKeep, HintStrip, true, true),
	"WebFetch":     hint(HintKeep, HintStrip, true, false),
	"WebSearch":    hint(HintKeep, HintStrip, true, false),
	// Codex
	"shell":         hint(HintKeep, HintStrip, true, true),
	"shell_command": hint(HintKeep, HintStrip, true, true),
	"exec_command":  hint(HintKeep, HintStrip, true, true),
	"local_shell":   hint(HintKeep, HintStrip, true, true),
	"apply_patch":   hint(HintStrip, HintStrip, false, false),
	"update_plan":   hint(HintKeep, HintStrip, true, true),
	// jp
	"fs_read_file":   hint(HintKeep, HintStrip, true, true),
	"fs_grep_files":  hint(HintKeep, HintStrip, true, false),
	"fs_list_files":  hint(HintKeep, HintStrip, true, false),
	"fs_create_file": hint(HintStrip, HintKeep, false, false),
	"fs_modify_file": hint(HintStrip, HintStrip, false, false),
	"git_commit":     hint(HintStrip, HintKeep, false, false),
	// generic names (Cline, Gemini CLI, scripts)
	"read_file":         hint(HintKeep, HintStrip, true, true),
	"read_many_files":   hint(HintKeep, HintStrip, true, false),
	"list_files":        hint(HintKeep, HintStrip, true, false),
	"list_directory":    hint(HintKeep, HintStrip, true, false),
	"search_files":      hint(HintKeep, HintStrip, true, false),
	"write_file":        hint(HintStrip, HintKeep, false, false),
	"write_to_file":     hint(HintStrip, HintKeep, false, false),
	"replace":           hint(HintStrip, HintStrip, false, false),
	"replace_in_file":   hint(HintStrip, HintStrip, false, false),
	"run_shell_command": hint(HintKeep, HintStrip, true, true),
	"execute_command":   hint(HintKeep, HintStrip, true, true),
}

// defaultGlobs apply when no exact default matches, in order.
var defaultGlobs = []struct {
	pattern string
	hint    resolvedHint
}{
	{"cargo_*", hint(HintKeep, HintStrip, true, false)},
	{"git_*", hint(HintKeep, HintStrip, true, false)},
	{"fs_*", hint(HintKeep, HintStrip, false, false)},
	{"mcp__*", hint(HintKeep, HintStrip, false, false)},
}

// fallbackHint is for unknown tools: strip bulky output, but never
// deduplicate, since an unknown tool may have side effects a repeat call
// does not make redundant.
var fallbackHint = hint(HintKeep, HintStrip, false, false)

// hintSet resolves a tool name to its hint: user exact, user glob, shipped
// exact, shipped glob, fallback; user fields override shipped ones one by one.
type hintSet struct {
	user      map[string]ToolHint
	userGlobs []string
	cache     map[string]resolvedHint
}

func newHintSet(user map[string]ToolHint) *hintSet {
	h := &hintSet{user: user, cache: map[string]resolvedHint{}}
	for k := range user {
		if strings.ContainsAny(k, "*?[") {
			h.userGlobs = append(h.userGlobs, k)
		}
	}
	// Longer patterns are more specific: "cargo_test*" before "cargo_*".
	sort.Slice(h.userGlobs, func(i, j int) bool {
		if len(h.userGlobs[i]) != len(h.userGlobs[j]) {
			return len(h.userGlobs[i]) > len(h.userGlobs[j])
		}
		return h.userGlobs[i] < h.userGlobs[j]
	})
	return h
}

func (h *hintSet) get(tool string) resolvedHint {
	if r, ok := h.cache[tool]; ok {
		return r
	}
	base, ok := defaultHints[tool]
	if !ok {
		base = fallbackHint
		for _, g := range defaultGlobs {
			if m, _ := path.Match(g.pattern, tool); m {
				base = g.hint
				break
			}
		}
	}
	if u, ok := h.user[tool]; ok {
		base = overlay(base, u)
	} else {
		for _, g := range h.userGlobs {
			if m, _ := path.Match(g, tool); m {
				base = overlay(base, h.user[g])
				break
			}
		}
	}
	h.cache[tool] = base
	return base
}

func overlay(base resolvedHint, u ToolHint) resolvedHint {
	if u.Request != "" {
		base.request = u.Request
	}
	if u.Response != "" {
		base.response = u.Response
	}
	if u.Dedup != nil {
		base.dedup = *u.Dedup
	}
	if u.Subsumes != nil {
		base.subsumes = *u.Subsumes
	}
	return base
}

// ValidateHints returns a one-sentence error for the first hint with an
// invalid mode or a malformed glob.
func ValidateHints(hints map[string]ToolHint) error {
	names := make([]string, 0, len(hints))
	for k := range hints {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := hints[name].Validate(); err != nil {
			return fmt.Errorf("tool hint %q: %w", name, err)
		}
		if _, err := path.Match(name, ""); err != nil {
			return fmt.Errorf("tool hint %q is not a valid glob pattern", name)
		}
	}
	return nil
}

// Validate checks the hint's modes.
func (h ToolHint) Validate() error {
	for _, f := range []struct{ field, v string }{{"request", h.Request}, {"response", h.Response}} {
		switch f.v {
		case "", HintKeep, HintStrip, HintRemove:
		default:
			return fmt.Errorf("%s = %q is not a valid mode (valid: %s)", f.field, f.v, strings.Join(HintModes(), ", "))
		}
	}
	return nil
}
