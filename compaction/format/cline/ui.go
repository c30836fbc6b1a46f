package cline

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/anthropic"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/media"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(UICodec{}) }

// UIFileName is the task's display log.
const UIFileName = "ui_messages.json"

// UICodec reads a Cline, Roo Code or Kilo task's ui_messages.json: the
// log the extension shows, which every task keeps, and the only one some
// task folders have left (api_conversation_history.json gone, or never
// written by an older version). Its api_req_started rows carry what each
// request cost in tokens (tokensIn, tokensOut, cacheWrites, cacheReads),
// which the gauge calibrates on. It is read only: Cline resumes a task
// from its API history, which this log cannot stand for.
type UICodec struct{}

var _ format.Codec = UICodec{}

// Format implements format.Codec.
func (UICodec) Format() transcript.Format { return transcript.FormatClineUI }

// uiMessage is one row of ui_messages.json.
type uiMessage struct {
	Ts        *float64 `json:"ts"`
	Type      string   `json:"type"`
	Say       string   `json:"say"`
	Ask       string   `json:"ask"`
	Text      string   `json:"text"`
	Images    []string `json:"images"`
	Partial   bool     `json:"partial"`
	ModelInfo *struct {
		ModelID string `json:"modelId"`
	} `json:"modelInfo"`
}

// apiRequest is the JSON text of an api_req_started row.
type apiRequest struct {
	TokensIn    int `json:"tokensIn"`
	TokensOut   int `json:"tokensOut"`
	CacheWrites int `json:"cacheWrites"`
	CacheReads  int `json:"cacheReads"`
}

// Parse implements format.Codec. Prompts (task, user_feedback) are the
// user's; text, completion_result and reasoning the model's; a tool or
// command ask is a tool call, a command's output its result. An
// api_req_started row's tokens are the usage of the response it started.
func (UICodec) Parse(src []byte) (*transcript.Transcript, error) {
	doc, err := jsonx.ScanArrayDocument(src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", UIFileName, err)
	}
	t := &transcript.Transcript{Format: transcript.FormatClineUI, Size: int64(len(src))}
	t.Records = make([]transcript.Record, len(doc.Elements))
	for i, sp := range doc.Elements {
		t.Records[i] = transcript.Record{Start: int64(sp.Start), End: int64(sp.End), Raw: src[sp.Start:sp.End:sp.End], Kind: transcript.RecordMeta}
	}
	t.Frame = &anthropic.Frame{Src: src, Doc: doc, Gaps: jsonx.GapsOf(src, doc.Elements), System: -1}
	var pending *transcript.Usage // the request whose response comes next
	calls := 0
	lastCall := ""
	for i := range t.Records {
		r := &t.Records[i]
		var m uiMessage
		if json.Unmarshal(r.Raw, &m) != nil || m.Type == "" {
			anthropic.Malformed(t, i, "not a ui_messages row")
			continue
		}
		r.Type = m.Type + ":" + m.Say + m.Ask
		if m.ModelInfo != nil && m.ModelInfo.ModelID != "" {
			t.Meta.Model = m.ModelInfo.ModelID
		}
		var ts time.Time
		if m.Ts != nil {
			ts = time.UnixMilli(int64(*m.Ts)).UTC()
		}
		add := func(role transcript.Role, origin transcript.Origin, parts ...transcript.Part) {
			r.Kind = transcript.RecordMessage
			msg := transcript.Message{ID: fmt.Sprint(i), Role: role, Origin: origin, Timestamp: ts, Records: []int{i}, Parts: parts, Model: t.Meta.Model}
			if role == transcript.RoleAssistant && pending != nil {
				msg.Usage, pending = pending, nil
			}
			t.Messages = append(t.Messages, msg)
		}
		text := func(kind transcript.PartKind) transcript.Part {
			return transcript.Part{Kind: kind, Text: m.Text, Ref: transcript.Ref{Record: i, Block: -1}}
		}
		kind := m.Say
		if m.Type == "ask" {
			kind = "ask:" + m.Ask
		}
		switch kind {
		case "task", "user_feedback":
			parts := []transcript.Part{text(transcript.PartText)}
			for k, img := range m.Images {
				parts = append(parts, imagePart(img, transcript.Ref{Record: i, Block: k}))
			}
			add(transcript.RoleUser, transcript.OriginHuman, parts...)
		case "text", "completion_result":
			if m.Text != "" {
				add(transcript.RoleAssistant, transcript.OriginAgent, text(transcript.PartText))
			}
		case "reasoning":
			add(transcript.RoleAssistant, transcript.OriginAgent, text(transcript.PartReasoning))
		case "ask:tool", "ask:command", "ask:use_mcp_server", "ask:browser_action_launch":
			calls++
			lastCall = fmt.Sprintf("ui-%d", calls)
			name := strings.TrimPrefix(kind, "ask:")
			var tool struct {
				Tool string `json:"tool"`
			}
			if json.Unmarshal([]byte(m.Text), &tool) == nil && tool.Tool != "" {
				name = tool.Tool
			}
			args := m.Text
			if !json.Valid([]byte(args)) {
				b, _ := json.Marshal(map[string]string{"command": m.Text})
				args = string(b)
			}
			add(transcript.RoleAssistant, transcript.OriginAgent, transcript.Part{Kind: transcript.PartToolCall, ToolCallID: lastCall, ToolName: name, Args: args, Ref: transcript.Ref{Record: i, Block: -1}})
		case "command_output", "mcp_server_response", "browser_action_result":
			if lastCall == "" {
				continue
			}
			add(transcript.RoleTool, transcript.OriginToolResult, transcript.Part{Kind: transcript.PartToolResult, ToolCallID: lastCall, Text: m.Text, Ref: transcript.Ref{Record: i, Block: -1}})
		case "api_req_started":
			var req apiRequest
			if json.Unmarshal([]byte(m.Text), &req) == nil && req.TokensIn+req.CacheReads+req.CacheWrites > 0 {
				pending = &transcript.Usage{Input: req.TokensIn, CacheCreation: req.CacheWrites, CacheRead: req.CacheReads, Output: req.TokensOut}
			}
		}
	}
	if pending != nil {
		// The last request's response is not logged (yet): its usage
		// still measures the context.
		for k := len(t.Messages) - 1; k >= 0; k-- {
			if t.Messages[k].Role == transcript.RoleAssistant {
				t.Messages[k].Usage = pending
				break
			}
		}
	}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t, nil
}

