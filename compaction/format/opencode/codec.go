package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() {
	format.Register(Codec{Agent: transcript.FormatOpenCode})
	format.Register(Codec{Agent: transcript.FormatKilo})
}

// Codec reads and writes one agent's exports: Agent is FormatOpenCode or
// FormatKilo.
type Codec struct{ Agent transcript.Format }

var _ format.Codec = Codec{}

// Format implements format.Codec.
func (c Codec) Format() transcript.Format { return c.Agent }

// Command is the agent's executable name, for the import and resume commands.
func (c Codec) Command() string {
	if c.Agent == transcript.FormatKilo {
		return "kilo"
	}
	return "opencode"
}

// resultBlock is the Ref.Block base of a tool part's result (the call is
// at the part's own index).
const resultBlock = 1 << 20

// frame is Transcript.Frame: the document around the messages.
type frame struct {
	gaps jsonx.Gaps
	doc  *jsonx.ArrayDocument
	src  []byte
}

type wireInfo struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Role       string          `json:"role"`
	ParentID   string          `json:"parentID"`
	ModelID    string          `json:"modelID"`
	ProviderID string          `json:"providerID"`
	Summary    json.RawMessage `json:"summary"`
	Finish     string          `json:"finish"`
	Error      json.RawMessage `json:"error"`
	Tokens     *wireTokens     `json:"tokens"`
	Time       struct {
		Created int64 `json:"created"`
	} `json:"time"`
	Model *struct {
		ModelID string `json:"modelID"`
	} `json:"model"`
}

type wireTokens struct {
	Total     int `json:"total"`
	Input     int `json:"input"`
	Output    int `json:"output"`
	Reasoning int `json:"reasoning"`
	Cache     struct {
		Read  int `json:"read"`
		Write int `json:"write"`
	} `json:"cache"`
}

func (t *wireTokens) usage() *transcript.Usage {
	if t == nil || t.Total == 0 && t.Input == 0 && t.Output == 0 {
		return nil
	}
	return &transcript.Usage{Input: t.Input, Output: t.Output, Reasoning: t.Reasoning, CacheRead: t.Cache.Read, CacheCreation: t.Cache.Write, Total: t.Total}
}

type wireMessage struct {
	Info  wireInfo          `json:"info"`
	Parts []json.RawMessage `json:"parts"`
}

type wirePart struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Synthetic bool            `json:"synthetic"`
	Ignored   bool            `json:"ignored"`
	Tool      string          `json:"tool"`
	CallID    string          `json:"callID"`
	Mime      string          `json:"mime"`
	Filename  string          `json:"filename"`
	URL       string          `json:"url"`
	Metadata  json.RawMessage `json:"metadata"`
	Tokens    *wireTokens     `json:"tokens"`
	TailStart string          `json:"tail_start_id"`
	// Auto marks a compaction part opencode started itself, at the
	// window's edge (else /compact).
	Auto  bool `json:"auto"`
	State *struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output string          `json:"output"`
		Error  string          `json:"error"`
		Time   struct {
			Compacted json.RawMessage `json:"compacted"`
		} `json:"time"`
		Metadata json.RawMessage `json:"metadata"`
	} `json:"state"`
}

