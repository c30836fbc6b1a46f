package jp

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
)

// summaryRequest is the request text jp's projection pairs with a summary.
const summaryRequest = "[Summary of previous conversation]"

// Blocks of the synthetic pair a summary overlay projects, on the
// compaction record.
const (
	blockSummaryRequest = 0
	blockSummaryText    = 1
)

// turnPolicy is what the winning overlays say about one turn.
type turnPolicy struct {
	summary                 *resolvedSummary
	stripReasoning          bool
	omitTools               bool
	stripRequest, stripResp bool
}

type resolvedSummary struct {
	text string
	from int
	rec  int
}

// overlay is a decoded compaction event.
type overlay struct {
	rec      int
	ts       time.Time
	from, to int
	summary  *string
	// reasoning and tools are nil when the overlay has no opinion.
	reasoning *bool
	tools     *toolPolicy
}

type toolPolicy struct {
	omit              bool
	request, response bool
}

func decodeOverlay(e *event, rec int) (overlay, bool) {
	if e.FromTurn == nil || e.ToTurn == nil || *e.FromTurn < 0 || *e.ToTurn < *e.FromTurn {
		return overlay{}, false
	}
	o := overlay{rec: rec, ts: e.ts, from: *e.FromTurn, to: *e.ToTurn}
	if e.Summary != nil {
		o.summary = &e.Summary.Summary
	}
	if len(e.Reasoning) > 0 && string(e.Reasoning) != "null" {
		strip := policyName(e.Reasoning) == "strip"
		o.reasoning = &strip
	}
	if len(e.ToolCalls) > 0 && string(e.ToolCalls) != "null" {
		var tp struct {
			Policy   json.RawMessage `json:"policy"`
			Request  bool            `json:"request"`
			Response bool            `json:"response"`
		}
		_ = json.Unmarshal(e.ToolCalls, &tp)
		switch policyName(tp.Policy) {
		case "omit":
			o.tools = &toolPolicy{omit: true}
		case "strip":
			o.tools = &toolPolicy{request: tp.Request, response: tp.Response}
		}
	}
	return o, true
}

// policyName reads a policy written bare ("strip") or as {policy: …}.
// Size thresholds ("over") are not modelled: the policy applies to every
// block in range, which can only overstate what jp strips.
func policyName(raw json.RawMessage) string {
	if s, ok := textOf(raw); ok {
		return s
	}
	var w struct {
		Policy json.RawMessage `json:"policy"`
	}
	if json.Unmarshal(raw, &w) == nil && w.Policy != nil {
		return policyName(w.Policy)
	}
	return ""
}

// overlays resolves per-turn policies, latest timestamp winning per
// policy type, as jp's projection does.
func overlays(st *state) []turnPolicy {
	maxTurn := 0
	for _, t := range st.turnOf {
		maxTurn = max(maxTurn, t)
	}
	pol := make([]turnPolicy, maxTurn+1)
	var sumTS, reaTS, toolTS = make([]*time.Time, maxTurn+1), make([]*time.Time, maxTurn+1), make([]*time.Time, maxTurn+1)
	later := func(cur *time.Time, ts time.Time) bool { return cur == nil || ts.After(*cur) }
	for i := range st.events {
		e := &st.events[i]
		if e.typ != "compaction" {
			continue
		}
		o, ok := decodeOverlay(e, i)
		if !ok {
			continue
		}
		for turn := o.from; turn <= min(o.to, maxTurn); turn++ {
			ts := o.ts
			if o.summary != nil && later(sumTS[turn], ts) {
				sumTS[turn] = &ts
				pol[turn].summary = &resolvedSummary{text: *o.summary, from: o.from, rec: o.rec}
			}
			if o.reasoning != nil && later(reaTS[turn], ts) {
				reaTS[turn] = &ts
				pol[turn].stripReasoning = *o.reasoning
			}
			if o.tools != nil && later(toolTS[turn], ts) {
				toolTS[turn] = &ts
				p := *o.tools
				pol[turn].omitTools, pol[turn].stripRequest, pol[turn].stripResp = p.omit, p.request, p.response
			}
		}
	}
	return pol
}

