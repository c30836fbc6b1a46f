package jp

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

func init() { format.Register(Codec{}) }

// Codec reads and writes jp events.json files.
type Codec struct{}

var _ format.Codec = Codec{}

// SiblingParser is implemented by codecs whose transcripts are spread over
// several files; callers that can read the siblings pass their bytes.
type SiblingParser interface {
	// ParseWithSiblings parses events with the bytes of base_config.json
	// and metadata.json, each nil when absent.
	ParseWithSiblings(events, baseConfig, metadata []byte) (*transcript.Transcript, error)
}

var _ SiblingParser = Codec{}

// Sibling file names in a conversation directory.
const (
	EventsFile     = "events.json"
	BaseConfigFile = "base_config.json"
	MetadataFile   = "metadata.json"
)

// timeLayout is how jp writes event timestamps (UTC).
const timeLayout = "2006-01-02 15:04:05.999999999"

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatJP }

// frame is Transcript.Frame: the source and its array layout.
type frame struct {
	src  []byte
	doc  *jsonx.ArrayDocument
	gaps jsonx.Gaps
}

// state is Transcript.State: the decoded events, for Fork.
type state struct {
	events []event
	// turnOf is each record's jp turn index.
	turnOf []int
	// projected marks records whose model-visible parts an overlay altered.
	projected map[int]bool
}

// event is one decoded element of events.json.
type event struct {
	Timestamp string          `json:"timestamp"`
	Type      *string         `json:"type"`
	Content   json.RawMessage `json:"content"`
	Message   *string         `json:"message"`
	Reasoning json.RawMessage `json:"reasoning"`
	Data      json.RawMessage `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	IsError   bool            `json:"is_error"`
	Metadata  json.RawMessage `json:"metadata"`
	Delta     json.RawMessage `json:"delta"`
	FromTurn  *int            `json:"from_turn"`
	ToTurn    *int            `json:"to_turn"`
	Summary   *struct {
		Summary string `json:"summary"`
	} `json:"summary"`
	ToolCalls json.RawMessage `json:"tool_calls"`

	typ string
	ts  time.Time
}

// Parse implements format.Codec: events.json alone.
func (c Codec) Parse(src []byte) (*transcript.Transcript, error) {
	return c.ParseWithSiblings(src, nil, nil)
}

// ParseWithSiblings implements SiblingParser: base_config.json gives the
// model and system prompt, metadata.json the title.
func (Codec) ParseWithSiblings(src, baseConfig, metadata []byte) (*transcript.Transcript, error) {
	doc, err := jsonx.ScanArrayDocument(src)
	if err != nil {
		return nil, fmt.Errorf("parse jp events: %w", err)
	}
	if doc.Key != "" {
		return nil, fmt.Errorf("parse jp events: the document is an object, not an event array")
	}
	t := &transcript.Transcript{Format: transcript.FormatJP, Size: int64(len(src))}
	fr := &frame{src: src, doc: doc, gaps: jsonx.GapsOf(src, doc.Elements)}
	st := &state{events: make([]event, len(doc.Elements)), turnOf: make([]int, len(doc.Elements)), projected: map[int]bool{}}
	t.Frame, t.State = fr, st
	t.Records = make([]transcript.Record, len(doc.Elements))
	var system *transcript.Message
	if baseConfig != nil {
		cfg, err := readConfig(baseConfig)
		if err != nil {
			t.Problems = append(t.Problems, transcript.Problem{Record: -1, Message: "base_config.json: " + err.Error()})
		} else {
			t.Meta.Model = cfg.model
			if cfg.system != "" {
				system = &transcript.Message{Role: transcript.RoleSystem, Origin: transcript.OriginInjected, Pinned: true,
					Parts: []transcript.Part{{Kind: transcript.PartText, Text: cfg.system, Ref: transcript.Ref{Record: -1, Block: -1}}}}
			}
		}
	}
	if metadata != nil {
		var md struct {
			Title string `json:"title"`
		}
		if err := json.Unmarshal(metadata, &md); err != nil {
			t.Problems = append(t.Problems, transcript.Problem{Record: -1, Message: "metadata.json: " + err.Error()})
		} else {
			t.Meta.Title = md.Title
		}
	}
	turn, seenTurn := 0, false
	for i, sp := range doc.Elements {
		raw := src[sp.Start:sp.End:sp.End]
		r := &t.Records[i]
		*r = transcript.Record{Start: int64(sp.Start), End: int64(sp.End), Raw: raw}
		e := &st.events[i]
		if err := decodeEvent(raw, e); err != nil {
			r.Kind, r.Err = transcript.RecordMalformed, err.Error()
			t.Skipped++
			t.Problems = append(t.Problems, transcript.Problem{Record: i, Message: fmt.Sprintf("event %d at byte %d: %v", i, sp.Start, err)})
			st.turnOf[i] = turn
			continue
		}
		if e.typ == "turn_start" {
			if seenTurn {
				turn++
			}
			seenTurn = true
		}
		st.turnOf[i] = turn
		r.Type, r.ID = e.typ, e.ID
		switch e.typ {
		case "chat_request", "chat_response", "tool_call_request", "tool_call_response":
			r.Kind = transcript.RecordMessage
		case "turn_start", "inquiry_request", "inquiry_response":
			r.Kind = transcript.RecordMeta
		case "config_delta":
			r.Kind = transcript.RecordMeta
			if cfg, err := readConfig(e.Delta); err == nil {
				if cfg.model != "" {
					t.Meta.Model = cfg.model
				}
				if cfg.system != "" {
					system = &transcript.Message{Role: transcript.RoleSystem, Origin: transcript.OriginInjected, Pinned: true, Records: []int{i},
						Parts: []transcript.Part{{Kind: transcript.PartText, Text: cfg.system, Ref: transcript.Ref{Record: i, Block: -1}}}}
				}
			}
		case "compaction":
			r.Kind = transcript.RecordMarker
		default:
			r.Kind = transcript.RecordUnknown
		}
	}
	if system != nil {
		t.Messages = append(t.Messages, *system)
	}
	t.Messages = append(t.Messages, project(t, st, overlays(st))...)
	for i := range t.Messages {
		if t.Messages[i].Role == transcript.RoleAssistant {
			t.Messages[i].Model = t.Meta.Model
		}
	}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t, nil
}

func decodeEvent(raw []byte, e *event) error {
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("event is not a JSON object")
	}
	if err := json.Unmarshal(raw, e); err != nil {
		return err
	}
	if e.Type == nil {
		return fmt.Errorf("event has no type")
	}
	e.typ = *e.Type
	e.ts, _ = time.Parse(timeLayout, e.Timestamp)
	return nil
}

type config struct {
	model, system string
}

// readConfig reads the model and system prompt of a config (base_config.json
// or a config_delta's delta). The model id is "provider/name" or
// {provider, name}; the system prompt a string or {value}, followed by its
// sections.
func readConfig(raw []byte) (config, error) {
	var c struct {
		Assistant struct {
			Model struct {
				ID json.RawMessage `json:"id"`
			} `json:"model"`
			SystemPrompt   json.RawMessage `json:"system_prompt"`
			SystemSections json.RawMessage `json:"system_prompt_sections"`
		} `json:"assistant"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return config{}, err
	}
	var out config
	var id struct {
		Name string `json:"name"`
	}
	var s string
	switch {
	case json.Unmarshal(c.Assistant.Model.ID, &s) == nil:
		_, out.model, _ = strings.Cut(s, "/")
		if out.model == "" {
			out.model = s
		}
	case json.Unmarshal(c.Assistant.Model.ID, &id) == nil:
		out.model = id.Name
	}
	var parts []string
	var sp struct {
		Value string `json:"value"`
	}
	switch {
	case json.Unmarshal(c.Assistant.SystemPrompt, &s) == nil:
		parts = append(parts, s)
	case json.Unmarshal(c.Assistant.SystemPrompt, &sp) == nil && sp.Value != "":
		parts = append(parts, sp.Value)
	}
	var sections []struct {
		Content string `json:"content"`
	}
	var wrapped struct {
		Value []struct {
			Content string `json:"content"`
		} `json:"value"`
	}
	if json.Unmarshal(c.Assistant.SystemSections, &sections) != nil && json.Unmarshal(c.Assistant.SystemSections, &wrapped) == nil {
		for _, x := range wrapped.Value {
			sections = append(sections, struct {
				Content string `json:"content"`
			}{x.Content})
		}
	}
	for _, x := range sections {
		parts = append(parts, x.Content)
	}
	out.system = strings.Join(parts, "\n\n")
	return out, nil
}

