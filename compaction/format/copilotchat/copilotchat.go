// Package copilotchat is the codec for VS Code Copilot Chat sessions
// (workspaceStorage/<hash>/chatSessions/<id>.jsonl, older <id>.json). The
// .jsonl is an operation log over one session object: kind 0 sets the
// whole object, kind 1 sets the value at a key path, kind 2 pushes items
// onto the array at a path (after cutting it to index i when given), kind
// 3 deletes the value at a path. The .json is the object itself. Each of
// the session's requests is a user message (message.text), the rounds of
// tool calls its result records (result.metadata.toolCallRounds with their
// toolCallResults), and the answer (the response parts' markdown); the
// gauge calibrates on result.metadata.promptTokens (+ outputTokens) of
// the last request that reports them.
//
// The log is replayed whole on every change (it is not incremental).
// Copilot Chat resumes nothing from a file compactd writes: forks are
// exported sessions (one kind-0 snapshot). The shapes follow VS Code's and
// the Copilot Chat extension's public serialization code; no session of
// the real agent was available. Like all of compaction/, this package
// takes and returns bytes only.
package copilotchat

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// Codec reads and writes Copilot Chat sessions.
type Codec struct{}

var _ format.Codec = Codec{}

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatCopilotChat }

// frame is Transcript.Frame.
type frame struct {
	lines *jsonl.Frame // the operation log
	doc   []byte       // a .json document (one record)
	// session is the replayed session object.
	session map[string]any
}

// Parse implements format.Codec.
func (c Codec) Parse(src []byte) (*transcript.Transcript, error) {
	trim := bytes.TrimSpace(bytes.TrimPrefix(src, format.BOM))
	t := &transcript.Transcript{Format: transcript.FormatCopilotChat}
	var session map[string]any
	if len(trim) > 0 && trim[0] == '{' && !bytes.Contains(trim, []byte("\n{")) && isDocument(trim) {
		// A .json session: one object.
		if err := decode(trim, &session); err != nil {
			return nil, fmt.Errorf("not a Copilot Chat session: %w", err)
		}
		t.Records = []transcript.Record{{Start: 0, End: int64(len(src)), Raw: src, Kind: transcript.RecordMessage, Type: "session"}}
		t.Frame = &frame{doc: src, session: session}
	} else {
		touched := map[int]int{} // request index → last line that touched it
		fr, _ := (jsonl.Frame{}).Split(src, 0, 0, 0, func(l jsonl.Line) jsonl.Verdict {
			idx := len(t.Records)
			rec := transcript.Record{Start: l.Start, End: l.End, Raw: l.Raw, Kind: transcript.RecordMeta}
			var op struct {
				Kind *int            `json:"kind"`
				K    []any           `json:"k"`
				V    json.RawMessage `json:"v"`
				I    *int            `json:"i"`
			}
			err := json.Unmarshal(l.Raw, &op)
			if err == nil && op.Kind == nil {
				err = fmt.Errorf("no kind")
			}
			if err == nil {
				rec.Type = "kind " + strconv.Itoa(*op.Kind)
				session, err = apply(session, *op.Kind, op.K, op.V, op.I)
			}
			if err != nil {
				rec.Kind, rec.Err = transcript.RecordMalformed, err.Error()
				t.Skipped++
				t.Problems = append(t.Problems, transcript.Problem{Record: idx, Line: l.Number, Message: fmt.Sprintf("line %d: %v", l.Number, err)})
			} else if *op.Kind == 0 {
				rec.Kind = transcript.RecordMessage
				for k := range requestsOf(session) {
					touched[k] = idx
				}
			} else if len(op.K) > 0 && op.K[0] == "requests" {
				rec.Kind = transcript.RecordMessage
				if len(op.K) > 1 {
					if k, ok := index(op.K[1]); ok {
						touched[k] = idx
					}
				} else {
					for k := range requestsOf(session) {
						if _, ok := touched[k]; !ok || *op.Kind == 2 {
							touched[k] = idx
						}
					}
				}
			}
			t.Records = append(t.Records, rec)
			return jsonl.Take
		})
		if len(t.Records) > 0 && t.Skipped == len(t.Records) {
			return nil, fmt.Errorf("not a Copilot Chat session log: no line is an operation (%s)", t.Problems[0].Message)
		}
		if session == nil {
			return nil, fmt.Errorf("not a Copilot Chat session log: no snapshot (kind 0) line")
		}
		t.Frame = &frame{lines: &fr, session: session}
		defer func() { recordsOf(t, touched) }()
	}
	t.Size = int64(len(src))
	t.Meta.SessionID, _ = session["sessionId"].(string)
	t.Meta.Title, _ = session["customTitle"].(string)
	t.Messages = messages(session)
	for _, m := range t.Messages {
		if m.Model != "" {
			t.Meta.Model = m.Model
		}
	}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t, nil
}

