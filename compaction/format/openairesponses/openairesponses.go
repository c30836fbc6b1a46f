package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/media"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// BlockItem is the Ref.Block of a part that stands for its whole item
// (a function call, an output, a reasoning item) or a string content.
const BlockItem = -1

// Codec reads and writes OpenAI Responses input item lists.
type Codec struct{}

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatOpenAIResponses }

type frame struct {
	src  []byte
	doc  *jsonx.ArrayDocument
	gaps jsonx.Gaps
	// instructions is the record holding the wrapper's instructions, or -1.
	instructions int
}

type wireItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	Input            json.RawMessage `json:"input"`
	Output           json.RawMessage `json:"output"`
	Action           json.RawMessage `json:"action"`
	Summary          []wireText      `json:"summary"`
	EncryptedContent string          `json:"encrypted_content"`
}

type wireText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type wirePart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Refusal  string          `json:"refusal"`
	ImageURL json.RawMessage `json:"image_url"`
	FileData string          `json:"file_data"`
	Filename string          `json:"filename"`
}

// MessageRoles are the roles a message item may have.
var messageRoles = map[string]transcript.Origin{
	"user": transcript.OriginHuman, "assistant": transcript.OriginAgent,
	"system": transcript.OriginInjected, "developer": transcript.OriginInjected,
}

// Parse implements format.Codec.
func (Codec) Parse(src []byte) (*transcript.Transcript, error) {
	doc, err := jsonx.ScanArrayDocument(src, "input")
	if err != nil {
		return nil, fmt.Errorf("parse openai-responses document: %w", err)
	}
	t := &transcript.Transcript{Format: transcript.FormatOpenAIResponses, Size: int64(len(src))}
	spans := append([]jsonx.Span(nil), doc.Elements...)
	instr, hasInstr := doc.Member("instructions")
	if hasInstr && src[instr.Start] == '"' {
		spans = append(spans, instr)
		jsonx.SortSpans(spans)
	} else {
		hasInstr = false
	}
	fr := &frame{src: src, doc: doc, gaps: jsonx.GapsOf(src, spans), instructions: -1}
	t.Frame = fr
	if sp, ok := doc.Member("model"); ok {
		_ = json.Unmarshal(src[sp.Start:sp.End], &t.Meta.Model)
	}
	t.Records = make([]transcript.Record, len(spans))
	callNames := map[string]string{}
	for i, sp := range spans {
		r := &t.Records[i]
		*r = transcript.Record{Start: int64(sp.Start), End: int64(sp.End), Raw: src[sp.Start:sp.End:sp.End], Kind: transcript.RecordMessage}
		if hasInstr && sp == instr {
			fr.instructions = i
			r.Type = "instructions"
			var s string
			_ = json.Unmarshal(r.Raw, &s)
			t.Messages = append(t.Messages, transcript.Message{Role: transcript.RoleSystem, Origin: transcript.OriginInjected, Records: []int{i}, Pinned: true,
				Parts: []transcript.Part{{Kind: transcript.PartText, Text: s, Ref: transcript.Ref{Record: i, Block: BlockItem}}}})
			continue
		}
		if src[sp.Start] != '{' {
			malformed(t, i, "item is not a JSON object")
			continue
		}
		var w wireItem
		if err := json.Unmarshal(r.Raw, &w); err != nil {
			malformed(t, i, err.Error())
			continue
		}
		r.Type, r.ID = w.Type, w.ID
		if r.Type == "" {
			r.Type = "message"
		}
		m, kind := decode(&w, i, callNames)
		r.Kind = kind
		if kind != transcript.RecordMessage {
			continue
		}
		if m.Role == transcript.RoleAssistant {
			m.Model = t.Meta.Model
		}
		t.Messages = append(t.Messages, m)
	}
	// The instructions come first wherever the request object holds them
	// (a tool that saved it sorted its keys).
	if k := slices.IndexFunc(t.Messages, func(m transcript.Message) bool {
		return len(m.Records) > 0 && m.Records[0] == fr.instructions
	}); k > 0 {
		ins := t.Messages[k]
		copy(t.Messages[1:k+1], t.Messages[:k])
		t.Messages[0] = ins
	}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t, nil
}

func malformed(t *transcript.Transcript, i int, why string) {
	jsonx.MarkMalformed(t, i, "item", why)
}

