package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/compactd/compactd/compaction/format/internal/media"
	"github.com/compactd/compactd/compaction/transcript"
)

// envelope is a rollout line. Older rollouts wrote bare session meta and
// response items; ID and RecordType let decodeLine recognize those.
type envelope struct {
	Timestamp  string          `json:"timestamp"`
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	ID         json.RawMessage `json:"id"`
	RecordType string          `json:"record_type"`
}

type sessionMeta struct {
	ID               string          `json:"id"`
	SessionID        string          `json:"session_id"`
	Cwd              string          `json:"cwd"`
	ForkedFromID     string          `json:"forked_from_id"`
	CLIVersion       string          `json:"cli_version"`
	BaseInstructions json.RawMessage `json:"base_instructions"`
	Instructions     json.RawMessage `json:"instructions"`
}

type turnContext struct {
	Model string `json:"model"`
	Cwd   string `json:"cwd"`
}

type event struct {
	Type               string     `json:"type"`
	Info               *tokenInfo `json:"info"`
	ModelContextWindow int        `json:"model_context_window"`
	ThreadName         string     `json:"thread_name"`
	// Usage is a token_usage_record's usage of one response.
	Usage *tokenUsage `json:"usage"`
	// NumTurns is how many of the last user turns a thread_rolled_back
	// took back.
	NumTurns int `json:"num_turns"`
}

type tokenInfo struct {
	LastTokenUsage     *tokenUsage `json:"last_token_usage"`
	ModelContextWindow int         `json:"model_context_window"`
}

type tokenUsage struct {
	Input     int `json:"input_tokens"`
	Cached    int `json:"cached_input_tokens"`
	Output    int `json:"output_tokens"`
	Reasoning int `json:"reasoning_output_tokens"`
	Total     int `json:"total_tokens"`
}

type compacted struct {
	Message            string          `json:"message"`
	ReplacementHistory json.RawMessage `json:"replacement_history"`
	// Window ids (Codex 0.146 on): a record whose window_id is not the
	// window before it opens a new context window — with Codex's
	// experimental context management (the model's new_context tool) one
	// that starts "without summarizing conversation history", so without a
	// message or a replacement history.
	WindowID         string `json:"window_id"`
	PreviousWindowID string `json:"previous_window_id"`
	WindowNumber     int    `json:"window_number"`
}

// item is the part of a response item the codec reads; everything else
// stays in the record's bytes.
type item struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	Input            json.RawMessage `json:"input"`
	CallID           string          `json:"call_id"`
	Output           json.RawMessage `json:"output"`
	Action           json.RawMessage `json:"action"`
	Summary          json.RawMessage `json:"summary"`
	EncryptedContent json.RawMessage `json:"encrypted_content"`
	// Tools are the definitions a tool_search_output loads: what the
	// model reads of it.
	Tools json.RawMessage `json:"tools"`
}

type block struct {
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	ImageURL         json.RawMessage `json:"image_url"`
	EncryptedContent json.RawMessage `json:"encrypted_content"`
}

// decoded is what one line says, before it is applied to the transcript.
type decoded struct {
	rec transcript.Record
	ts  time.Time
	// Exactly one of these is set for a line that matters.
	meta        *sessionMeta
	turn        *turnContext
	msg         *transcript.Message
	event       *event
	compaction  *compacted
	replacement []transcript.Message
}

// Envelope types and bare response item types (older rollouts).
const (
	typeSessionMeta  = "session_meta"
	typeTurnContext  = "turn_context"
	typeResponseItem = "response_item"
	typeEventMsg     = "event_msg"
	typeCompacted    = "compacted"
)

var bareItemTypes = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true, "web_search_call": true,
}

// unmarshal decodes leniently: a field of an unexpected JSON type is left
// empty rather than failing the record (rollouts drift between versions).
//
// Records are decoded with go-json-experiment/json's v1 API: encoding/json's
// semantics (type errors included) on a faster decoder.
func unmarshal(raw []byte, v any) error {
	err := jsonv1.Unmarshal(raw, v)
	var typeErr *jsonv1.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return nil
	}
	return err
}