// recordsOf points each message at the last log line that touched its request.
func recordsOf(t *transcript.Transcript, touched map[int]int) {
	for i := range t.Messages {
		m := &t.Messages[i]
		k := m.Parts[0].Ref.Block / requestBlock
		r, ok := touched[k]
		if !ok {
			r = 0
		}
		m.Records = []int{r}
		for p := range m.Parts {
			m.Parts[p].Ref.Record = r
		}
	}
}

func isDocument(b []byte) bool {
	var v map[string]any
	return decode(b, &v) == nil && v["requests"] != nil
}

func decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

func index(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil && i >= 0
	case float64:
		return int(n), n >= 0 && n == float64(int(n))
	}
	return 0, false
}

// apply runs one operation on the session object.
func apply(session map[string]any, kind int, path []any, raw json.RawMessage, at *int) (map[string]any, error) {
	var v any
	if len(raw) > 0 {
		if err := decode(raw, &v); err != nil {
			return session, err
		}
	}
	if kind == 0 {
		m, ok := v.(map[string]any)
		if !ok {
			return session, fmt.Errorf("snapshot is not an object")
		}
		return m, nil
	}
	if session == nil {
		return session, fmt.Errorf("operation before the snapshot")
	}
	if len(path) == 0 {
		return session, fmt.Errorf("operation with an empty path")
	}
	var parent any = session
	for _, key := range path[:len(path)-1] {
		next, err := child(parent, key)
		if err != nil {
			return session, err
		}
		parent = next
	}
	last := path[len(path)-1]
	switch kind {
	case 1:
		return session, set(parent, last, v)
	case 2:
		cur, err := child(parent, last)
		if err != nil {
			cur = nil
		}
		arr, _ := cur.([]any)
		if cur != nil && arr == nil {
			return session, fmt.Errorf("push onto a value that is not an array")
		}
		if at != nil {
			if *at < 0 || *at > len(arr) {
				return session, fmt.Errorf("push at %d past the array's end (%d)", *at, len(arr))
			}
			arr = arr[:*at:*at]
		}
		items, _ := v.([]any)
		if v != nil && items == nil {
			return session, fmt.Errorf("push of a value that is not an array")
		}
		return session, set(parent, last, append(arr, items...))
	case 3:
		switch p := parent.(type) {
		case map[string]any:
			key, ok := last.(string)
			if !ok {
				return session, fmt.Errorf("delete of a non-string key in an object")
			}
			delete(p, key)
			return session, nil
		}
		return session, fmt.Errorf("delete in a value that is not an object")
	}
	return session, fmt.Errorf("unknown operation kind %d", kind)
}

func child(parent, key any) (any, error) {
	switch p := parent.(type) {
	case map[string]any:
		k, ok := key.(string)
		if !ok {
			return nil, fmt.Errorf("index %v into an object", key)
		}
		v, ok := p[k]
		if !ok {
			return nil, fmt.Errorf("no key %q", k)
		}
		return v, nil
	case []any:
		i, ok := index(key)
		if !ok || i >= len(p) {
			return nil, fmt.Errorf("index %v out of range", key)
		}
		return p[i], nil
	}
	return nil, fmt.Errorf("path goes through a value that is neither an object nor an array")
}

func set(parent, key, v any) error {
	switch p := parent.(type) {
	case map[string]any:
		k, ok := key.(string)
		if !ok {
			return fmt.Errorf("index %v into an object", key)
		}
		p[k] = v
		return nil
	case []any:
		i, ok := index(key)
		if !ok || i >= len(p) {
			return fmt.Errorf("index %v out of range", key)
		}
		p[i] = v
		return nil
	}
	return fmt.Errorf("set in a value that is neither an object nor an array")
}

