package openaichat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/media"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// Block indexes (Ref.Block) of the parts that are not content-array
// elements. Content parts use their array index, tool calls
// BlockToolCalls plus theirs.
const (
	BlockContent      = -1 // content is a string
	BlockReasoning    = -2 // reasoning_content (DeepSeek, OpenRouter)
	BlockRefusal      = -3
	BlockFunctionCall = -4 // the deprecated function_call
	BlockToolCalls    = 1 << 20
)

// Codec reads and writes OpenAI Chat Completions message arrays.
type Codec struct{}

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatOpenAIChat }

// frame is Transcript.Frame for this codec.
type frame struct {
	src  []byte
	doc  *jsonx.ArrayDocument
	gaps jsonx.Gaps
}

type wireMessage struct {
	Role             *string         `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	Refusal          *string         `json:"refusal"`
	ToolCalls        []wireToolCall  `json:"tool_calls"`
	FunctionCall     *wireFunction   `json:"function_call"`
	ToolCallID       string          `json:"tool_call_id"`
	Name             string          `json:"name"`
	Extra            *struct {
		Timestamp float64 `json:"timestamp"`
		Response  *struct {
			Model string     `json:"model"`
			Usage *wireUsage `json:"usage"`
		} `json:"response"`
	} `json:"extra"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Refusal  string `json:"refusal"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
	InputAudio *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio"`
	File *struct {
		FileData string `json:"file_data"`
		Filename string `json:"filename"`
	} `json:"file"`
}

// Parse implements format.Codec.
func (Codec) Parse(src []byte) (*transcript.Transcript, error) {
	return ParseArray(src, "messages", transcript.FormatOpenAIChat)
}

// ParseArray reads src, a Chat Completions message array or an object
// holding one under key, as a transcript of format f: the message array of
// another agent's document (Copilot CLI's early sessions keep theirs under
// "chatMessages"). WriteArray and ForkArray write what it read.
func ParseArray(src []byte, key string, f transcript.Format) (*transcript.Transcript, error) {
	doc, err := jsonx.ScanArrayDocument(src, key)
	if err != nil {
		return nil, fmt.Errorf("parse %s document: %w", f, err)
	}
	t := &transcript.Transcript{Format: f, Size: int64(len(src))}
	t.Frame = &frame{src: src, doc: doc, gaps: jsonx.GapsOf(src, doc.Elements)}
	t.Meta.Model = wrapperModel(src, doc)
	t.Records = make([]transcript.Record, len(doc.Elements))
	callNames := map[string]string{}
	for i, sp := range doc.Elements {
		r := &t.Records[i]
		*r = transcript.Record{Start: int64(sp.Start), End: int64(sp.End), Raw: src[sp.Start:sp.End:sp.End], Kind: transcript.RecordMessage}
		if src[sp.Start] != '{' {
			malformed(t, i, "message is not a JSON object")
			continue
		}
		var w wireMessage
		if err := json.Unmarshal(r.Raw, &w); err != nil {
			malformed(t, i, err.Error())
			continue
		}
		if w.Role == nil {
			r.Kind = transcript.RecordUnknown
			continue
		}
		r.Type = *w.Role
		m, ok := decode(&w, i, callNames)
		if !ok {
			r.Kind = transcript.RecordUnknown
			continue
		}
		if m.Model == "" && m.Role == transcript.RoleAssistant {
			m.Model = t.Meta.Model
		}
		if t.Meta.Model == "" && m.Model != "" {
			t.Meta.Model = m.Model
		}
		t.Messages = append(t.Messages, m)
	}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t, nil
}

func malformed(t *transcript.Transcript, i int, why string) {
	jsonx.MarkMalformed(t, i, "message", why)
}

// wrapperModel reads the model a wrapper names: a top-level "model", or
// mini-swe-agent's info.config.model.model_name.
func wrapperModel(src []byte, doc *jsonx.ArrayDocument) string {
	if sp, ok := doc.Member("model"); ok {
		var s string
		if json.Unmarshal(src[sp.Start:sp.End], &s) == nil {
			return s
		}
	}
	if sp, ok := doc.Member("info"); ok {
		var info struct {
			Config struct {
				Model struct {
					ModelName string `json:"model_name"`
				} `json:"model"`
			} `json:"config"`
		}
		if json.Unmarshal(src[sp.Start:sp.End], &info) == nil {
			return info.Config.Model.ModelName
		}
	}
	return ""
}

