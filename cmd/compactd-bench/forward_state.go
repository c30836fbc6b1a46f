package main

// The forward measure's second score, "working state kept": of the files
// the agent edited before the cut and touched again after it, the share
// whose last state — what the agent last wrote into the file before the
// cut — a compaction still shows the model. A continuation that edits a
// file again needs what it put there; a name alone does not say it.
//
// Like the entity extractor, this reads tool calls its own way (an edit
// is a call whose arguments hold a path and new content, or a patch
// envelope) and shares nothing with compactd's own notion of an edit.

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
)

// fileState is the last content the agent wrote into one file before the
// cut: the lines that say it (long enough to mean something).
type fileState struct {
	Key   string // pathKey of the file
	Lines []string
}

// stateLineMin is the shortest line that counts as content ("}" and
// "end" say nothing about the state).
const stateLineMin = 6

// stateShare is the share of a state's lines a compaction must show for
// the state to count as kept: a fork that re-renders a block may wrap or
// trim a line or two.
const stateShare = 0.8

// maxStateLines caps what one state is judged by: the first lines of a
// long write identify it as well as all of them.
const maxStateLines = 60

// contentKeys are the argument keys edit tools put new content under,
// across agents.
var contentKeys = map[string]bool{
	"content": true, "new_string": true, "new_str": true, "newstring": true, "file_text": true,
	"new_content": true, "newcontent": true, "new_text": true, "newtext": true, "replacement": true,
	"code": true, "text": true, "contents": true, "code_edit": true, "newcode": true,
}

// pathArgKey reports whether an argument key names a file.
func pathArgKey(k string) bool {
	k = strings.ToLower(k)
	return k == "path" || k == "file" || k == "filename" || strings.HasSuffix(k, "_path") || strings.HasSuffix(k, "filepath") ||
		k == "target_file" || k == "absolutepath" || k == "filepath"
}

// workingState lists the files edited in before and touched in after,
// each with its last state before the cut, sorted by key.
func workingState(before, after []transcript.Message) []fileState {
	last := map[string][]string{}
	for i := range before {
		for _, p := range before[i].Parts {
			if p.Kind != transcript.PartToolCall {
				continue
			}
			for key, lines := range callEdits(p.Args) {
				if len(lines) > 0 {
					last[key] = lines
				}
			}
		}
	}
	if len(last) == 0 {
		return nil
	}
	touched := entitySet{}
	for i := range after {
		for _, p := range after[i].Parts {
			if p.Kind == transcript.PartToolCall {
				argsEntities(p.Args, touched)
			}
		}
	}
	var out []fileState
	for key, lines := range last {
		if touched[entity{entPath, key}] {
			out = append(out, fileState{Key: key, Lines: lines})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// callEdits reads one tool call's arguments: the files it writes, each
// with the lines of content it put there.
func callEdits(args string) map[string][]string {
	out := map[string][]string{}
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		patchEdits(args, out)
		return out
	}
	if s, ok := v.(string); ok {
		// Codex keeps a function call's arguments as a JSON string.
		var inner any
		if json.Unmarshal([]byte(s), &inner) != nil {
			patchEdits(s, out)
			return out
		}
		v = inner
	}
	var walk func(obj map[string]any)
	walk = func(obj map[string]any) {
		path := ""
		var content []string
		for k, x := range obj {
			switch t := x.(type) {
			case string:
				switch {
				case pathArgKey(k):
					path = t
				case contentKeys[strings.ToLower(k)]:
					content = append(content, t)
				default:
					patchEdits(t, out)
				}
			case map[string]any:
				walk(t)
			case []any:
				for _, e := range t {
					switch et := e.(type) {
					case map[string]any:
						// MultiEdit's edits: each names new content of the
						// call's file.
						for ek, ex := range et {
							if s, ok := ex.(string); ok && contentKeys[strings.ToLower(ek)] {
								content = append(content, s)
							}
						}
						walk(et)
					case string:
						patchEdits(et, out)
					}
				}
			}
		}
		if path == "" || len(content) == 0 {
			return
		}
		if key := pathKey(path); key != "" {
			sort.Strings(content) // map order must not change the state
			out[key] = stateLines(strings.Join(content, "\n"))
		}
	}
	if obj, ok := v.(map[string]any); ok {
		walk(obj)
	}
	return out
}

// patchEdits reads an apply_patch envelope ("*** Update File: p" and the
// "+" lines after it) or a unified diff ("+++ b/p") in s.
func patchEdits(s string, out map[string][]string) {
	if !strings.Contains(s, "*** ") && !strings.Contains(s, "+++ ") {
		return
	}
	key := ""
	var added []string
	flush := func() {
		if key != "" {
			if lines := stateLines(strings.Join(added, "\n")); len(lines) > 0 {
				out[key] = lines
			}
		}
		key, added = "", nil
	}
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(l, "*** Update File: "), strings.HasPrefix(l, "*** Add File: "):
			flush()
			key = pathKey(strings.TrimSpace(l[strings.Index(l, ": ")+2:]))
		case strings.HasPrefix(l, "+++ "):
			flush()
			p := strings.TrimSpace(strings.TrimPrefix(l, "+++ "))
			p = strings.TrimPrefix(strings.TrimPrefix(p, "b/"), "a/")
			if p != "/dev/null" {
				key = pathKey(p)
			}
		case strings.HasPrefix(l, "*** Delete File: "), strings.HasPrefix(l, "*** End Patch"), strings.HasPrefix(l, "--- "):
			flush()
		case key != "" && strings.HasPrefix(l, "+"):
			added = append(added, l[1:])
		}
	}
	flush()
}