func requestsOf(session map[string]any) []any {
	r, _ := session["requests"].([]any)
	return r
}

// Block layout: request k's parts have Ref.Block k*requestBlock + sub,
// sub 0 the prompt, 1 the answer, 2 its reasoning, roundBlock*(r+1)+2*j
// (+1) round r's call j (and its result), roundBlock*(r+1)-1 round r's
// text.
const (
	requestBlock = 1 << 20
	roundBlock   = 1 << 10
)

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) int {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	case float64:
		return int(n)
	}
	return 0
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// messages reads the session's requests.
func messages(session map[string]any) []transcript.Message {
	var out []transcript.Message
	for k, rv := range requestsOf(session) {
		req := obj(rv)
		if req == nil {
			continue
		}
		base := k * requestBlock
		ts := time.Time{}
		if n := num(req["timestamp"]); n > 0 {
			ts = time.UnixMilli(int64(n)).UTC()
		}
		id := cmp.Or(str(req["requestId"]), fmt.Sprintf("request-%d", k))
		model := strings.TrimPrefix(str(req["modelId"]), "copilot/")
		if text := str(obj(req["message"])["text"]); text != "" {
			out = append(out, transcript.Message{ID: id, Role: transcript.RoleUser, Origin: transcript.OriginHuman, Timestamp: ts,
				Parts: []transcript.Part{{Kind: transcript.PartText, Text: text, Ref: transcript.Ref{Block: base}}}})
		}
		result := obj(req["result"])
		meta := obj(result["metadata"])
		results := obj(meta["toolCallResults"])
		var last int = -1
		rounds, _ := meta["toolCallRounds"].([]any)
		for r, rnd := range rounds {
			round := obj(rnd)
			var parts []transcript.Part
			if text := str(round["response"]); text != "" && r < len(rounds)-1 {
				parts = append(parts, transcript.Part{Kind: transcript.PartText, Text: text, Ref: transcript.Ref{Block: base + roundBlock*(r+1) - 1}})
			}
			var res []transcript.Part
			calls, _ := round["toolCalls"].([]any)
			for j, cv := range calls {
				call := obj(cv)
				cid := str(call["id"])
				args := str(call["arguments"])
				if args == "" {
					args = "{}"
				}
				parts = append(parts, transcript.Part{Kind: transcript.PartToolCall, ToolCallID: cid, ToolName: str(call["name"]), Args: args, Ref: transcript.Ref{Block: base + roundBlock*(r+1) + 2*j}})
				if rv, ok := results[cid]; ok {
					res = append(res, transcript.Part{Kind: transcript.PartToolResult, ToolCallID: cid, ToolName: str(call["name"]), Text: resultText(rv), Ref: transcript.Ref{Block: base + roundBlock*(r+1) + 2*j + 1}})
				}
			}
			if len(parts) > 0 {
				out = append(out, transcript.Message{ID: fmt.Sprintf("%s#%d", id, r), Role: transcript.RoleAssistant, Origin: transcript.OriginAgent, Model: model, Timestamp: ts, Parts: parts})
				last = len(out) - 1
			}
			if len(res) > 0 {
				out = append(out, transcript.Message{ID: fmt.Sprintf("%s#%d/results", id, r), Role: transcript.RoleTool, Origin: transcript.OriginToolResult, Timestamp: ts, Parts: res})
			}
		}
		answer, thinking := responseText(req["response"])
		var parts []transcript.Part
		if thinking != "" {
			parts = append(parts, transcript.Part{Kind: transcript.PartReasoning, Text: thinking, Ref: transcript.Ref{Block: base + 2}})
		}
		if answer != "" {
			parts = append(parts, transcript.Part{Kind: transcript.PartText, Text: answer, Ref: transcript.Ref{Block: base + 1}})
		}
		if len(parts) > 0 {
			out = append(out, transcript.Message{ID: id + "#answer", Role: transcript.RoleAssistant, Origin: transcript.OriginAgent, Model: model, Timestamp: ts, Parts: parts})
			last = len(out) - 1
		}
		prompt, output := num(meta["promptTokens"]), num(meta["outputTokens"])
		if usage := obj(req["usage"]); prompt == 0 && usage != nil {
			prompt, output = num(usage["promptTokens"]), num(usage["completionTokens"])
		}
		if last >= 0 && prompt > 0 {
			out[last].Usage = &transcript.Usage{Input: prompt, Output: output}
		}
	}
	return out
}

