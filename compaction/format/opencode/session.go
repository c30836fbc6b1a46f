package opencode

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/handoff"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.SessionWriter = Codec{}

// WriteSession implements format.SessionWriter: an export document the
// agent imports — the session's info, then its messages with their parts.
// opencode keeps a call's result in the call's own tool part, so a user
// message that only answers calls has no message of its own; the model's
// next words are the next assistant message of the same prompt, as
// opencode records each step. s.Model is "provider/model".
func (c Codec) WriteSession(s *handoff.Session) ([]byte, error) {
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("write a %s session: %w", c.Agent, err)
	}
	created := s.Created.UnixMilli()
	g := &ids{seed: s.ID, ms: created}
	session := s.ID
	if !strings.HasPrefix(session, "ses_") {
		session = g.next("ses", true)
	}
	provider, model, ok := strings.Cut(s.Model, "/")
	if !ok {
		provider, model = "", s.Model
	}
	title := s.Title
	if title == "" {
		title = "Handed off session"
	}
	version := ""
	if c.Agent == transcript.FormatKilo {
		// Kilo's exports are told from opencode's by a version from 2 up
		// (kiloVersion); Kilo Code's own are 7.x.
		version = "7.0.0"
	}
	slug := strings.TrimPrefix(session, "ses_")
	info := map[string]any{
		"id": session, "slug": strings.ToLower(slug[len(slug)-8:]), "projectID": "global", "directory": s.Cwd, "title": title, "version": version,
		"time": map[string]int64{"created": created, "updated": s.Timestamp(len(s.Messages)).UnixMilli()},
	}
	part := func(msgID string, fields map[string]any) map[string]any {
		fields["id"] = g.next("prt", false)
		fields["sessionID"] = session
		fields["messageID"] = msgID
		return fields
	}
	var msgs []any
	lastUser := ""
	for i, m := range s.Messages {
		t := s.Timestamp(i).UnixMilli()
		if m.Role == transcript.RoleUser {
			id := g.next("msg", false)
			var parts []any
			for _, p := range m.Parts {
				switch p.Kind {
				case transcript.PartToolResult: // in the call's tool part
				case transcript.PartImage:
					url := "data:" + p.MIME + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
					parts = append(parts, part(id, map[string]any{"type": "file", "mime": p.MIME, "filename": "image", "url": url}))
				default:
					parts = append(parts, part(id, map[string]any{"type": "text", "text": p.Text}))
				}
			}
			if len(parts) == 0 {
				continue
			}
			msgs = append(msgs, map[string]any{"info": map[string]any{"id": id, "sessionID": session, "role": "user", "time": map[string]int64{"created": t},
				"agent": "build", "model": map[string]string{"providerID": provider, "modelID": model}}, "parts": parts})
			lastUser = id
			continue
		}
		id := g.next("msg", false)
		results := map[string]handoff.Part{}
		if i+1 < len(s.Messages) {
			for _, p := range s.Messages[i+1].Parts {
				if p.Kind == transcript.PartToolResult {
					results[p.CallID] = p
				}
			}
		}
		parts := []any{part(id, map[string]any{"type": "step-start"})}
		finish := "stop"
		for _, p := range m.Parts {
			switch p.Kind {
			case transcript.PartText:
				parts = append(parts, part(id, map[string]any{"type": "text", "text": p.Text, "time": map[string]int64{"start": t, "end": t}}))
			case transcript.PartToolCall:
				finish = "tool-calls"
				input := json.RawMessage(p.Args)
				if p.Freeform || !json.Valid(input) {
					input, _ = json.Marshal(map[string]string{"input": p.Text})
				}
				res := results[p.CallID]
				state := map[string]any{"status": "completed", "input": input, "output": res.Text, "title": p.Tool, "metadata": map[string]any{},
					"time": map[string]int64{"start": t, "end": t}}
				if res.IsError {
					state = map[string]any{"status": "error", "input": input, "error": res.Text, "time": map[string]int64{"start": t, "end": t}}
				}
				parts = append(parts, part(id, map[string]any{"type": "tool", "tool": p.Tool, "callID": p.CallID, "state": state}))
			default:
				return nil, fmt.Errorf("write a %s session: message %d: the model's turn cannot hold a %s part", c.Agent, i, p.Kind)
			}
		}
		parts = append(parts, part(id, map[string]any{"type": "step-finish", "reason": finish, "tokens": zeroTokens(), "cost": 0}))
		info := map[string]any{"id": id, "sessionID": session, "role": "assistant", "mode": "build", "agent": "build",
			"path": map[string]string{"cwd": s.Cwd, "root": "/"}, "cost": 0, "tokens": zeroTokens(), "modelID": model, "providerID": provider,
			"time": map[string]int64{"created": t, "completed": t}, "finish": finish}
		if lastUser != "" {
			info["parentID"] = lastUser
		}
		msgs = append(msgs, map[string]any{"info": info, "parts": parts})
	}
	doc, err := jsonx.Marshal(map[string]any{"info": info, "messages": msgs})
	if err != nil {
		return nil, fmt.Errorf("write a %s session: %w", c.Agent, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "", "  "); err != nil {
		return nil, fmt.Errorf("write a %s session: %w", c.Agent, err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