// stateLines are the distinct lines of content that say something, in
// order, at most maxStateLines.
func stateLines(content string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(content, "\n") {
		l = strings.TrimSpace(l)
		if len(l) < stateLineMin || seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, l)
		if len(out) == maxStateLines {
			break
		}
	}
	return out
}

// stateKept counts the states whose lines plain (a compaction's text with
// tool arguments decoded) still shows.
func stateKept(plain string, states []fileState) int {
	kept := 0
	for _, s := range states {
		n := 0
		for _, l := range s.Lines {
			if strings.Contains(plain, l) {
				n++
			}
		}
		if float64(n) >= stateShare*float64(len(s.Lines)) {
			kept++
		}
	}
	return kept
}

// renderPlain is what the model reads of msgs with tool arguments decoded
// (a JSON string argument's escapes undone), so content an edit wrote can
// be found line by line.
func renderPlain(msgs []transcript.Message) string {
	var b bytes.Buffer
	for i := range msgs {
		if !isSystemPrompt(&msgs[i]) {
			writePlain(&b, &msgs[i])
		}
	}
	return b.String()
}

func writePlain(b *bytes.Buffer, m *transcript.Message) {
	for _, p := range m.Parts {
		switch p.Kind {
		case transcript.PartText, transcript.PartToolResult, transcript.PartAttachment, transcript.PartDocument:
			b.WriteString(p.Text)
			b.WriteByte('\n')
		case transcript.PartToolCall:
			b.WriteString(p.ToolName)
			b.WriteByte('\n')
			writeArgStrings(b, p.Args)
		}
	}
}

// writeArgStrings writes every string value of a call's arguments on its
// own lines (the raw text when they are no JSON).
func writeArgStrings(b *bytes.Buffer, args string) {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		b.WriteString(args)
		b.WriteByte('\n')
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			var inner any
			if strings.HasPrefix(strings.TrimSpace(t), "{") && json.Unmarshal([]byte(t), &inner) == nil {
				walk(inner)
				return
			}
			b.WriteString(t)
			b.WriteByte('\n')
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(t[k])
			}
		}
	}
	walk(v)
}