func decode(w *wireItem, rec int, callNames map[string]string) (transcript.Message, transcript.RecordKind) {
	ref := transcript.Ref{Record: rec, Block: BlockItem}
	m := transcript.Message{ID: w.ID, Records: []int{rec}, Role: transcript.RoleAssistant, Origin: transcript.OriginAgent}
	callID := w.CallID
	if callID == "" {
		callID = w.ID
	}
	switch typ := w.Type; {
	case typ == "message" || (typ == "" && w.Role != ""):
		origin, ok := messageRoles[w.Role]
		if !ok {
			return m, transcript.RecordUnknown
		}
		m.Role, m.Origin = transcript.Role(w.Role), origin
		m.Parts = decodeContent(w.Content, rec)
	case typ == "function_call":
		callNames[w.CallID] = w.Name
		m.Parts = []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: w.CallID, ToolName: w.Name, Args: jsonx.StringOrCompact(w.Arguments), Ref: ref}}
	case typ == "custom_tool_call":
		callNames[w.CallID] = w.Name
		m.Parts = []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: w.CallID, ToolName: w.Name, Args: jsonx.StringOrCompact(w.Input), Ref: ref}}
	case typ == "reasoning":
		var texts []string
		for _, s := range w.Summary {
			texts = append(texts, s.Text)
		}
		m.Parts = []transcript.Part{{Kind: transcript.PartReasoning, Text: strings.Join(texts, "\n"), Signed: w.EncryptedContent != "",
			Opaque: len(w.EncryptedContent), Ref: ref}}
	case typ == "compaction":
		// The API's own compaction item: an encrypted summary of the history before it.
		m.Role, m.Origin = transcript.RoleUser, transcript.OriginSummary
		m.Parts = []transcript.Part{{Kind: transcript.PartOpaque, Signed: true, Opaque: len(w.EncryptedContent), Ref: ref}}
	case typ == "item_reference":
		return m, transcript.RecordMeta
	case strings.HasSuffix(typ, "_output") || typ == "mcp_approval_response":
		m.Role, m.Origin = transcript.RoleTool, transcript.OriginToolResult
		name := callNames[w.CallID]
		if name == "" {
			name = strings.TrimSuffix(strings.TrimSuffix(typ, "_output"), "_call")
		}
		p := transcript.Part{Kind: transcript.PartToolResult, ToolCallID: w.CallID, ToolName: name, Ref: ref}
		p.Text, p.Size = outputText(w.Output)
		m.Parts = []transcript.Part{p}
	case strings.HasSuffix(typ, "_call") || strings.HasPrefix(typ, "mcp_"):
		name := strings.TrimSuffix(typ, "_call")
		if w.Name != "" {
			name = w.Name
		}
		callNames[callID] = name
		args := jsonx.StringOrCompact(w.Arguments)
		if args == "" {
			args = jsonx.Compact(w.Action)
		}
		if args == "" {
			args = jsonx.Compact(w.Input)
		}
		m.Parts = []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: callID, ToolName: name, Args: args, Ref: ref}}
	default:
		return m, transcript.RecordUnknown
	}
	return m, transcript.RecordMessage
}

func decodeContent(content json.RawMessage, rec int) []transcript.Part {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return nil
	}
	if content[0] == '"' {
		var s string
		_ = json.Unmarshal(content, &s)
		return []transcript.Part{{Kind: transcript.PartText, Text: s, Ref: transcript.Ref{Record: rec, Block: BlockItem}}}
	}
	var parts []json.RawMessage
	_ = json.Unmarshal(content, &parts)
	var out []transcript.Part
	for i, raw := range parts {
		out = append(out, decodePart(raw, transcript.Ref{Record: rec, Block: i}))
	}
	return out
}

func decodePart(raw json.RawMessage, ref transcript.Ref) transcript.Part {
	var p wirePart
	if json.Unmarshal(raw, &p) != nil {
		return transcript.Part{Kind: transcript.PartOpaque, Opaque: len(raw), Ref: ref}
	}
	switch p.Type {
	case "input_text", "output_text", "text", "summary_text", "reasoning_text":
		return transcript.Part{Kind: transcript.PartText, Text: p.Text, Ref: ref}
	case "refusal":
		return transcript.Part{Kind: transcript.PartText, Text: p.Refusal, Ref: ref}
	case "input_image":
		out := transcript.Part{Kind: transcript.PartImage, Ref: ref}
		var url string
		if json.Unmarshal(p.ImageURL, &url) == nil {
			out.MIME, out.Size, out.Width, out.Height = media.DataURL(url)
		}
		return out
	case "input_file":
		out := transcript.Part{Kind: transcript.PartDocument, Text: p.Filename, Ref: ref}
		out.MIME, out.Size, _, _ = media.DataURL(p.FileData)
		return out
	}
	if p.Text != "" {
		return transcript.Part{Kind: transcript.PartText, Text: p.Text, Ref: ref}
	}
	return transcript.Part{Kind: transcript.PartOpaque, Opaque: len(raw), Ref: ref}
}

// outputText is what a tool output says: a string, the text of output
// parts, or the compact JSON of anything else. size counts media bytes.
func outputText(raw json.RawMessage) (text string, size int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", 0
	}
	switch raw[0] {
	case '"':
		_ = json.Unmarshal(raw, &text)
		return text, 0
	case '{':
		raw = append(append([]byte{'['}, raw...), ']')
		fallthrough
	case '[':
		var parts []json.RawMessage
		if json.Unmarshal(raw, &parts) != nil {
			return jsonx.Compact(raw), 0
		}
		var texts []string
		for _, pr := range parts {
			p := decodePart(pr, transcript.Ref{})
			if p.Kind == transcript.PartText {
				texts = append(texts, p.Text)
			}
			size += p.Size
		}
		return strings.Join(texts, "\n"), size
	}
	return string(raw), 0
}

// Write implements format.Codec.
func (Codec) Write(t *transcript.Transcript) ([]byte, error) {
	fr, ok := t.Frame.(*frame)
	if !ok {
		return nil, fmt.Errorf("write openai-responses: transcript was not parsed by this codec")
	}
	out, err := fr.gaps.JoinRecords(t.Records)
	if err != nil {
		return nil, fmt.Errorf("write openai-responses: %w", err)
	}
	return out, nil
}