// decodeLine classifies one line and decodes what the model sees in it.
func decodeLine(raw []byte, idx int) (decoded, error) {
	d := decoded{rec: transcript.Record{Raw: raw, Kind: transcript.RecordUnknown}}
	if t := bytes.TrimLeft(raw, " \t\r\ufeff"); len(t) == 0 || t[0] != '{' {
		err := errors.New("not a JSON object")
		if !json.Valid(raw) {
			err = fmt.Errorf("not JSON: %w", jsonError(raw))
		}
		d.rec.Kind, d.rec.Err = transcript.RecordMalformed, err.Error()
		return d, err
	}
	var env envelope
	if err := unmarshal(raw, &env); err != nil {
		d.rec.Kind, d.rec.Err = transcript.RecordMalformed, err.Error()
		return d, err
	}
	d.ts = parseTime(env.Timestamp)
	d.rec.Type = env.Type
	payload := env.Payload
	if len(payload) == 0 {
		// An older rollout: bare session meta and response items.
		switch {
		case bareItemTypes[env.Type]:
			d.rec.Type, payload = typeResponseItem, raw
		case env.RecordType != "":
			d.rec.Type, d.rec.Kind = env.RecordType, transcript.RecordMeta
			return d, nil
		case env.Type == "" && len(env.ID) > 0:
			d.rec.Type, payload = typeSessionMeta, raw
		default:
			return d, nil
		}
	}
	if bytes.Equal(bytes.TrimSpace(payload), []byte("null")) {
		return d, nil
	}
	switch d.rec.Type {
	case typeSessionMeta:
		var m sessionMeta
		if unmarshal(payload, &m) != nil {
			return d, nil
		}
		d.meta, d.rec.Kind = &m, transcript.RecordMeta
		d.rec.ID = m.ID
		if d.rec.ID == "" {
			d.rec.ID = m.SessionID
		}
	case typeTurnContext:
		var tc turnContext
		if unmarshal(payload, &tc) == nil {
			d.turn, d.rec.Kind = &tc, transcript.RecordMeta
		}
	case typeEventMsg:
		var ev event
		if unmarshal(payload, &ev) == nil {
			d.event, d.rec.Kind = &ev, transcript.RecordMeta
		}
	case typeTokenUsageRecord:
		var ev event
		if unmarshal(payload, &ev) == nil {
			ev.Type = typeTokenUsageRecord
			d.event, d.rec.Kind = &ev, transcript.RecordMeta
		}
	case typeCompacted:
		var c compacted
		if unmarshal(payload, &c) != nil {
			return d, nil
		}
		d.compaction, d.rec.Kind = &c, transcript.RecordMarker
		d.replacement = replacementMessages(&c, idx, d.ts)
	case typeResponseItem:
		var it item
		if unmarshal(payload, &it) != nil {
			return d, nil
		}
		d.rec.ID = it.ID
		m, kind := itemMessage(&it, refs{rec: idx, fixed: noFixedBlock})
		d.rec.Kind = kind
		if kind == transcript.RecordMessage {
			m.Timestamp = d.ts
			d.msg = &m
		}
	}
	return d, nil
}

func jsonError(raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	return errors.New("invalid JSON")
}

// replacementMessages synthesizes the model-visible history a compacted
// record states: its replacement_history items, or, without one, its
// summary message. A nil result with a present (even empty)
// replacement_history still replaces the history: see applyCompacted.
func replacementMessages(c *compacted, idx int, ts time.Time) []transcript.Message {
	hist := bytes.TrimSpace(c.ReplacementHistory)
	if len(hist) == 0 || string(hist) == "null" {
		if c.Message == "" {
			return nil
		}
		return []transcript.Message{{Role: transcript.RoleUser, Origin: transcript.OriginSummary, Timestamp: ts, Records: []int{idx},
			Parts: []transcript.Part{{Kind: transcript.PartText, Text: c.Message, Ref: transcript.Ref{Record: idx, Block: -1}}}}}
	}
	var items []json.RawMessage
	if jsonv1.Unmarshal(hist, &items) != nil {
		return nil
	}
	var out []transcript.Message
	for k, raw := range items {
		var it item
		if unmarshal(raw, &it) != nil {
			continue
		}
		m, kind := itemMessage(&it, refs{rec: idx, fixed: k})
		if kind != transcript.RecordMessage {
			continue
		}
		if m.Role == transcript.RoleUser && c.Message != "" && len(m.Parts) > 0 && m.Parts[0].Text == c.Message {
			m.Origin = transcript.OriginSummary
		}
		m.Timestamp = ts
		out = append(out, m)
	}
	return out
}

// hasReplacement reports whether a compacted record carries a
// replacement_history, which replaces the history even when empty.
func hasReplacement(c *compacted) bool {
	h := bytes.TrimSpace(c.ReplacementHistory)
	return len(h) > 0 && string(h) != "null"
}

// noFixedBlock makes refs number content blocks; a compacted record's
// replacement items instead all carry their item index.
const noFixedBlock = -2

type refs struct {
	rec   int
	fixed int
}