// imagePart is a data URL image of the log, measured from its pixels.
func imagePart(dataURL string, ref transcript.Ref) transcript.Part {
	head, data, _ := strings.Cut(dataURL, ",")
	mime, _, _ := strings.Cut(strings.TrimPrefix(head, "data:"), ";")
	w, h := media.Dimensions(data)
	return transcript.Part{Kind: transcript.PartImage, MIME: mime, Width: w, Height: h, Size: len(data) * 3 / 4, Ref: ref}
}

// Write implements format.Codec: the rows with the bytes between them.
func (UICodec) Write(t *transcript.Transcript) ([]byte, error) { return anthropic.WriteFrame(t) }

// Fork implements format.Codec: it refuses, saying why.
func (UICodec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	return nil, fmt.Errorf("%s is the task's display log: Cline, Roo Code and Kilo resume a task from its %s, which this task folder lacks, so there is nothing compactd could write that the agent would resume (the gauge reads the log); run compact on the task's %s once the agent has written it (with the task's first request)", UIFileName, FileName, FileName)
}

// Detect implements format.Codec: an array of rows with ts and type
// say/ask, most of all under its own name. The rows are judged by their
// content, however the file is laid out (indented, its keys reordered);
// in a head cut mid-array, the rows before the cut.
func (UICodec) Detect(name string, head []byte) int {
	p := jsonx.Peek(head)
	if p.Bad || p.Trailing {
		return 0
	}
	all, ok := p.Value.([]any)
	if !ok {
		return 0
	}
	rows, _ := p.Records()
	score := 0
	for _, r := range rows {
		o, _ := r.(map[string]any)
		_, ts := o["ts"].(float64)
		typ, _ := o["type"].(string)
		_, say := o["say"].(string)
		_, ask := o["ask"].(string)
		if !ts || (typ != "say" && typ != "ask") || (!say && !ask) {
			if !p.Complete && len(all) == 1 {
				break // the only row, cut: judged by what follows
			}
			return 0
		}
		score = 80
	}
	if score == 0 && !p.Complete && len(all) == 1 {
		// One row cut by the end of the head (a huge first message).
		if o, _ := all[0].(map[string]any); o != nil {
			if _, ts := o["ts"].(float64); ts {
				score = 60
			}
		}
	}
	if score > 0 && filepath.Base(name) == UIFileName {
		score = 95
	}
	return score
}