type wireSession struct {
	ID        string `json:"id"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	Version   string `json:"version"`
	ParentID  string `json:"parentID"`
}

// Parse implements format.Codec.
func (c Codec) Parse(src []byte) (*transcript.Transcript, error) {
	doc, err := jsonx.ScanArrayDocument(src, "messages")
	if err != nil {
		return nil, fmt.Errorf("not an %s session export: %w", c.Command(), err)
	}
	if doc.Key == "" {
		return nil, fmt.Errorf("not an %s session export: a bare array, not {info, messages}", c.Command())
	}
	sp, ok := doc.Member("info")
	if !ok {
		return nil, fmt.Errorf("not an %s session export: no info member", c.Command())
	}
	var info wireSession
	if err := json.Unmarshal(src[sp.Start:sp.End], &info); err != nil {
		return nil, fmt.Errorf("not an %s session export: info: %w", c.Command(), err)
	}
	t := &transcript.Transcript{Format: c.Agent, Size: int64(len(src)),
		Meta: transcript.Meta{SessionID: info.ID, Cwd: info.Directory, Title: info.Title, AgentVersion: info.Version, ForkedFrom: info.ParentID}}
	wires := make([]*wireMessage, len(doc.Elements))
	for i, el := range doc.Elements {
		raw := src[el.Start:el.End:el.End]
		t.Records = append(t.Records, transcript.Record{Start: int64(el.Start), End: int64(el.End), Raw: raw, Kind: transcript.RecordMessage})
		var w wireMessage
		if err := json.Unmarshal(raw, &w); err != nil || w.Info.Role == "" {
			why := "no info.role"
			if err != nil {
				why = err.Error()
			}
			jsonx.MarkMalformed(t, i, "message", why)
			continue
		}
		t.Records[i].ID, t.Records[i].Type = w.Info.ID, w.Info.Role
		if w.Info.Role != "user" && w.Info.Role != "assistant" {
			t.Records[i].Kind = transcript.RecordUnknown
			continue
		}
		wires[i] = &w
	}
	for _, i := range visible(wires) {
		msgs := decode(wires[i], i, wires)
		for _, m := range msgs {
			if m.Model != "" {
				t.Meta.Model = m.Model
			}
		}
		t.Messages = append(t.Messages, msgs...)
	}
	if len(doc.Elements) > 0 && t.Skipped == len(doc.Elements) {
		return nil, fmt.Errorf("not an %s session export: no message is readable (%s)", c.Command(), t.Problems[0].Message)
	}
	spans := make([]jsonx.Span, len(doc.Elements))
	copy(spans, doc.Elements)
	t.Frame = &frame{gaps: jsonx.GapsOf(src, spans), doc: doc, src: src}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t, nil
}

// Write implements format.Codec.
func (c Codec) Write(t *transcript.Transcript) ([]byte, error) {
	f, ok := t.Frame.(*frame)
	if !ok {
		return nil, fmt.Errorf("write %s: transcript was not parsed by this codec", c.Agent)
	}
	out, err := f.gaps.JoinRecords(t.Records)
	if err != nil {
		return nil, fmt.Errorf("write %s export: %w", c.Agent, err)
	}
	return out, nil
}

func isTrue(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "true" }

func hasError(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s != "" && s != "null"
}

// visible returns the records the model sees, in order: opencode's
// filterCompacted. A user message holding a compaction part that a
// finished, error-free summary message answered starts the history; with
// a tail_start_id, the messages from that id to the compaction are moved
// after the summary.
func visible(wires []*wireMessage) []int {
	summarized := map[string]bool{}
	for _, w := range wires {
		if w != nil && w.Info.Role == "assistant" && isTrue(w.Info.Summary) && w.Info.Finish != "" && !hasError(w.Info.Error) {
			summarized[w.Info.ParentID] = true
		}
	}
	start, tail := 0, ""
	for i := len(wires) - 1; i >= 0; i-- {
		w := wires[i]
		if w == nil || w.Info.Role != "user" || !summarized[w.Info.ID] {
			continue
		}
		if p, ok := compactionPart(w); ok {
			start, tail = i, p.TailStart
			break
		}
	}
	var all []int
	for i, w := range wires {
		if w != nil {
			all = append(all, i)
		}
	}
	var out []int
	for _, i := range all {
		if i >= start {
			out = append(out, i)
		}
	}
	if tail == "" {
		return out
	}
	// [compaction … summary] [tail … compaction) [after the summary]
	tailAt, summaryAt := -1, -1
	for _, i := range all {
		if wires[i].Info.ID == tail {
			tailAt = i
		}
		if i > start && summaryAt < 0 && wires[i].Info.Role == "assistant" && isTrue(wires[i].Info.Summary) && wires[i].Info.ParentID == wires[start].Info.ID {
			summaryAt = i
		}
	}
	if tailAt < 0 || tailAt >= start || summaryAt < 0 {
		return out
	}
	out = out[:0]
	for _, i := range all {
		if i >= start && i <= summaryAt {
			out = append(out, i)
		}
	}
	for _, i := range all {
		if i >= tailAt && i < start {
			out = append(out, i)
		}
	}
	for _, i := range all {
		if i > summaryAt {
			out = append(out, i)
		}
	}
	return out
}

func compactionPart(w *wireMessage) (wirePart, bool) {
	for _, raw := range w.Parts {
		var p wirePart
		if json.Unmarshal(raw, &p) == nil && p.Type == "compaction" {
			return p, true
		}
	}
	return wirePart{}, false
}

// compactionPrompt is the text opencode sends for a compaction part.
const compactionPrompt = "What did we do so far?"

// decode turns one message record into model-visible messages: a user
// message, or per step an assistant message followed by a tool message
// holding the step's results.
func decode(w *wireMessage, rec int, all []*wireMessage) []transcript.Message {
	ts := time.UnixMilli(w.Info.Time.Created).UTC()
	if w.Info.Role == "user" {
		m := transcript.Message{ID: w.Info.ID, Role: transcript.RoleUser, Origin: transcript.OriginHuman, Timestamp: ts, Records: []int{rec}}
		synthetic, compaction := 0, false
		for k, raw := range w.Parts {
			var p wirePart
			if json.Unmarshal(raw, &p) != nil {
				continue
			}
			ref := transcript.Ref{Record: rec, Block: k}
			switch p.Type {
			case "text":
				if p.Ignored || p.Text == "" {
					continue
				}
				if p.Synthetic {
					synthetic++
				}
				m.Parts = append(m.Parts, transcript.Part{Kind: transcript.PartText, Text: p.Text, Ref: ref})
			case "file":
				if p.Mime == "text/plain" || p.Mime == "application/x-directory" {
					continue
				}
				kind := transcript.PartDocument
				if strings.HasPrefix(p.Mime, "image/") {
					kind = transcript.PartImage
				}
				m.Parts = append(m.Parts, transcript.Part{Kind: kind, MIME: p.Mime, Text: p.Filename, Size: dataURLSize(p.URL), Ref: ref})
			case "compaction":
				compaction = true
				m.Parts = append(m.Parts, transcript.Part{Kind: transcript.PartText, Text: compactionPrompt, Ref: ref})
			case "subtask":
				m.Parts = append(m.Parts, transcript.Part{Kind: transcript.PartText, Text: "The following tool was executed by the user", Ref: ref})
			}
		}
		if len(m.Parts) == 0 {
			return nil
		}
		switch {
		case compaction:
			m.Origin = transcript.OriginSummary
		case synthetic == len(m.Parts):
			m.Origin = transcript.OriginInjected
		}
		if w.Info.Model != nil {
			m.Model = w.Info.Model.ModelID
		}
		return []transcript.Message{m}
	}
	// assistant
	var out []transcript.Message
	step := 0
	cur := transcript.Message{ID: w.Info.ID, Role: transcript.RoleAssistant, Origin: transcript.OriginAgent, Model: w.Info.ModelID, Timestamp: ts, Records: []int{rec}}
	if isTrue(w.Info.Summary) {
		cur.Origin = transcript.OriginSummary
	}
	var results transcript.Message
	flush := func(u *transcript.Usage) {
		if u != nil && len(cur.Parts) > 0 {
			cur.Usage = u
		}
		if len(cur.Parts) > 0 {
			cur.ID = fmt.Sprintf("%s#%d", w.Info.ID, step)
			out = append(out, cur)
			if len(results.Parts) > 0 {
				results.ID = fmt.Sprintf("%s#%d/results", w.Info.ID, step)
				out = append(out, results)
			}
		} else if u != nil && len(out) > 0 {
			// A step that said nothing the model keeps: its usage
			// still describes the context so far.
			for i := len(out) - 1; i >= 0; i-- {
				if out[i].Role == transcript.RoleAssistant {
					out[i].Usage = u
					break
				}
			}
		}
		step++
		cur.Parts, cur.Usage = nil, nil
		results = transcript.Message{Role: transcript.RoleTool, Origin: transcript.OriginToolResult, Timestamp: ts, Records: []int{rec}}
	}
	results = transcript.Message{Role: transcript.RoleTool, Origin: transcript.OriginToolResult, Timestamp: ts, Records: []int{rec}}
	sawUsage := false
	for k, raw := range w.Parts {
		var p wirePart
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		ref := transcript.Ref{Record: rec, Block: k}
		switch p.Type {
		case "text":
			if p.Text == "" {
				continue
			}
			cur.Parts = append(cur.Parts, transcript.Part{Kind: transcript.PartText, Text: p.Text, Ref: ref})
		case "reasoning":
			part := transcript.Part{Kind: transcript.PartReasoning, Text: p.Text, Ref: ref}
			if sig := signature(p.Metadata); sig != "" {
				part.Signed, part.Opaque = true, len(sig)
			}
			cur.Parts = append(cur.Parts, part)
		case "tool":
			if p.State == nil {
				continue
			}
			cur.Parts = append(cur.Parts, transcript.Part{Kind: transcript.PartToolCall, ToolCallID: p.CallID, ToolName: p.Tool, Args: argsOf(p.State.Input), Ref: ref})
			res := transcript.Part{Kind: transcript.PartToolResult, ToolCallID: p.CallID, ToolName: p.Tool, Ref: transcript.Ref{Record: rec, Block: resultBlock + k}}
			switch p.State.Status {
			case "completed":
				res.Text = p.State.Output
				if hasError(p.State.Time.Compacted) {
					res.Text = "[Old tool result content cleared]"
				}
			case "error":
				res.Text, res.IsError = p.State.Error, true
			default:
				res.Text, res.IsError = "[Tool execution was interrupted]", true
			}
			results.Parts = append(results.Parts, res)
		case "step-finish":
			sawUsage = true
			flush(p.Tokens.usage())
		}
	}
	if len(cur.Parts) > 0 {
		var u *transcript.Usage
		if !sawUsage {
			u = w.Info.Tokens.usage()
		}
		flush(u)
	} else if !sawUsage {
		if u := w.Info.Tokens.usage(); u != nil {
			for i := len(out) - 1; i >= 0; i-- {
				if out[i].Role == transcript.RoleAssistant {
					out[i].Usage = u
					break
				}
			}
		}
	}
	if hasError(w.Info.Error) && len(out) == 0 {
		return nil
	}
	return out
}

func argsOf(raw json.RawMessage) string {
	if s := jsonx.Compact(raw); s != "" && s != "null" {
		return s
	}
	return "{}"
}

func signature(meta json.RawMessage) string {
	var m struct {
		Anthropic struct {
			Signature string `json:"signature"`
		} `json:"anthropic"`
	}
	if json.Unmarshal(meta, &m) == nil {
		return m.Anthropic.Signature
	}
	return ""
}

// dataURLSize is the payload size of a base64 data: URL, 0 otherwise.
func dataURLSize(url string) int {
	if !strings.HasPrefix(url, "data:") {
		return 0
	}
	if i := strings.Index(url, ","); i >= 0 {
		return (len(url) - i - 1) * 3 / 4
	}
	return 0
}

// Detect implements format.Codec: {info: session, messages: [{info:
// {id, role, …}, parts: [{id, type, …}]}]}, judged by its shape, not by
// its ids (tools that publish sessions redact them) nor by where they sit:
// a message's info can hold whole files (summary.diffs), so the head often
// ends inside the first message, or, a session's title being free text,
// inside the session's info. Both agents write the same shape: the path
// (…/kilo/…) or the session's version breaks the tie.
func (c Codec) Detect(name string, head []byte) int {
	p := jsonx.Peek(head)
	if p.Bad || p.Trailing {
		return 0
	}
	doc, ok := p.Value.(map[string]any)
	if !ok {
		return 0
	}
	session, _ := doc["info"].(map[string]any)
	sessionSeen := sessionInfo(session)
	rawMessages, hasMessages := doc["messages"]
	messages, isArray := rawMessages.([]any)
	if hasMessages && !isArray || doc["info"] != nil && session == nil {
		return 0
	}
	score := 0
	switch {
	case !hasMessages:
		// The head ends before the messages: only a session's info that
		// the head cut says what this is.
		if sessionSeen && !p.Complete {
			score = 60
		}
	case len(messages) == 0:
		if p.Complete && sessionSeen {
			score = 70
		} else if sessionSeen {
			score = 60 // cut right after "messages": [
		}
	default:
		whole, cut := messages, map[string]any(nil)
		if !p.Complete {
			last, _ := messages[len(messages)-1].(map[string]any)
			whole, cut = messages[:len(messages)-1], last
		}
		known := 0
		for _, m := range whole {
			if exportMessage(m) {
				known++
			}
		}
		switch {
		case len(whole) > 0 && known == 0 || len(whole)-known > known/4:
			// Malformed messages are kept and counted; many mean
			// another format.
			return 0
		case known > 0:
			score = 85
		case cutMessage(cut) && sessionSeen:
			score = 80
		case cutMessage(cut):
			score = 65
		}
	}
	if score == 0 {
		return 0
	}
	version, _ := session["version"].(string)
	kilo := strings.Contains(filepath.ToSlash(name), "/kilo/") || strings.Contains(filepath.Base(name), "kilo") || kiloVersion(version)
	if kilo == (c.Agent == transcript.FormatKilo) {
		score += 5
	}
	return score
}

// sessionInfo reports whether info, as far as the head shows it, is an
// exported session's: an id and the session fields around it.
func sessionInfo(info map[string]any) bool {
	if info == nil {
		return false
	}
	if _, ok := info["role"]; ok {
		return false // a message's info
	}
	known := 0
	for _, k := range []string{"id", "slug", "projectID", "directory", "title", "version", "time"} {
		if _, ok := info[k]; ok {
			known++
		}
	}
	_, id := info["id"].(string)
	_, dir := info["directory"].(string)
	_, project := info["projectID"].(string)
	return known >= 3 && (id || dir || project)
}

// exportMessage reports whether m is a whole exported message: {info:
// {role, …}, parts: […]} (roles other than user and assistant are kept
// as records the model does not see).
func exportMessage(m any) bool {
	o, _ := m.(map[string]any)
	info, _ := o["info"].(map[string]any)
	_, parts := o["parts"].([]any)
	role, _ := info["role"].(string)
	return parts && role != ""
}

// cutMessage reports whether m, a message the head ends inside, shows an
// exported message's shape in what it holds so far: its info's role or
// opencode's message fields, or parts with their message and session ids.
func cutMessage(m map[string]any) bool {
	if m == nil {
		return false
	}
	if info, ok := m["info"].(map[string]any); ok {
		switch role, _ := info["role"].(string); role {
		case "user", "assistant":
			return true
		case "":
		default:
			return false
		}
		known := 0
		for _, k := range []string{"sessionID", "parentID", "agent", "mode", "modelID", "providerID", "model", "summary", "time", "tokens", "finish", "path", "tools", "cost"} {
			if _, ok := info[k]; ok {
				known++
			}
		}
		if diffs, ok := info["summary"].(map[string]any); ok {
			if _, ok := diffs["diffs"].([]any); ok {
				known += 2
			}
		}
		if known >= 2 {
			return true
		}
	}
	parts, _ := m["parts"].([]any)
	for _, part := range parts {
		po, _ := part.(map[string]any)
		_, typ := po["type"].(string)
		_, msg := po["messageID"].(string)
		_, ses := po["sessionID"].(string)
		if typ && (msg || ses) || msg && ses {
			return true
		}
	}
	return false
}

// kiloVersion reports whether version is a Kilo version (7.x; opencode's
// are 0.x and 1.x).
func kiloVersion(version string) bool {
	return len(version) >= 2 && version[0] >= '2' && version[0] <= '9' && version[1] == '.'
}