func decode(w *wireMessage, rec int, callNames map[string]string) (transcript.Message, bool) {
	m := transcript.Message{Role: transcript.Role(*w.Role), Records: []int{rec}}
	switch *w.Role {
	case "system", "developer":
		m.Origin = transcript.OriginInjected
	case "user":
		m.Origin = transcript.OriginHuman
	case "assistant":
		m.Origin = transcript.OriginAgent
	case "tool", "function":
		m.Role, m.Origin = transcript.RoleTool, transcript.OriginToolResult
	default:
		return m, false
	}
	ref := func(b int) transcript.Ref { return transcript.Ref{Record: rec, Block: b} }
	if w.ReasoningContent != nil && *w.ReasoningContent != "" {
		m.Parts = append(m.Parts, transcript.Part{Kind: transcript.PartReasoning, Text: *w.ReasoningContent, Ref: ref(BlockReasoning)})
	}
	result := func(p transcript.Part) transcript.Part {
		if m.Role != transcript.RoleTool {
			return p
		}
		p.Kind = transcript.PartToolResult
		p.ToolCallID = w.ToolCallID
		p.ToolName = callNames[w.ToolCallID]
		if p.ToolName == "" {
			p.ToolName = w.Name
		}
		return p
	}
	content := bytes.TrimSpace(w.Content)
	switch {
	case len(content) == 0 || string(content) == "null":
	case content[0] == '"':
		var s string
		_ = json.Unmarshal(content, &s)
		m.Parts = append(m.Parts, result(transcript.Part{Kind: transcript.PartText, Text: s, Ref: ref(BlockContent)}))
	case content[0] == '[':
		var parts []json.RawMessage
		_ = json.Unmarshal(content, &parts)
		for i, raw := range parts {
			m.Parts = append(m.Parts, result(decodePart(raw, ref(i))))
		}
	}
	if w.Refusal != nil && *w.Refusal != "" {
		m.Parts = append(m.Parts, transcript.Part{Kind: transcript.PartText, Text: *w.Refusal, Ref: ref(BlockRefusal)})
	}
	for i, c := range w.ToolCalls {
		callNames[c.ID] = c.Function.Name
		m.Parts = append(m.Parts, transcript.Part{Kind: transcript.PartToolCall, ToolCallID: c.ID, ToolName: c.Function.Name,
			Args: jsonx.StringOrCompact(c.Function.Arguments), Ref: ref(BlockToolCalls + i)})
	}
	if f := w.FunctionCall; f != nil && f.Name != "" {
		m.Parts = append(m.Parts, transcript.Part{Kind: transcript.PartToolCall, ToolName: f.Name, Args: jsonx.StringOrCompact(f.Arguments), Ref: ref(BlockFunctionCall)})
	}
	if x := w.Extra; x != nil {
		if x.Timestamp > 0 {
			sec, frac := math.Modf(x.Timestamp)
			m.Timestamp = time.Unix(int64(sec), int64(frac*1e9)).UTC()
		}
		if r := x.Response; r != nil {
			m.Model = r.Model
			if u := r.Usage; u != nil {
				m.Usage = usageOf(u)
			}
		}
	}
	return m, true
}

func usageOf(u *wireUsage) *transcript.Usage {
	out := &transcript.Usage{Input: u.PromptTokens, Output: u.CompletionTokens, Total: u.TotalTokens}
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens <= u.PromptTokens {
		// prompt_tokens includes the cached ones.
		out.CacheRead, out.Input = d.CachedTokens, u.PromptTokens-d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.Reasoning = d.ReasoningTokens
	}
	return out
}

func decodePart(raw json.RawMessage, ref transcript.Ref) transcript.Part {
	var p wirePart
	if err := json.Unmarshal(raw, &p); err != nil {
		return transcript.Part{Kind: transcript.PartOpaque, Opaque: len(raw), Ref: ref}
	}
	switch p.Type {
	case "text":
		return transcript.Part{Kind: transcript.PartText, Text: p.Text, Ref: ref}
	case "refusal":
		return transcript.Part{Kind: transcript.PartText, Text: p.Refusal, Ref: ref}
	case "image_url":
		out := transcript.Part{Kind: transcript.PartImage, Ref: ref}
		if p.ImageURL != nil {
			out.MIME, out.Size, out.Width, out.Height = DataURLImage(p.ImageURL.URL)
		}
		return out
	case "input_audio":
		out := transcript.Part{Kind: transcript.PartAttachment, Ref: ref}
		if a := p.InputAudio; a != nil {
			out.MIME, out.Size = "audio/"+a.Format, base64.StdEncoding.DecodedLen(len(a.Data))
		}
		return out
	case "file":
		out := transcript.Part{Kind: transcript.PartDocument, Ref: ref}
		if f := p.File; f != nil {
			out.Text = f.Filename
			out.MIME, out.Size, _, _ = DataURLImage(f.FileData)
		}
		return out
	}
	if p.Text != "" {
		return transcript.Part{Kind: transcript.PartText, Text: p.Text, Ref: ref}
	}
	return transcript.Part{Kind: transcript.PartOpaque, Opaque: len(raw), Ref: ref}
}

// DataURLImage reads a data: URL's MIME type, decoded size and, for images
// whose header is readable, dimensions. Other URLs give zero values.
func DataURLImage(url string) (mime string, size, width, height int) {
	return media.DataURL(url)
}

// Write implements format.Codec.
func (Codec) Write(t *transcript.Transcript) ([]byte, error) { return WriteArray(t) }

// WriteArray writes a transcript ParseArray read: its records with the
// bytes between them.
func WriteArray(t *transcript.Transcript) ([]byte, error) {
	fr, ok := t.Frame.(*frame)
	if !ok {
		return nil, fmt.Errorf("write %s: transcript was not parsed as a chat message array", t.Format)
	}
	out, err := fr.gaps.JoinRecords(t.Records)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", t.Format, err)
	}
	return out, nil
}
