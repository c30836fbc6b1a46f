package claude

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/compactd/compactd/compaction/format/anthropic"
	"github.com/compactd/compactd/compaction/transcript"
)

// line is the part of a record the codec reads; everything else stays in Raw.
type line struct {
	Type              string  `json:"type"`
	Subtype           string  `json:"subtype"`
	UUID              string  `json:"uuid"`
	ParentUUID        *string `json:"parentUuid"`
	LogicalParentUUID *string `json:"logicalParentUuid"`
	IsSidechain       bool    `json:"isSidechain"`
	IsMeta            bool    `json:"isMeta"`
	IsCompactSummary  bool    `json:"isCompactSummary"`
	SessionID         string  `json:"sessionId"`
	Cwd               string  `json:"cwd"`
	Version           string  `json:"version"`
	Timestamp         string  `json:"timestamp"`
	LeafUUID          string  `json:"leafUuid"`
	// SourceToolAssistantUUID names the row holding the call a tool
	// result answers (Claude Code 2.1.x), wherever the row hangs.
	SourceToolAssistantUUID string `json:"sourceToolAssistantUUID"`
	Explicit                bool   `json:"explicit"`
	Rewound                 bool   `json:"rewound"`
	CustomTitle             string `json:"customTitle"`
	AITitle                 string `json:"aiTitle"`
	// CompactMetadata is a compact boundary's; only what it preserved is
	// read.
	CompactMetadata *struct {
		PreservedMessages *struct {
			AnchorUUID string   `json:"anchorUuid"`
			UUIDs      []string `json:"uuids"`
		} `json:"preservedMessages"`
		PreservedSegment *struct {
			HeadUUID   string `json:"headUuid"`
			AnchorUUID string `json:"anchorUuid"`
			TailUUID   string `json:"tailUuid"`
		} `json:"preservedSegment"`
	} `json:"compactMetadata"`
	// Message is empty as decodeLine reads a line (wireLine decodes the
	// message in place); the field keeps line what encoding/json decodes.
	Message    json.RawMessage `json:"message"`
	Attachment json.RawMessage `json:"attachment"`
}

type apiUsage struct {
	Input         int `json:"input_tokens"`
	Output        int `json:"output_tokens"`
	CacheCreation int `json:"cache_creation_input_tokens"`
	CacheRead     int `json:"cache_read_input_tokens"`
}

// wireLine is a record as decodeLine reads it: a line whose message is
// decoded as it is read (line.Message stays empty), so the message and its
// content are not captured and decoded again.
type wireLine struct {
	line
	Message wireMessage `json:"message"`
}

// wireMessage is a record's message decoded in place. Like the
// json.RawMessage it replaces, it takes any JSON value: one that does not
// decode as a streamedMessage leaves ok false (the record is a meta row), and
// only a syntax error fails the record.
type wireMessage struct {
	present, ok bool
	am          streamedMessage
}

// streamedMessage is the part of a Messages API message the codec reads,
// its content decoded in place.
type streamedMessage struct {
	ID      string            `json:"id"`
	Role    string            `json:"role"`
	Model   string            `json:"model"`
	Content anthropic.Content `json:"content"`
	Usage   *apiUsage         `json:"usage"`
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (m *wireMessage) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	rec, depth := m.am.Content.Rec, dec.StackDepth()
	*m = wireMessage{present: true} // a repeated member replaces the last
	m.am.Content.Rec = rec
	err := jsonv2.UnmarshalDecode(dec, &m.am) // with the record's (v1) options
	if err == nil {
		m.ok = true
		return nil
	}
	var syntax *jsontext.SyntacticError
	if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || dec.StackDepth() != depth {
		return err
	}
	// A value of another shape, read whole (v1 semantics go on past a
	// type mismatch): no message.
	return nil
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
	// source is a tool result's sourceToolAssistantUUID: the row holding
	// its call.
	source    string
	sidechain bool
	// meta marks a user row of Claude Code's own (isMeta).
	meta         bool
	conversation bool // takes part in the uuid tree (user, assistant, system, attachment, progress)
	msg          *transcript.Message
	leaf         string // last-prompt leafUuid
	// pinned marks a last-prompt the user set explicitly (a rewind): its
	// leaf stands even when later rows descend from it.
	pinned bool
	// kept is what a compact boundary preserved of the history before
	// it, nil when nothing.
	kept *preservation
}