func (r refs) whole() transcript.Ref {
	if r.fixed != noFixedBlock {
		return transcript.Ref{Record: r.rec, Block: r.fixed}
	}
	return transcript.Ref{Record: r.rec, Block: -1}
}

func (r refs) block(k int) transcript.Ref {
	if r.fixed != noFixedBlock {
		return transcript.Ref{Record: r.rec, Block: r.fixed}
	}
	return transcript.Ref{Record: r.rec, Block: k}
}

// Harness injections arrive as user messages; these prefixes mark them.
var injectedPrefixes = []string{
	"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>",
	"<permissions instructions>", "<user_shell_command>", "<turn_aborted>", "<collaboration_mode>",
	"<skill>", "<personality_spec>", "<apps_instructions>", "<subagent_notification>",
}

// summaryPrefix opens the summary message Codex's own compaction writes.
const summaryPrefix = "Another language model started to solve this problem"

// itemMessage turns one response item into a message. Every item the model
// sees yields at least one part so Fork can tell a removed item from an
// untouched one.
func itemMessage(it *item, r refs) (transcript.Message, transcript.RecordKind) {
	m := transcript.Message{ID: it.ID, Role: transcript.RoleAssistant, Origin: transcript.OriginAgent, Records: []int{r.rec}}
	switch it.Type {
	case "message":
		switch it.Role {
		case "assistant":
		case "user":
			m.Role, m.Origin = transcript.RoleUser, transcript.OriginHuman
		case "developer":
			m.Role, m.Origin = transcript.RoleDeveloper, transcript.OriginInjected
		case "system":
			m.Role, m.Origin = transcript.RoleSystem, transcript.OriginInjected
		default:
			return m, transcript.RecordUnknown
		}
		m.Parts = contentParts(it.Content, r)
		if m.Role == transcript.RoleUser {
			m.Origin = userOrigin(m.Parts)
		}
	case "reasoning":
		m.Parts = []transcript.Part{reasoningPart(it, r.whole())}
	case "function_call":
		m.Parts = []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: it.CallID, ToolName: it.Name, Args: stringOrJSON(it.Arguments), Ref: r.whole()}}
	case "custom_tool_call":
		m.Parts = []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: it.CallID, ToolName: it.Name, Args: stringOrJSON(it.Input), Ref: r.whole()}}
	case "local_shell_call", "web_search_call", "tool_search_call", "image_generation_call":
		id := it.CallID
		if id == "" {
			id = it.ID
		}
		name := it.Name
		if name == "" {
			name = strings.TrimSuffix(it.Type, "_call")
		}
		args := stringOrJSON(it.Action)
		if args == "" {
			args = stringOrJSON(it.Arguments)
		}
		m.Parts = []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: id, ToolName: name, Args: args, Ref: r.whole()}}
	case "function_call_output", "custom_tool_call_output", "tool_search_output", "local_shell_call_output":
		m.Role, m.Origin = transcript.RoleTool, transcript.OriginToolResult
		m.Parts = outputParts(it, r)
	case "compaction":
		// The API's encrypted summary of the history before it.
		m.Role, m.Origin = transcript.RoleUser, transcript.OriginSummary
		m.Parts = []transcript.Part{{Kind: transcript.PartOpaque, Signed: true, Opaque: len(jsonString(it.EncryptedContent)), Ref: r.whole()}}
	case "agent_message":
		// A message from another agent of the same session.
		m.Role, m.Origin = transcript.RoleUser, transcript.OriginSubagent
		m.Parts = contentParts(it.Content, r)
	case "ghost_snapshot":
		return m, transcript.RecordMeta // an undo point; never sent to the model
	default:
		return m, transcript.RecordUnknown
	}
	return m, transcript.RecordMessage
}

func userOrigin(parts []transcript.Part) transcript.Origin {
	for _, p := range parts {
		if p.Kind != transcript.PartText {
			continue
		}
		t := strings.TrimSpace(p.Text)
		if strings.HasPrefix(t, summaryPrefix) {
			return transcript.OriginSummary
		}
		for _, pre := range injectedPrefixes {
			if strings.HasPrefix(t, pre) {
				return transcript.OriginInjected
			}
		}
		return transcript.OriginHuman
	}
	return transcript.OriginHuman
}

func reasoningPart(it *item, ref transcript.Ref) transcript.Part {
	text := joinTexts(it.Summary)
	if text == "" {
		text = joinTexts(it.Content) // raw reasoning_text, when the model exposes it
	}
	enc := jsonString(it.EncryptedContent)
	return transcript.Part{Kind: transcript.PartReasoning, Text: text, Signed: enc != "", Opaque: len(enc), Ref: ref}
}