// responseText joins the response's markdown parts and its thinking.
func responseText(v any) (answer, thinking string) {
	parts, _ := v.([]any)
	var a, th []string
	for _, pv := range parts {
		p := obj(pv)
		switch str(p["kind"]) {
		case "", "markdownContent":
			val := p["value"]
			if c := obj(p["content"]); c != nil {
				val = c["value"]
			}
			if s := str(val); s != "" {
				a = append(a, s)
			}
		case "thinking":
			if s := str(p["value"]); s != "" {
				th = append(th, s)
			}
		}
	}
	return strings.Join(a, ""), strings.Join(th, "\n")
}

// resultText is a tool result's text: its content parts' values.
func resultText(v any) string {
	r := obj(v)
	content, _ := r["content"].([]any)
	var texts []string
	for _, c := range content {
		if s := str(obj(c)["value"]); s != "" {
			texts = append(texts, s)
		} else if s := str(obj(c)["text"]); s != "" {
			texts = append(texts, s)
		}
	}
	if len(texts) == 0 && r == nil {
		b, _ := jsonx.Marshal(v)
		return string(b)
	}
	return strings.Join(texts, "\n")
}

// Write implements format.Codec.
func (Codec) Write(t *transcript.Transcript) ([]byte, error) {
	f, ok := t.Frame.(*frame)
	if !ok {
		return nil, fmt.Errorf("write copilot-chat: transcript was not parsed by this codec")
	}
	if f.lines == nil {
		return f.doc, nil
	}
	return jsonl.Write(f.lines, t.Records), nil
}

// Detect implements format.Codec: an operation log whose snapshot (or a
// document) is a chat session: requests, and the session fields VS Code
// writes (sessionId, creationDate, requesterUsername/responderUsername).
// It judges the decoded values, whatever the layout and the keys' order;
// where the head ends inside the requests before those fields, the
// requests themselves (requestId, message).
func (Codec) Detect(name string, head []byte) int {
	trim := bytes.TrimSpace(bytes.TrimPrefix(head, format.BOM))
	if len(trim) == 0 || trim[0] != '{' {
		return 0
	}
	score := 0
	first := trim
	if i := bytes.IndexByte(trim, '\n'); i >= 0 {
		first = trim[:i]
	}
	var op struct {
		Kind *int           `json:"kind"`
		V    map[string]any `json:"v"`
	}
	switch line := jsonx.Peek(first); {
	case line.Bad:
	case line.Complete && json.Unmarshal(first, &op) == nil && op.Kind != nil:
		// An operation log: its first line is the snapshot.
		if *op.Kind == 0 && chatSession(op.V, true) {
			score = 90
		}
	case line.Complete && len(first) < len(trim):
		// Lines of JSON that are no operation log.
	default:
		// A document, on one line or many.
		if p := jsonx.Peek(trim); !p.Bad && !p.Trailing {
			doc, _ := p.Value.(map[string]any)
			if chatSession(doc, p.Complete) {
				score = 70
			}
		}
	}
	if score > 0 && filepath.Base(filepath.Dir(name)) == "chatSessions" {
		score = min(score+8, 100)
	}
	return score
}

// chatSession reports whether v holds a chat session: requests and the
// fields VS Code writes with them, or, in a document cut before those
// (complete false), requests shaped as VS Code's.
func chatSession(v map[string]any, complete bool) bool {
	reqs, ok := v["requests"].([]any)
	if !ok {
		return false
	}
	known := 0
	for _, k := range []string{"responderUsername", "requesterUsername", "creationDate", "sessionId"} {
		if _, ok := v[k]; ok {
			known++
		}
	}
	_, hasSession := v["sessionId"]
	if known >= 2 && hasSession {
		return true
	}
	if complete {
		return false
	}
	requests := 0
	for _, r := range reqs {
		o, _ := r.(map[string]any)
		_, id := o["requestId"].(string)
		_, msg := o["message"].(map[string]any)
		if id && msg {
			requests++
		}
	}
	return requests > 0
}
