package claude

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format/internal/media"
	"github.com/compactd/compactd/compaction/transcript"
)

// line is the part of a record the codec reads; everything else stays in Raw.
type line struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	UUID              string          `json:"uuid"`
	ParentUUID        *string         `json:"parentUuid"`
	LogicalParentUUID *string         `json:"logicalParentUuid"`
	IsSidechain       bool            `json:"isSidechain"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	SessionID         string          `json:"sessionId"`
	Cwd               string          `json:"cwd"`
	Version           string          `json:"version"`
	Timestamp         string          `json:"timestamp"`
	LeafUUID          string          `json:"leafUuid"`
	CustomTitle       string          `json:"customTitle"`
	AITitle           string          `json:"aiTitle"`
	Message           json.RawMessage `json:"message"`
	Attachment        json.RawMessage `json:"attachment"`
}

type apiMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *apiUsage       `json:"usage"`
}

type apiUsage struct {
	Input         int `json:"input_tokens"`
	Output        int `json:"output_tokens"`
	CacheCreation int `json:"cache_creation_input_tokens"`
	CacheRead     int `json:"cache_read_input_tokens"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *source         `json:"source"`
}

type source struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// node is what the codec keeps of one record, decoded once: the tree links
// and, for conversation records, the message content.
type node struct {
	kind          transcript.RecordKind
	typ, subtype  string
	uuid          string
	parent        string // "" = null
	hasParent     bool
	logicalParent string
	sidechain     bool
	conversation  bool // takes part in the uuid tree (user, assistant, system, attachment, progress)
	msg           *transcript.Message
	leaf          string // last-prompt leafUuid
}

// decodeLine classifies one record and decodes its message, if any.
func decodeLine(raw []byte, idx int) (node, transcript.Record, *line, error) {
	rec := transcript.Record{Raw: raw}
	var l line
	if err := json.Unmarshal(raw, &l); err != nil {
		rec.Kind = transcript.RecordMalformed
		rec.Err = err.Error()
		return node{kind: transcript.RecordMalformed}, rec, nil, err
	}
	rec.ID = l.UUID
	rec.Type = l.Type
	n := node{typ: l.Type, subtype: l.Subtype, uuid: l.UUID, sidechain: l.IsSidechain}
	if l.ParentUUID != nil {
		n.parent, n.hasParent = *l.ParentUUID, true
	}
	if l.LogicalParentUUID != nil {
		n.logicalParent = *l.LogicalParentUUID
	}
	switch l.Type {
	case "user", "assistant":
		n.kind = transcript.RecordMessage
		n.conversation = l.UUID != ""
		n.msg = decodeMessage(&l, idx)
		if n.msg == nil {
			n.kind = transcript.RecordMeta
		}
	case "system":
		n.conversation = l.UUID != ""
		n.kind = transcript.RecordMeta
		if l.Subtype == "compact_boundary" || l.Subtype == "microcompact_boundary" {
			n.kind = transcript.RecordMarker
		}
	case "attachment":
		n.conversation = l.UUID != ""
		n.kind = transcript.RecordMeta
		if text := attachmentText(l.Attachment); text != "" {
			n.kind = transcript.RecordMessage
			n.msg = &transcript.Message{ID: l.UUID, Role: transcript.RoleUser, Origin: transcript.OriginInjected,
				Timestamp: parseTime(l.Timestamp), Records: []int{idx},
				Parts: []transcript.Part{{Kind: transcript.PartAttachment, Text: text, Ref: transcript.Ref{Record: idx, Block: -1}}}}
		}
	case "progress":
		n.conversation = l.UUID != ""
		n.kind = transcript.RecordMeta
	case "summary", "file-history-snapshot", "queue-operation", "custom-title", "ai-title", "agent-name",
		"last-prompt", "permission-mode", "mode", "pr-link", "worktree-state", "bridge-session", "frame-link":
		n.kind = transcript.RecordMeta
		if l.Type == "last-prompt" {
			n.leaf = l.LeafUUID
		}
	default:
		n.kind = transcript.RecordUnknown
		n.conversation = l.UUID != "" && (l.ParentUUID != nil)
	}
	rec.Kind = n.kind
	return n, rec, &l, nil
}

var harnessPrefixes = []string{"<command-", "<local-command-", "<system-reminder>", "<bash-input>", "<bash-stdout>", "<bash-stderr>", "Caveat: ", "<user-memory-input>", "[Request interrupted"}

