package copilotcli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/format/openaichat"
	"github.com/compactd/compactd/compaction/transcript"
)

// Before 0.0.342 (autumn 2025) Copilot CLI kept each session as one JSON
// document, history-session-state/session_<sessionId>_<startTime ms>.json,
// written whole with JSON.stringify(session, null, 2) after every change:
//
//	{"sessionId", "startTime", "chatMessages": [...], "timeline": [...],
//	 "selectedModel"?}
//
// chatMessages are the conversation as the model gets it, Chat Completions
// messages (the system prompt is not among them: the CLI builds it per
// request); timeline is what the terminal shows (user, copilot, info,
// error, tool_call_requested/completed entries). The shape is the one the
// CLI validates on load (its history-session schema, read in the
// @github/copilot package, 0.0.340). Releases up to 0.0.38x resumed such a
// session by importing it into the event log; 1.0 no longer reads them.

// legacyKey is the member holding the conversation.
const legacyKey = "chatMessages"

// legacyState is Transcript.State of a legacy document.
type legacyState struct{}

// legacyDocument reports whether src is a legacy session document.
func legacyDocument(src []byte) bool {
	trim := bytes.TrimSpace(bytes.TrimPrefix(src, format.BOM))
	if len(trim) == 0 || trim[0] != '{' {
		return false
	}
	doc, err := jsonx.ScanArrayDocument(src, legacyKey)
	return err == nil && doc.Key == legacyKey
}

// parseLegacy reads a legacy session: its chat messages, its id and the
// model it was on.
func parseLegacy(src []byte) (*transcript.Transcript, error) {
	t, err := openaichat.ParseArray(src, legacyKey, transcript.FormatCopilotCLI)
	if err != nil {
		return nil, err
	}
	var head struct {
		SessionID     string `json:"sessionId"`
		SelectedModel string `json:"selectedModel"`
	}
	_ = json.Unmarshal(bytes.TrimPrefix(src, format.BOM), &head)
	t.Meta.SessionID = head.SessionID
	if head.SelectedModel != "" {
		t.Meta.Model = head.SelectedModel
		for i := range t.Messages {
			if t.Messages[i].Role == transcript.RoleAssistant && t.Messages[i].Model == "" {
				t.Messages[i].Model = head.SelectedModel
			}
		}
	}
	t.State = legacyState{}
	return t, nil
}

// detectLegacy scores a legacy session document: an object whose
// chatMessages are Chat Completions messages, with the session's id and
// its timeline (in a head cut before them, the messages alone).
func detectLegacy(name string, head []byte) int {
	p := jsonx.Peek(head)
	if p.Bad || p.Trailing {
		return 0
	}
	doc, ok := p.Value.(map[string]any)
	if !ok {
		return 0
	}
	msgs, ok := doc[legacyKey].([]any)
	if !ok {
		return 0
	}
	roles := 0
	for i, m := range msgs {
		o, _ := m.(map[string]any)
		role, _ := o["role"].(string)
		switch role {
		case "user", "assistant", "tool", "system", "developer", "function":
			roles++
		default:
			if i == len(msgs)-1 && !p.Complete {
				continue // cut by the end of the head
			}
			return 0
		}
	}
	_, id := doc["sessionId"].(string)
	_, timeline := doc["timeline"].([]any)
	score := 0
	switch {
	case id && timeline:
		score = 95
	case id || timeline:
		score = 85
	case !p.Complete && roles > 0:
		score = 70
	}
	if score > 0 && legacyName(name) {
		score = min(score+4, 100)
	}
	return score
}

// legacyName reports whether name is a legacy session's file name, as the
// CLI lists them: session_<sessionId>_<startTime ms>.json.
func legacyName(name string) bool { return legacyFile.MatchString(filepath.Base(name)) }

var legacyFile = regexp.MustCompile(`^session_(.+)_(\d+)\.json$`)

// forkLegacy writes a legacy session's fork: the same document under a new
// session id and start time, its chatMessages holding the view, and a
// timeline of the kept prompts and answers (the entries the CLI shows),
// laid out as the CLI writes it.
func forkLegacy(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	out, err := openaichat.ForkArray(v)
	if err != nil {
		return nil, err
	}
	o, err := jsonx.ParseObject(bytes.TrimPrefix(out, format.BOM))
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	_ = o.Set("sessionId", opts.SessionID)
	_ = o.Set("startTime", opts.Timestamp)
	forked, err := openaichat.ParseArray(out, legacyKey, transcript.FormatCopilotCLI)
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	var timeline []json.RawMessage
	for i, m := range forked.Messages {
		var text string
		for _, p := range m.Parts {
			if p.Kind == transcript.PartText {
				text += p.Text
			}
		}
		typ := ""
		switch {
		case text == "":
		case m.Role == transcript.RoleUser:
			typ, text = "user", promptOf(text)
		case m.Role == transcript.RoleAssistant:
			typ = "copilot"
		}
		if typ == "" {
			continue
		}
		e := &jsonx.Object{}
		_ = e.Set("type", typ)
		_ = e.Set("text", text)
		_ = e.Set("id", newid.Derived(opts.SessionID, i+1))
		_ = e.Set("timestamp", opts.Timestamp)
		timeline = append(timeline, e.Bytes())
	}
	tl := jsonx.Array(timeline)
	o.SetRaw("timeline", tl)
	var b bytes.Buffer
	if err := json.Indent(&b, o.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	return b.Bytes(), nil
}

// promptOf is what the user typed of a prompt as the CLI sent it: before
// the context it appends (<current_datetime>, <reminder>).
func promptOf(text string) string {
	if i := strings.Index(text, "\n\n<current_datetime>"); i >= 0 {
		return text[:i]
	}
	return text
}

// renewLegacy is the legacy document under session id, its start time
// now (RFC 3339).
func renewLegacy(t *transcript.Transcript, id, now string) ([]byte, error) {
	src, err := openaichat.WriteArray(t)
	if err != nil {
		return nil, err
	}
	o, err := jsonx.ParseObject(bytes.TrimPrefix(src, format.BOM))
	if err != nil {
		return nil, fmt.Errorf("renew: %w", err)
	}
	_ = o.Set("sessionId", id)
	_ = o.Set("startTime", now)
	var b bytes.Buffer
	if err := json.Indent(&b, o.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("renew: %w", err)
	}
	return b.Bytes(), nil
}
