package qwen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/genai"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// Codec reads and writes Qwen Code session JSONL.
type Codec struct{ jsonl.Lines[lines] }

// lines is the Codec's line format.
type lines struct{}

var (
	_ format.Codec    = Codec{}
	_ format.Appender = Codec{}
)

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatQwenCode }

// ackText is what Qwen Code's own compression puts after a summary.
const ackText = "Got it. Thanks for the additional context!"

// compressedBlock is the Ref.Block base of content i of a chat_compression
// record's compressedHistory: i*compressedBlock + part index.
const compressedBlock = 1 << 16

// wireLine is one record.
type wireLine struct {
	UUID              string          `json:"uuid"`
	ParentUUID        *string         `json:"parentUuid"`
	SessionID         string          `json:"sessionId"`
	Timestamp         string          `json:"timestamp"`
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	Cwd               string          `json:"cwd"`
	Version           string          `json:"version"`
	Model             string          `json:"model"`
	Message           *genai.Content  `json:"message"`
	UsageMetadata     *wireUsage      `json:"usageMetadata"`
	ContextWindowSize int             `json:"contextWindowSize"`
	SystemPayload     json.RawMessage `json:"systemPayload"`
}

type wireUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	TotalTokenCount         int `json:"totalTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
}

// metaSubtypes are system records the model never sees.
var metaSubtypes = map[string]bool{
	"ui_telemetry": true, "attribution_snapshot": true, "slash_command": true, "file_history_snapshot": true,
	"custom_title": true, "session_source": true, "parent_session": true, "session_sources_snapshot": true,
	"turn_result": true, "branch_checkpoint": true, "goal_turn_end": true, "omni_recall": true,
}

// injectedSubtypes are user records the harness wrote, not the human.
var injectedSubtypes = map[string]bool{"notification": true, "cron": true, "goal_runtime": true, "mid_turn_user_message": true}

// node is what the chain needs of one record.
type node struct {
	uuid, parent string
	// msgs are the model-visible messages the record holds; for a
	// chat_compression record, the history it replaces everything with.
	msgs       []transcript.Message
	compresses bool
}

// state is Transcript.State; maps only gain entries, keyed by record index.
type state struct {
	nodes  []node
	byUUID map[string]int
	leaf   int
	meta   transcript.Meta
	lines  int
}

// Empty implements jsonl.LineFormat.
func (lines) Empty() *transcript.Transcript {
	return &transcript.Transcript{Format: transcript.FormatQwenCode, Frame: &jsonl.Frame{}, State: &state{byUUID: map[string]int{}, leaf: -1}}
}

// Owns implements jsonl.LineFormat.
func (lines) Owns(t *transcript.Transcript) bool {
	_, ok := t.State.(*state)
	return ok
}

// Names implements jsonl.LineFormat.
func (lines) Names() (source, record string) { return "Qwen Code session", "a JSON record" }

// AppendLines implements jsonl.LineFormat.
func (lines) AppendLines(prev *transcript.Transcript, data []byte) *transcript.Transcript {
	ps := prev.State.(*state)
	st := &state{nodes: slices.Clip(ps.nodes), byUUID: ps.byUUID, leaf: ps.leaf, meta: ps.meta}
	if len(ps.nodes) == 0 {
		st.byUUID = map[string]int{}
	}
	t := jsonl.Continue(prev)
	oldLen := len(prev.Records)
	// linear stays true while every new chained record continues the
	// previous leaf: the messages then only grow.
	linear := true
	st.lines = jsonl.Decode(t, data, ps.lines, func(idx int, rec *transcript.Record, w *wireLine) error {
		n, err := st.decode(rec, idx, w)
		if err != nil {
			n = node{}
		}
		// At idx, not at the end: a line joined to the record before it
		// (an unknown one with no uuid, see jsonl.Runs) leaves its node
		// where the next record's goes.
		st.pad(idx)
		st.nodes = append(st.nodes[:idx], n)
		if n.uuid != "" {
			parentIdx := -1
			if i, ok := st.lookup(n.parent); ok {
				parentIdx = i
			}
			if parentIdx != st.leaf || n.compresses {
				linear = false
			}
			st.byUUID[n.uuid] = idx
			st.leaf = idx
		}
		return err
	})
	st.pad(len(t.Records))
	st.nodes = st.nodes[:len(t.Records)]
	t.State = st
	t.Meta = st.meta
	switch {
	case linear && ps.leaf >= 0 || linear && oldLen == 0:
		t.Messages = slices.Clip(prev.Messages)
		for i := oldLen; i < len(st.nodes); i++ {
			if st.nodes[i].uuid != "" {
				t.Messages = append(t.Messages, st.nodes[i].msgs...)
			}
		}
		t.Kept = len(prev.Messages)
		t.Turns = transcript.BuildTurns(t.Messages)
	default:
		t.Messages = st.messages()
		t.Turns = transcript.BuildTurns(t.Messages)
	}
	if oldLen == 0 {
		t.Kept = 0
	}
	return t
}

// pad gives the records before n that are not JSON objects (which Decode
// does not hand to decode) their empty node: nodes are indexed by record.
func (s *state) pad(n int) {
	for len(s.nodes) < n {
		s.nodes = append(s.nodes, node{})
	}
}

func (s *state) lookup(uuid string) (int, bool) {
	if uuid == "" {
		return 0, false
	}
	i, ok := s.byUUID[uuid]
	if !ok || i >= len(s.nodes) || s.nodes[i].uuid != uuid {
		return 0, false
	}
	return i, true
}

// chain returns the records from the root to the leaf.
func (s *state) chain() []int { return s.chainTo(s.leaf) }

// chainTo returns the records from the root to record leaf.
func (s *state) chainTo(leaf int) []int {
	var out []int
	seen := map[int]bool{}
	for i := leaf; i >= 0 && !seen[i]; {
		seen[i] = true
		out = append(out, i)
		p, ok := s.lookup(s.nodes[i].parent)
		if !ok {
			break
		}
		i = p
	}
	slices.Reverse(out)
	return out
}

// messages rebuilds the conversation along the chain: a chat_compression
// record replaces everything before it with its history.
func (s *state) messages() []transcript.Message {
	var out []transcript.Message
	for _, i := range s.chain() {
		n := &s.nodes[i]
		if n.compresses {
			out = nil
		}
		out = append(out, n.msgs...)
	}
	return out
}

// decode classifies one record and decodes the messages it holds.
func (s *state) decode(rec *transcript.Record, idx int, w *wireLine) (node, error) {
	n := node{uuid: w.UUID}
	if w.ParentUUID != nil {
		n.parent = *w.ParentUUID
	}
	rec.ID, rec.Type = w.UUID, w.Type
	if w.Subtype != "" {
		rec.Type = w.Type + "/" + w.Subtype
	}
	if w.SessionID != "" {
		s.meta.SessionID = w.SessionID
	}
	if w.Cwd != "" && s.meta.Cwd == "" {
		s.meta.Cwd = w.Cwd
	}
	if w.Version != "" {
		s.meta.AgentVersion = w.Version
	}
	ts, _ := time.Parse(time.RFC3339Nano, w.Timestamp)
	switch {
	case w.Type == "system" && w.Subtype == "chat_compression":
		rec.Kind = transcript.RecordMarker
		var p struct {
			CompressedHistory json.RawMessage `json:"compressedHistory"`
		}
		if len(w.SystemPayload) > 0 {
			if err := json.Unmarshal(w.SystemPayload, &p); err != nil {
				return n, fmt.Errorf("chat_compression payload: %w", err)
			}
		}
		if len(bytes.TrimSpace(p.CompressedHistory)) == 0 || p.CompressedHistory[0] != '[' {
			return n, nil // a compression that recorded no history replaces nothing
		}
		var hist []json.RawMessage
		if err := json.Unmarshal(p.CompressedHistory, &hist); err != nil {
			return n, fmt.Errorf("chat_compression history: %w", err)
		}
		n.compresses = true
		for k, el := range hist {
			var c genai.Content
			if json.Unmarshal(el, &c) != nil {
				continue
			}
			m, ok, err := contentMessage(&c, idx, k*compressedBlock, ts)
			if err != nil {
				return n, fmt.Errorf("chat_compression history %d: %w", k, err)
			}
			if !ok {
				continue
			}
			m.ID = fmt.Sprintf("%s#%d", w.UUID, k)
			if k == 0 && m.Role == transcript.RoleUser && onlyText(m.Parts) {
				// Qwen Code's compressions (and compactd's forks) open
				// the history with the summary.
				m.Origin = transcript.OriginSummary
			}
			n.msgs = append(n.msgs, m)
		}
	case w.Type == "system":
		rec.Kind = transcript.RecordUnknown
		if metaSubtypes[w.Subtype] {
			rec.Kind = transcript.RecordMeta
		}
		if w.Subtype == "custom_title" {
			var p struct {
				CustomTitle string `json:"customTitle"`
			}
			if json.Unmarshal(w.SystemPayload, &p) == nil && p.CustomTitle != "" {
				s.meta.Title = p.CustomTitle
			}
		}
	case (w.Type == "user" || w.Type == "assistant" || w.Type == "tool_result") && w.Message != nil:
		rec.Kind = transcript.RecordMessage
		m, ok, err := contentMessage(w.Message, idx, 0, ts)
		if err != nil {
			return n, err
		}
		if !ok {
			break
		}
		m.ID = w.UUID
		switch {
		case w.Type == "tool_result":
			m.Origin = transcript.OriginToolResult
		case w.Type == "user" && injectedSubtypes[w.Subtype]:
			m.Origin = transcript.OriginInjected
		}
		if w.Type == "assistant" {
			m.Model = w.Model
			if w.Model != "" {
				s.meta.Model = w.Model
			}
			if w.ContextWindowSize > 0 {
				s.meta.ContextWindow = w.ContextWindowSize
			}
			if u := w.UsageMetadata; u != nil && (u.TotalTokenCount > 0 || u.PromptTokenCount > 0) {
				// The prompt count includes the cached tokens.
				m.Usage = &transcript.Usage{Input: max(u.PromptTokenCount-u.CachedContentTokenCount, 0), CacheRead: u.CachedContentTokenCount,
					Output: u.CandidatesTokenCount, Reasoning: u.ThoughtsTokenCount, Total: u.TotalTokenCount}
			}
		}
		n.msgs = []transcript.Message{m}
	case w.Type == "user" || w.Type == "assistant" || w.Type == "tool_result":
		rec.Kind = transcript.RecordMeta
	default:
		rec.Kind = transcript.RecordUnknown
	}
	return n, nil
}

// contentMessage turns one Content into a message; ok is false for a role
// the model does not see.
func contentMessage(c *genai.Content, rec, base int, ts time.Time) (transcript.Message, bool, error) {
	parts, err := genai.DecodeParts(c.Parts, rec, base)
	if err != nil {
		return transcript.Message{}, false, err
	}
	m := transcript.Message{Records: []int{rec}, Parts: parts, Timestamp: ts}
	if len(parts) == 0 {
		return m, false, nil // nothing the model reads
	}
	switch c.Role {
	case "user":
		m.Role, m.Origin = transcript.RoleUser, transcript.OriginHuman
		if genai.OnlyResults(parts) {
			m.Origin = transcript.OriginToolResult
		}
	case "model", "assistant":
		m.Role, m.Origin = transcript.RoleAssistant, transcript.OriginAgent
	default:
		return m, false, nil
	}
	return m, true, nil
}

func onlyText(parts []transcript.Part) bool {
	for _, p := range parts {
		if p.Kind != transcript.PartText {
			return false
		}
	}
	return len(parts) > 0
}

// Detect implements format.Codec: records with Qwen Code's envelope (uuid,
// sessionId, type) whose messages are genai Content or that carry a
// systemPayload.
func (Codec) Detect(name string, head []byte) int {
	score := 0
	ok := jsonl.HeadObjects(head, func(w *struct {
		UUID      string          `json:"uuid"`
		SessionID string          `json:"sessionId"`
		Type      string          `json:"type"`
		Message   json.RawMessage `json:"message"`
		Payload   json.RawMessage `json:"systemPayload"`
		Usage     json.RawMessage `json:"usageMetadata"`
	}) bool {
		if w.UUID == "" || w.SessionID == "" || w.Type == "" {
			return true
		}
		var m struct {
			Role    string          `json:"role"`
			Parts   json.RawMessage `json:"parts"`
			Content json.RawMessage `json:"content"`
		}
		switch {
		case len(w.Message) > 0 && json.Unmarshal(w.Message, &m) == nil && len(m.Parts) > 0 && len(m.Content) == 0:
			score = max(score, 95)
		case len(w.Payload) > 0 || len(w.Usage) > 0:
			score = max(score, 90)
		}
		return true
	})
	if !ok {
		return 0
	}
	if score > 0 && (strings.Contains(filepath.ToSlash(name), ".qwen/") || strings.HasSuffix(filepath.Dir(name), "chats")) {
		score = min(score+4, 100)
	}
	return score
}