func decodeMessage(l *line, idx int) *transcript.Message {
	var am apiMessage
	if len(l.Message) == 0 || json.Unmarshal(l.Message, &am) != nil {
		return nil
	}
	m := &transcript.Message{ID: l.UUID, Timestamp: parseTime(l.Timestamp), Records: []int{idx}}
	if l.Type == "assistant" {
		m.Role, m.Origin, m.Model = transcript.RoleAssistant, transcript.OriginAgent, am.Model
		if am.ID != "" {
			m.ID = am.ID
		}
		if u := am.Usage; u != nil {
			m.Usage = &transcript.Usage{Input: u.Input, Output: u.Output, CacheCreation: u.CacheCreation, CacheRead: u.CacheRead}
		}
	} else {
		m.Role, m.Origin = transcript.RoleUser, transcript.OriginHuman
	}
	content := bytes.TrimSpace(am.Content)
	if len(content) > 0 && content[0] == '"' {
		var s string
		if json.Unmarshal(content, &s) == nil {
			m.Parts = []transcript.Part{{Kind: transcript.PartText, Text: s, Ref: transcript.Ref{Record: idx, Block: -1}}}
		}
	} else if len(content) > 0 && content[0] == '[' {
		var raws []json.RawMessage
		if json.Unmarshal(content, &raws) == nil {
			for k, r := range raws {
				m.Parts = append(m.Parts, blockParts(r, transcript.Ref{Record: idx, Block: k})...)
			}
		}
	}
	if m.Role == transcript.RoleUser {
		m.Origin = userOrigin(l, m.Parts)
	}
	return m
}

func userOrigin(l *line, parts []transcript.Part) transcript.Origin {
	switch {
	case l.IsCompactSummary:
		return transcript.OriginSummary
	case l.IsMeta:
		return transcript.OriginInjected
	}
	for _, p := range parts {
		if p.Kind == transcript.PartToolResult {
			return transcript.OriginToolResult
		}
	}
	for _, p := range parts {
		if p.Kind != transcript.PartText {
			continue
		}
		t := strings.TrimSpace(p.Text)
		for _, pre := range harnessPrefixes {
			if strings.HasPrefix(t, pre) {
				return transcript.OriginInjected
			}
		}
		return transcript.OriginHuman
	}
	return transcript.OriginHuman
}

// blockParts turns one content block into parts. Every block yields at
// least one part so Fork can tell a removed block from an untouched one.
func blockParts(raw json.RawMessage, ref transcript.Ref) []transcript.Part {
	var b block
	if err := json.Unmarshal(raw, &b); err != nil {
		return []transcript.Part{{Kind: transcript.PartOpaque, Opaque: len(raw), Ref: ref}}
	}
	switch b.Type {
	case "text":
		return []transcript.Part{{Kind: transcript.PartText, Text: b.Text, Ref: ref}}
	case "thinking":
		return []transcript.Part{{Kind: transcript.PartReasoning, Text: b.Thinking, Signed: b.Signature != "", Opaque: len(b.Signature), Ref: ref}}
	case "redacted_thinking":
		return []transcript.Part{{Kind: transcript.PartOpaque, Opaque: len(b.Data), Signed: true, Ref: ref}}
	case "tool_use", "server_tool_use":
		args := string(b.Input)
		if args == "" {
			args = "{}"
		}
		return []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: b.ID, ToolName: b.Name, Args: args, Ref: ref}}
	case "tool_result":
		text, images := resultContent(b.Content, ref)
		return append([]transcript.Part{{Kind: transcript.PartToolResult, ToolCallID: b.ToolUseID, Text: text, IsError: b.IsError, Ref: ref}}, images...)
	case "image", "document":
		return []transcript.Part{mediaPart(b.Type, b.Source, ref)}
	}
	// web_search_tool_result, tool_reference, …: the model sees them but we
	// do not read them; count them by size.
	return []transcript.Part{{Kind: transcript.PartOpaque, Opaque: len(raw), Ref: ref}}
}

// resultContent reads a tool_result's content: a string, or a list of
// text and image blocks.
func resultContent(raw json.RawMessage, ref transcript.Ref) (string, []transcript.Part) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == 'n' {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, nil
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw), nil
	}
	var text strings.Builder
	var images []transcript.Part
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if text.Len() > 0 {
				text.WriteByte('\n')
			}
			text.WriteString(b.Text)
		case "image", "document":
			images = append(images, mediaPart(b.Type, b.Source, ref))
		}
	}
	return text.String(), images
}

func mediaPart(typ string, src *source, ref transcript.Ref) transcript.Part {
	p := transcript.Part{Kind: transcript.PartImage, Ref: ref}
	if typ == "document" {
		p.Kind = transcript.PartDocument
	}
	if src == nil {
		return p
	}
	p.MIME = src.MediaType
	if src.Type == "base64" {
		p.Size = base64.StdEncoding.DecodedLen(len(src.Data))
		if p.Kind == transcript.PartImage {
			p.Width, p.Height = media.Dimensions(src.Data)
		}
	} else if src.Type == "text" {
		p.Text = src.Data
		p.Size = len(src.Data)
	}
	return p
}

// attachmentText gathers the model-visible text of an attachment record:
// memory files, file snippets, hook context, reminders. Attachments without
// text (hook_success with empty output, permission lists) are UI-only.
func attachmentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var a map[string]any
	if json.Unmarshal(raw, &a) != nil {
		return ""
	}
	var b strings.Builder
	for _, k := range []string{"content", "snippet", "prompt", "text", "addedLines"} {
		collectText(&b, a[k])
	}
	return b.String()
}

func collectText(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		if v == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(v)
	case []any:
		for _, e := range v {
			collectText(b, e)
		}
	case map[string]any:
		for _, k := range []string{"content", "text", "description", "subject"} {
			collectText(b, v[k])
		}
		if f, ok := v["file"]; ok {
			collectText(b, f)
		}
	}
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
