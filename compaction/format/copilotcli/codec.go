package copilotcli

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/openaichat"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// Codec reads and writes Copilot CLI events.jsonl.
type Codec struct{ jsonl.Lines[lines] }

// lines is the Codec's line format.
type lines struct{}

var (
	_ format.Codec    = Codec{}
	_ format.Appender = Codec{}
)

// Parse implements format.Codec: the event log, or a session document of
// the releases before it (see legacy.go).
func (c Codec) Parse(src []byte) (*transcript.Transcript, error) {
	if legacyDocument(src) {
		return parseLegacy(src)
	}
	return c.Lines.Parse(src)
}

// Append implements format.Appender for the event log. The CLI rewrote a
// session document whole: appending to one is an error, and the caller
// parses again.
func (c Codec) Append(prev *transcript.Transcript, tail []byte) (*transcript.Transcript, error) {
	if prev != nil {
		if _, ok := prev.State.(legacyState); ok {
			return nil, fmt.Errorf("append to a Copilot CLI session document: it is rewritten whole, parse it again")
		}
	}
	return c.Lines.Append(prev, tail)
}

// Write implements format.Codec.
func (c Codec) Write(t *transcript.Transcript) ([]byte, error) {
	if _, ok := t.State.(legacyState); ok {
		return openaichat.WriteArray(t)
	}
	return c.Lines.Write(t)
}

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatCopilotCLI }

type event struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	ParentID  *string         `json:"parentId"`
	Data      json.RawMessage `json:"data"`
	// AgentID marks a subagent's event in later releases.
	AgentID string `json:"agentId"`
}