// joinTexts joins the texts of a list of {type, text} blocks.
func joinTexts(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return ""
	}
	var blocks []block
	if unmarshal(raw, &blocks) != nil {
		return ""
	}
	var texts []string
	for _, b := range blocks {
		if b.Text != "" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// contentParts reads a message's content: one part per block.
func contentParts(content json.RawMessage, r refs) []transcript.Part {
	content = bytes.TrimSpace(content)
	if len(content) == 0 {
		return nil
	}
	if content[0] == '"' {
		return []transcript.Part{{Kind: transcript.PartText, Text: jsonString(content), Ref: r.whole()}}
	}
	var raws []json.RawMessage
	if content[0] != '[' || jsonv1.Unmarshal(content, &raws) != nil {
		return nil
	}
	parts := make([]transcript.Part, 0, len(raws))
	for k, raw := range raws {
		parts = append(parts, blockPart(raw, r.block(k)))
	}
	return parts
}

func blockPart(raw json.RawMessage, ref transcript.Ref) transcript.Part {
	var b block
	if unmarshal(raw, &b) != nil {
		return transcript.Part{Kind: transcript.PartOpaque, Opaque: len(raw), Ref: ref}
	}
	switch b.Type {
	case "input_text", "output_text", "text", "summary_text", "reasoning_text":
		return transcript.Part{Kind: transcript.PartText, Text: b.Text, Ref: ref}
	case "input_image":
		p := transcript.Part{Kind: transcript.PartImage, Ref: ref}
		p.MIME, p.Size, p.Width, p.Height = media.DataURL(jsonString(b.ImageURL))
		return p
	case "encrypted_content":
		return transcript.Part{Kind: transcript.PartOpaque, Signed: true, Opaque: len(jsonString(b.EncryptedContent)), Ref: ref}
	}
	if b.Text != "" {
		return transcript.Part{Kind: transcript.PartText, Text: b.Text, Ref: ref}
	}
	return transcript.Part{Kind: transcript.PartOpaque, Opaque: len(raw), Ref: ref}
}

// outputParts reads a tool output: a string, one content item or a list
// of them. The text is one part for the whole item; images in the list
// become parts of their own, at their index in the list.
func outputParts(it *item, r refs) []transcript.Part {
	res := transcript.Part{Kind: transcript.PartToolResult, ToolCallID: it.CallID, Ref: r.whole()}
	out := bytes.TrimSpace(it.Output)
	var images []transcript.Part
	switch {
	case len(out) == 0 || string(out) == "null":
	case out[0] == '"':
		res.Text = jsonString(out)
	case out[0] == '[' || out[0] == '{':
		list := out
		if out[0] == '{' {
			list = append(append([]byte{'['}, out...), ']')
		}
		var raws []json.RawMessage
		if jsonv1.Unmarshal(list, &raws) != nil {
			res.Text = string(out)
			break
		}
		var texts []string
		for k, raw := range raws {
			p := blockPart(raw, r.block(k))
			switch p.Kind {
			case transcript.PartText:
				texts = append(texts, p.Text)
			case transcript.PartImage:
				images = append(images, p)
			}
		}
		res.Text = strings.Join(texts, "\n")
	default:
		res.Text = string(out)
	}
	if it.Type == "tool_search_output" && res.Text == "" {
		res.Text = compactJSON(it.Tools)
	}
	return append([]transcript.Part{res}, images...)
}

// compactJSON is raw without insignificant space: the tool definitions as
// the API reads them. "" for nothing or invalid JSON.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(bytes.TrimSpace(raw)) == 0 || json.Compact(&b, raw) != nil || b.String() == "null" {
		return ""
	}
	return b.String()
}

// jsonString decodes a JSON string value; anything else is "".
func jsonString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	_ = jsonv1.Unmarshal(raw, &s)
	return s
}

// stringOrJSON returns a string value as is and anything else as compact
// JSON text ("" for null or absent): function_call arguments are a JSON
// string, local_shell_call actions an object.
func stringOrJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		return jsonString(raw)
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// instructionsText is the system prompt a session_meta carries:
// base_instructions.text, or the older instructions string.
func instructionsText(m *sessionMeta) string {
	if b := bytes.TrimSpace(m.BaseInstructions); len(b) > 0 && b[0] == '{' {
		var bi struct {
			Text string `json:"text"`
		}
		if unmarshal(b, &bi) == nil && bi.Text != "" {
			return bi.Text
		}
	} else if s := jsonString(b); s != "" {
		return s
	}
	return jsonString(m.Instructions)
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{} // every line is timed: a failed Parse allocates its error
	}
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