// project builds the model-visible messages of the events under the
// resolved policies.
func project(t *transcript.Transcript, st *state, pol []turnPolicy) []transcript.Message {
	var msgs []transcript.Message
	open := -1 // index of the message a run of events extends
	names := map[string]string{}
	for i := range st.events {
		if st.events[i].typ == "tool_call_request" {
			names[st.events[i].ID] = st.events[i].Name
		}
	}
	injected := map[int]bool{}
	add := func(role transcript.Role, origin transcript.Origin, rec int, ts time.Time, p transcript.Part) {
		if open >= 0 && msgs[open].Role == role && msgs[open].Origin == origin {
			m := &msgs[open]
			if m.Records[len(m.Records)-1] != rec {
				m.Records = append(m.Records, rec)
			}
			m.Parts = append(m.Parts, p)
			return
		}
		msgs = append(msgs, transcript.Message{Role: role, Origin: origin, Timestamp: ts, Records: []int{rec}, Parts: []transcript.Part{p}})
		open = len(msgs) - 1
	}
	for i := range st.events {
		e := &st.events[i]
		if t.Records[i].Kind != transcript.RecordMessage && e.typ != "turn_start" {
			continue
		}
		turn := st.turnOf[i]
		var p turnPolicy
		if turn < len(pol) {
			p = pol[turn]
		}
		if s := p.summary; s != nil {
			if s.from == turn && !injected[turn] {
				injected[turn] = true
				msgs = append(msgs,
					transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginSummary, Timestamp: e.ts, Records: []int{s.rec},
						Parts: []transcript.Part{{Kind: transcript.PartText, Text: summaryRequest, Ref: transcript.Ref{Record: s.rec, Block: blockSummaryRequest}}}},
					transcript.Message{Role: transcript.RoleAssistant, Origin: transcript.OriginAgent, Timestamp: e.ts, Records: []int{s.rec},
						Parts: []transcript.Part{{Kind: transcript.PartText, Text: s.text, Ref: transcript.Ref{Record: s.rec, Block: blockSummaryText}}}})
				open = -1
			}
			continue
		}
		ref := transcript.Ref{Record: i, Block: -1}
		switch e.typ {
		case "turn_start":
			open = -1
		case "chat_request":
			open = -1
			text, ok := textOf(e.Content)
			if !ok {
				text = string(mapStrings(e.Content, func(s string) string { return s }))
			}
			origin := transcript.OriginHuman
			if text == summaryRequest {
				origin = transcript.OriginSummary
			}
			add(transcript.RoleUser, origin, i, e.ts, transcript.Part{Kind: transcript.PartText, Text: text, Ref: ref})
			open = -1
		case "chat_response":
			part := transcript.Part{Kind: transcript.PartText, Ref: ref}
			switch {
			case e.Message != nil:
				part.Text = *e.Message
			case len(e.Reasoning) > 0:
				if p.stripReasoning {
					continue
				}
				part.Kind = transcript.PartReasoning
				part.Text, _ = textOf(e.Reasoning)
				if sig := signature(e.Metadata); sig != "" {
					part.Signed, part.Opaque = true, len(sig)
				}
			case len(e.Data) > 0:
				part.Text = string(mapStrings(e.Data, func(s string) string { return s }))
			}
			add(transcript.RoleAssistant, transcript.OriginAgent, i, e.ts, part)
		case "tool_call_request":
			if p.omitTools {
				continue
			}
			args := "{}"
			if len(e.Arguments) > 0 && string(e.Arguments) != "null" {
				args = string(mapStrings(e.Arguments, decodeString))
			}
			if p.stripRequest && args != "{}" {
				args = "{}"
				st.projected[i] = true
			}
			add(transcript.RoleAssistant, transcript.OriginAgent, i, e.ts, transcript.Part{Kind: transcript.PartToolCall, ToolCallID: e.ID, ToolName: e.Name, Args: args, Ref: ref})
		case "tool_call_response":
			if p.omitTools {
				continue
			}
			text, ok := textOf(e.Content)
			if ok {
				text = decodeString(text)
			} else {
				text = string(mapStrings(e.Content, decodeString))
			}
			if p.stripResp {
				name := names[e.ID]
				if name == "" {
					name = "unknown"
				}
				status := "success"
				if e.IsError {
					status = "error"
				}
				text = "[compacted] " + name + ": " + status
				st.projected[i] = true
			}
			add(transcript.RoleUser, transcript.OriginToolResult, i, e.ts, transcript.Part{Kind: transcript.PartToolResult, ToolCallID: e.ID, ToolName: names[e.ID], Text: text, IsError: e.IsError, Ref: ref})
		}
	}
	return msgs
}

// signature returns the decoded Anthropic thinking signature in an
// event's metadata, or "".
func signature(meta json.RawMessage) string {
	var m struct {
		Sig string `json:"anthropic_thinking_signature"`
	}
	if json.Unmarshal(meta, &m) != nil || m.Sig == "" {
		return ""
	}
	if b, err := base64.StdEncoding.DecodeString(m.Sig); err == nil {
		return string(b)
	}
	return m.Sig
}