// Write implements format.Codec.
func (Codec) Write(t *transcript.Transcript) ([]byte, error) {
	fr, ok := t.Frame.(*frame)
	if !ok {
		return nil, fmt.Errorf("write jp: transcript was not parsed by this codec")
	}
	out, err := fr.gaps.JoinRecords(t.Records)
	if err != nil {
		return nil, fmt.Errorf("write jp: %w", err)
	}
	return out, nil
}

// Detect implements format.Codec: an array of objects with a timestamp in
// jp's "YYYY-MM-DD HH:MM:SS.ffffff" form and jp event types.
func (Codec) Detect(name string, head []byte) int {
	p := jsonx.Peek(head)
	records, wrapper := p.Records()
	if wrapper != nil || len(records) == 0 {
		return 0
	}
	known, odd := 0, 0
	for i, r := range records {
		o, ok := r.(map[string]any)
		typ, _ := o["type"].(string)
		ts, _ := o["timestamp"].(string)
		if _, err := time.Parse(timeLayout, ts); !ok || typ == "" || err != nil {
			if i == len(records)-1 && !p.Complete {
				// Cut by the end of the head: its type or timestamp may
				// come after (a tool that saved the file reordered keys).
				continue
			}
			// Malformed events are kept and counted; many mean another format.
			odd++
			continue
		}
		switch typ {
		case "turn_start", "chat_request", "chat_response", "tool_call_request", "tool_call_response",
			"inquiry_request", "inquiry_response", "config_delta", "compaction":
			known++
		}
	}
	if known == 0 && odd == 0 && !p.Complete && len(records) == 1 && cutConfig(records[0]) {
		// The head ends inside the first event: a conversation's first
		// config_delta (its whole configuration, often larger than the
		// head) written with its keys reordered, type and timestamp last.
		return 60
	}
	if known == 0 || odd > known/4 {
		return 0
	}
	score := 90
	if filepath.Base(name) == EventsFile {
		score = 95
	}
	return score
}

// cutConfig reports whether r, an event cut by the end of the head, is
// shaped as jp's config_delta: a delta object of jp's configuration
// sections (inherit, extends, assistant, conversation, …).
func cutConfig(r any) bool {
	o, _ := r.(map[string]any)
	delta, _ := o["delta"].(map[string]any)
	sections := 0
	for _, k := range []string{"inherit", "config_load_paths", "extends", "assistant", "conversation", "style", "editor", "template", "providers"} {
		if _, ok := delta[k]; ok {
			sections++
		}
	}
	if typ, ok := o["type"].(string); ok && typ != "config_delta" {
		return false
	}
	return sections >= 1 && len(delta) == sections
}

// textOf decodes a JSON string value, "" when it is not one.
func textOf(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