// decodeLine classifies one record and decodes its message, if any.
func decodeLine(raw []byte, idx int) (node, transcript.Record, *line, error) {
	rec := transcript.Record{Raw: raw}
	var w wireLine
	w.Message.am.Content.Rec = idx
	if err := jsonv1.Unmarshal(raw, &w); err != nil {
		rec.Kind = transcript.RecordMalformed
		rec.Err = err.Error()
		return node{kind: transcript.RecordMalformed}, rec, nil, err
	}
	l := w.line
	rec.ID = l.UUID
	rec.Type = l.Type
	n := node{typ: l.Type, subtype: l.Subtype, uuid: l.UUID, sidechain: l.IsSidechain, meta: l.IsMeta, source: l.SourceToolAssistantUUID}
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
		n.msg = decodeMessage(&l, &w.Message, idx)
		if n.msg == nil {
			n.kind = transcript.RecordMeta
		}
	case "system":
		n.conversation = l.UUID != ""
		n.kind = transcript.RecordMeta
		if l.Subtype == "compact_boundary" || l.Subtype == "microcompact_boundary" {
			n.kind = transcript.RecordMarker
		}
		if l.Subtype == "compact_boundary" && l.CompactMetadata != nil {
			n.kept = preservationOf(l.CompactMetadata.PreservedMessages, l.CompactMetadata.PreservedSegment)
		}
	case "attachment":
		n.conversation = l.UUID != ""
		n.kind = transcript.RecordMeta
		if text := attachmentText(l.Attachment); text != "" {
			// Claude Code renders an attachment from its structured fields,
			// so a fork can keep or drop one but not rewrite its text:
			// Signed keeps strategies from editing it.
			n.kind = transcript.RecordMessage
			n.msg = &transcript.Message{ID: l.UUID, Role: transcript.RoleUser, Origin: transcript.OriginInjected,
				Timestamp: parseTime(l.Timestamp), Records: []int{idx},
				Parts: []transcript.Part{{Kind: transcript.PartAttachment, Text: text, Signed: true, Ref: transcript.Ref{Record: idx, Block: -1}}}}
		}
	case "progress":
		n.conversation = l.UUID != ""
		n.kind = transcript.RecordMeta
	case "summary", "file-history-snapshot", "queue-operation", "custom-title", "ai-title", "agent-name",
		"last-prompt", "permission-mode", "mode", "pr-link", "worktree-state", "bridge-session", "frame-link":
		n.kind = transcript.RecordMeta
		if l.Type == "last-prompt" {
			n.leaf, n.pinned = l.LeafUUID, l.Explicit || l.Rewound
		}
	default:
		n.kind = transcript.RecordUnknown
		n.conversation = l.UUID != "" && (l.ParentUUID != nil)
	}
	rec.Kind = n.kind
	return n, rec, &l, nil
}

var harnessPrefixes = []string{"<command-", "<local-command-", "<system-reminder>", "<bash-input>", "<bash-stdout>", "<bash-stderr>", "Caveat: ", "<user-memory-input>", "[Request interrupted"}

func decodeMessage(l *line, wm *wireMessage, idx int) *transcript.Message {
	if !wm.present || !wm.ok {
		return nil
	}
	am := &wm.am
	m := &transcript.Message{ID: l.UUID, Timestamp: parseTime(l.Timestamp), Records: []int{idx}}
	if l.Type == "assistant" {
		m.Role, m.Origin, m.Model = transcript.RoleAssistant, transcript.OriginAgent, am.Model
		if am.ID != "" {
			m.ID = am.ID
		}
		// A "<synthetic>" message is Claude Code's own (an API error, an
		// interruption): its all-zero usage reports no context.
		if u := am.Usage; u != nil && am.Model != "<synthetic>" {
			m.Usage = &transcript.Usage{Input: u.Input, Output: u.Output, CacheCreation: u.CacheCreation, CacheRead: u.CacheRead}
		}
	} else {
		m.Role, m.Origin = transcript.RoleUser, transcript.OriginHuman
	}
	// Claude Code logs the Messages API's content as sent or received;
	// content that is neither a string nor blocks leaves the message empty.
	m.Parts = am.Content.Parts
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

// attachmentType is an attachment record's own type ("skill_listing",
// "file", …); "" when it has none.
func attachmentType(raw json.RawMessage) string {
	var a struct {
		Type string `json:"type"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return ""
	}
	return a.Type
}

// announcement reports whether an attachment of type typ is one Claude Code
// announces once and then sends as deltas: the skills, deferred tools and
// agents it lists, the model it runs. Resuming a conversation that holds
// none of a kind, it announces that kind again in full.
func announcement(typ string) bool {
	return typ == "model" || strings.HasSuffix(typ, "_listing") || strings.HasSuffix(typ, "_delta")
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