type eventData struct {
	SessionID      string `json:"sessionId"`
	CopilotVersion string `json:"copilotVersion"`
	SelectedModel  string `json:"selectedModel"`
	Context        struct {
		Cwd string `json:"cwd"`
	} `json:"context"`
	Content       *string `json:"content"`
	ReasoningText string  `json:"reasoningText"`
	Model         string  `json:"model"`
	NewModel      string  `json:"newModel"`
	// CurrentModel is session.shutdown's model.
	CurrentModel string `json:"currentModel"`
	Title        string `json:"title"`
	ToolRequests []struct {
		ToolCallID string          `json:"toolCallId"`
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
	} `json:"toolRequests"`
	ToolCallID string `json:"toolCallId"`
	Success    *bool  `json:"success"`
	Result     *struct {
		Content         string `json:"content"`
		DetailedContent string `json:"detailedContent"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
	// ParentToolCallID marks a subagent's message or tool result: the
	// subagent's own conversation, which the main one never sees.
	ParentToolCallID string `json:"parentToolCallId"`
	// IsUserRequested marks the result of a command the user ran
	// themselves (tool.user_requested): shown, never sent to the model.
	IsUserRequested bool `json:"isUserRequested"`
	// SessionWasActive on session.resume: the process reattached to a
	// session it was still running, nothing was interrupted.
	SessionWasActive bool `json:"sessionWasActive"`
	// Kind of a system.notification; instruction_discovered ones are not
	// part of the conversation.
	Kind struct {
		Type string `json:"type"`
	} `json:"kind"`
	// assistant.usage
	InputTokens      int `json:"inputTokens"`
	OutputTokens     int `json:"outputTokens"`
	CacheReadTokens  int `json:"cacheReadTokens"`
	CacheWriteTokens int `json:"cacheWriteTokens"`
	// session.shutdown
	CurrentTokens int `json:"currentTokens"`
	// session.compaction_complete
	SummaryContent       string `json:"summaryContent"`
	PostCompactionTokens int    `json:"postCompactionTokens"`
}

// metaEvents are events the model never sees.
var metaEvents = map[string]bool{
	"session.start": true, "session.resume": true, "session.info": true, "session.error": true, "session.idle": true,
	"session.title_changed": true, "session.model_change": true, "session.mode_changed": true, "session.truncation": true,
	"session.usage_info": true, "session.shutdown": true, "session.compaction_start": true, "session.warning": true,
	"session.plan_changed": true, "session.handoff": true, "session.snapshot_rewind": true, "session.context_changed": true,
	"assistant.turn_start": true, "assistant.turn_end": true, "assistant.intent": true, "assistant.usage": true,
	"assistant.message_delta": true, "assistant.reasoning_delta": true, "tool.execution_start": true, "tool.user_requested": true,
	"tool.execution_partial_result": true, "tool.execution_progress": true, "abort": true, "pending_messages.modified": true,
	"hook.start": true, "hook.end": true, "skill.invoked": true, "subagent.started": true, "subagent.completed": true,
	"subagent.failed": true, "subagent.selected": true, "system.message": true,
}

// interrupted is the result Copilot CLI gives, when it loads a session, to
// the calls an abort or a restart left without one.
const interrupted = "The execution of this tool, or a previous tool was interrupted."

// state is Transcript.State.
type state struct {
	meta      transcript.Meta
	lines     int
	toolNames map[string]string
	// answered holds the calls the conversation has a result for: Copilot
	// keeps the first result of a call and ignores another.
	answered map[string]bool
	// checkpoint is where a session.compaction_start found the
	// conversation: the message it ended with (checkpointID, "" when it
	// was empty) and its length then (-1: no compaction running).
	checkpoint   int
	checkpointID string
}

// Empty implements jsonl.LineFormat.
func (lines) Empty() *transcript.Transcript {
	return &transcript.Transcript{Format: transcript.FormatCopilotCLI, Frame: &jsonl.Frame{}, State: &state{toolNames: map[string]string{}, answered: map[string]bool{}, checkpoint: -1}}
}

// Owns implements jsonl.LineFormat.
func (lines) Owns(t *transcript.Transcript) bool {
	_, ok := t.State.(*state)
	return ok
}

// Names implements jsonl.LineFormat.
func (lines) Names() (source, record string) { return "Copilot CLI session", "an event" }

// AppendLines implements jsonl.LineFormat.
func (lines) AppendLines(prev *transcript.Transcript, data []byte) *transcript.Transcript {
	ps := prev.State.(*state)
	// The previous transcript keeps its own state: what this append
	// changes is a copy.
	st := &state{meta: ps.meta, toolNames: ps.toolNames, answered: maps.Clone(ps.answered), checkpoint: ps.checkpoint, checkpointID: ps.checkpointID}
	t := jsonl.Continue(prev)
	t.Messages, t.Kept = slices.Clip(prev.Messages), len(prev.Messages)
	st.lines = jsonl.Decode(t, data, ps.lines, func(idx int, rec *transcript.Record, ev *event) error {
		return st.apply(t, rec, idx, ev)
	})
	t.State = st
	t.Meta = st.meta
	if len(prev.Records) == 0 {
		t.Kept = 0
	}
	if t.Kept == len(prev.Messages) && len(t.Messages) == len(prev.Messages) {
		t.Turns = prev.Turns
	} else {
		t.Turns = transcript.BuildTurns(t.Messages)
	}
	return t
}

// apply reads one event into t the way Copilot CLI rebuilds the
// conversation when it resumes a session: subagents' events and the
// results of commands the user ran are not part of it, a second result
// for a call is ignored, an abort or a restart answers the calls it
// interrupted, and a compaction's summary replaces what the conversation
// held when the compaction started (what came while it ran stays).
func (s *state) apply(t *transcript.Transcript, rec *transcript.Record, idx int, ev *event) error {
	if ev.Type == "" {
		return jsonl.Unread(fmt.Errorf("not an event (no type)"))
	}
	rec.ID, rec.Type = ev.ID, ev.Type
	var d eventData
	if len(ev.Data) > 0 && string(ev.Data) != "null" {
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return fmt.Errorf("%s data: %w", ev.Type, err)
		}
	}
	ts, _ := time.Parse(time.RFC3339Nano, ev.Timestamp)
	msg := func(role transcript.Role, origin transcript.Origin, parts []transcript.Part) {
		t.Messages = append(t.Messages, transcript.Message{ID: ev.ID, Role: role, Origin: origin, Timestamp: ts, Records: []int{idx}, Parts: parts})
	}
	// A subagent's events (and a user's own commands) are kept as they
	// are, in place, but are not the main conversation.
	passThrough := func() { rec.Kind = transcript.RecordUnknown }
	switch ev.Type {
	case "user.message":
		rec.Kind = transcript.RecordMessage
		if d.Content != nil && *d.Content != "" {
			msg(transcript.RoleUser, transcript.OriginHuman, []transcript.Part{{Kind: transcript.PartText, Text: *d.Content, Ref: transcript.Ref{Record: idx, Block: -1}}})
		}
	case "system.notification":
		rec.Kind = transcript.RecordMeta
		if d.Kind.Type != "instruction_discovered" && d.Content != nil && *d.Content != "" {
			rec.Kind = transcript.RecordMessage
			msg(transcript.RoleUser, transcript.OriginInjected, []transcript.Part{{Kind: transcript.PartText, Text: *d.Content, Ref: transcript.Ref{Record: idx, Block: -1}}})
		}
	case "assistant.message":
		if d.ParentToolCallID != "" || subagent(ev) {
			passThrough()
			break
		}
		rec.Kind = transcript.RecordMessage
		var parts []transcript.Part
		if d.ReasoningText != "" {
			parts = append(parts, transcript.Part{Kind: transcript.PartReasoning, Text: d.ReasoningText, Ref: transcript.Ref{Record: idx, Block: blockReasoning}})
		}
		if d.Content != nil && *d.Content != "" {
			parts = append(parts, transcript.Part{Kind: transcript.PartText, Text: *d.Content, Ref: transcript.Ref{Record: idx, Block: -1}})
		}
		for k, tr := range d.ToolRequests {
			s.toolNames[tr.ToolCallID] = tr.Name
			parts = append(parts, transcript.Part{Kind: transcript.PartToolCall, ToolCallID: tr.ToolCallID, ToolName: tr.Name, Args: cmp.Or(jsonx.StringOrCompact(tr.Arguments), "{}"), Ref: transcript.Ref{Record: idx, Block: k}})
		}
		if len(parts) > 0 {
			msg(transcript.RoleAssistant, transcript.OriginAgent, parts)
			t.Messages[len(t.Messages)-1].Model = cmp.Or(d.Model, s.meta.Model)
		}
		if d.Model != "" {
			s.meta.Model = d.Model
		}
	case "assistant.reasoning":
		rec.Kind = transcript.RecordMessage
		if d.Content != nil && *d.Content != "" {
			msg(transcript.RoleAssistant, transcript.OriginAgent, []transcript.Part{{Kind: transcript.PartReasoning, Text: *d.Content, Ref: transcript.Ref{Record: idx, Block: -1}}})
		}
	case "tool.execution_complete":
		if d.ParentToolCallID != "" || subagent(ev) || d.IsUserRequested || s.answered[d.ToolCallID] {
			passThrough()
			break
		}
		rec.Kind = transcript.RecordMessage
		p := transcript.Part{Kind: transcript.PartToolResult, ToolCallID: d.ToolCallID, ToolName: s.toolNames[d.ToolCallID], Ref: transcript.Ref{Record: idx, Block: -1}}
		if d.Result != nil {
			p.Text = d.Result.Content
		}
		if d.Success != nil && !*d.Success {
			p.IsError = true
			if p.Text == "" {
				p.Text = errorText(d.Error)
			}
		}
		s.answered[d.ToolCallID] = true
		msg(transcript.RoleTool, transcript.OriginToolResult, []transcript.Part{p})
		if d.Model != "" {
			s.meta.Model = d.Model // the model that asked for the call
		}
	case "abort":
		rec.Kind = transcript.RecordMeta
		if s.answerInterrupted(t, idx, ev.ID, ts) {
			rec.Kind = transcript.RecordMessage
		}
	case "session.compaction_start":
		rec.Kind = transcript.RecordMeta
		s.checkpoint, s.checkpointID = len(t.Messages), ""
		if n := len(t.Messages); n > 0 {
			s.checkpointID = t.Messages[n-1].ID
		}
	case "session.compaction_complete":
		rec.Kind = transcript.RecordMarker
		if (d.Success == nil || *d.Success) && d.SummaryContent != "" {
			summary := transcript.Message{ID: ev.ID, Role: transcript.RoleUser, Origin: transcript.OriginSummary, Timestamp: ts, Records: []int{idx},
				Parts: []transcript.Part{{Kind: transcript.PartText, Text: d.SummaryContent, Ref: transcript.Ref{Record: idx, Block: -1}}}}
			s.compact(t, summary)
		}
		s.checkpoint, s.checkpointID = -1, ""
	case "assistant.usage":
		rec.Kind = transcript.RecordMeta
		if ctx := d.InputTokens + d.CacheReadTokens + d.CacheWriteTokens; ctx > 0 {
			s.setUsage(t, &transcript.Usage{Input: d.InputTokens, CacheRead: d.CacheReadTokens, CacheCreation: d.CacheWriteTokens, Output: d.OutputTokens})
		}
		if d.Model != "" {
			s.meta.Model = d.Model
		}
	case "session.shutdown":
		rec.Kind = transcript.RecordMeta
		if d.CurrentTokens > 0 {
			s.setUsage(t, &transcript.Usage{Total: d.CurrentTokens})
		}
		if d.CurrentModel != "" {
			s.meta.Model = d.CurrentModel
		}
	default:
		rec.Kind = transcript.RecordUnknown
		if metaEvents[ev.Type] {
			rec.Kind = transcript.RecordMeta
		}
		switch ev.Type {
		case "session.resume":
			// A resumed session names the model it resumes with.
			if m := cmp.Or(d.SelectedModel, d.Model); m != "" {
				s.meta.Model = m
			}
			if !d.SessionWasActive && s.answerInterrupted(t, idx, ev.ID, ts) {
				rec.Kind = transcript.RecordMessage
			}
		case "session.start":
			s.meta.SessionID = d.SessionID
			s.meta.AgentVersion = d.CopilotVersion
			if d.Context.Cwd != "" {
				s.meta.Cwd = d.Context.Cwd
			}
			if d.SelectedModel != "" {
				s.meta.Model = d.SelectedModel
			}
		case "session.model_change":
			if d.NewModel != "" {
				s.meta.Model = d.NewModel
			}
		case "session.title_changed":
			s.meta.Title = d.Title
		}
	}
	return nil
}

// subagent reports whether ev is a subagent's (the agentId later releases
// put on the envelope).
func subagent(ev *event) bool { return ev.AgentID != "" }

// answerInterrupted answers, as Copilot CLI does when it loads a session
// at an abort or a restart, the calls of the conversation's last
// assistant messages that have no result yet: one message at record idx
// holds the stand-in results. The event is then part of the
// conversation (it reports whether it is), and a fork keeps it where the
// calls need it: the agent answers them there again.
func (s *state) answerInterrupted(t *transcript.Transcript, idx int, id string, ts time.Time) bool {
	seen := map[string]bool{}
	var orphans []transcript.Part
	assistant := false
	for i := len(t.Messages) - 1; i >= 0; i-- {
		m := &t.Messages[i]
		if m.Role == transcript.RoleAssistant {
			assistant = true
		}
		calls := 0
		if m.Role == transcript.RoleAssistant {
			for _, p := range m.Parts {
				if p.Kind != transcript.PartToolCall {
					continue
				}
				calls++
				if !seen[p.ToolCallID] {
					orphans = append(orphans, transcript.Part{Kind: transcript.PartToolResult, ToolCallID: p.ToolCallID, ToolName: p.ToolName, Text: interrupted, IsError: true})
				}
			}
		}
		if calls > 0 {
			continue
		}
		if assistant {
			break
		}
		for _, p := range m.Parts {
			if p.Kind == transcript.PartToolResult {
				seen[p.ToolCallID] = true
			}
		}
	}
	if len(orphans) == 0 {
		return false
	}
	// Copilot answers them in the order it found them, last message first.
	for k := range orphans {
		orphans[k].Ref = transcript.Ref{Record: idx, Block: k}
		s.answered[orphans[k].ToolCallID] = true
	}
	t.Messages = append(t.Messages, transcript.Message{ID: id, Role: transcript.RoleTool, Origin: transcript.OriginToolResult, Timestamp: ts, Records: []int{idx}, Parts: orphans})
	return true
}

// compact replaces the conversation as it was at the compaction's start
// with the summary, as Copilot CLI applies a compaction: the messages that
// came while it ran stay after the summary, and a call whose results came
// after the start moves there with them (results without their call are
// dropped).
func (s *state) compact(t *transcript.Transcript, summary transcript.Message) {
	cut := len(t.Messages)
	if s.checkpoint >= 0 {
		cut = min(s.checkpoint, len(t.Messages))
		if s.checkpointID != "" {
			for i := len(t.Messages) - 1; i >= 0; i-- {
				if t.Messages[i].ID == s.checkpointID {
					cut = i + 1
					break
				}
			}
		}
	}
	kept := t.Messages[cut:]
	if len(kept) > 0 && kept[0].Role == transcript.RoleTool {
		moved := -1
		for i := cut - 1; i >= 0; i-- {
			m := &t.Messages[i]
			if m.Role == transcript.RoleAssistant && hasCall(m) {
				moved = i
				break
			}
			if m.Role != transcript.RoleTool && m.Role != transcript.RoleAssistant {
				break
			}
		}
		if moved >= 0 {
			kept = t.Messages[moved:]
		} else {
			for len(kept) > 0 && kept[0].Role == transcript.RoleTool {
				kept = kept[1:]
			}
		}
	}
	msgs := make([]transcript.Message, 0, 1+len(kept))
	msgs = append(msgs, summary)
	msgs = append(msgs, kept...)
	t.Messages = msgs
	t.Kept = 0
	s.answered = map[string]bool{}
	for i := range msgs {
		for _, p := range msgs[i].Parts {
			if p.Kind == transcript.PartToolResult {
				s.answered[p.ToolCallID] = true
			}
		}
	}
}

func hasCall(m *transcript.Message) bool {
	for _, p := range m.Parts {
		if p.Kind == transcript.PartToolCall {
			return true
		}
	}
	return false
}

// Block of the reasoning text in an assistant.message (tool requests use
// their index, the content -1).
const blockReasoning = 1 << 20

// setUsage puts reported usage on the last assistant message: it
// describes the context up to and including that response.
func (s *state) setUsage(t *transcript.Transcript, u *transcript.Usage) {
	for i := len(t.Messages) - 1; i >= 0; i-- {
		if t.Messages[i].Role != transcript.RoleAssistant {
			continue
		}
		// Copy on write: the previous transcript shares the array.
		msgs := make([]transcript.Message, len(t.Messages))
		copy(msgs, t.Messages)
		m := msgs[i]
		m.Usage = u
		msgs[i] = m
		t.Messages = msgs
		t.Kept = min(t.Kept, i)
		return
	}
}

func errorText(raw json.RawMessage) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Message != "" {
		return e.Message
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return jsonx.Compact(raw)
}

// Detect implements format.Codec: Copilot's event envelope with its event
// types, or a session document of the releases before it.
func (Codec) Detect(name string, head []byte) int {
	if s := detectLegacy(name, head); s > 0 {
		return s
	}
	score := 0
	ok := jsonl.HeadObjects(head, func(ev *struct {
		Type string          `json:"type"`
		ID   string          `json:"id"`
		Data json.RawMessage `json:"data"`
	}) bool {
		if len(ev.Data) == 0 || ev.Data[0] != '{' {
			return true
		}
		switch {
		case ev.Type == "session.start" && bytes.Contains(ev.Data, []byte(`"copilotVersion"`)):
			score = max(score, 95)
		case ev.Type == "user.message" || ev.Type == "assistant.message" || ev.Type == "tool.execution_complete":
			score = max(score, 80)
		case metaEvents[ev.Type]:
			score = max(score, 60)
		}
		return true
	})
	if !ok {
		return 0
	}
	if score > 0 && filepath.Base(name) == "events.jsonl" {
		score = min(score+4, 100)
	}
	return score
}
