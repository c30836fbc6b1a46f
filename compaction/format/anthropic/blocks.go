package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/media"
	"github.com/compactd/compactd/compaction/transcript"
)

// BlockContent is the Ref.Block of a part that is a message's whole string
// content (content: "…").
const BlockContent = -1

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wireSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *wireSource     `json:"source"`
	Title     string          `json:"title"`
}

// DecodeMessage decodes one Anthropic MessageParam (the record rec) into a
// message. Unknown block types become opaque parts sized by their bytes, so
// the gauge still counts them.
func DecodeMessage(raw []byte, rec int) (transcript.Message, error) {
	var w wireMessage
	if err := jsonv1.Unmarshal(raw, &w); err != nil {
		return transcript.Message{}, err
	}
	m := transcript.Message{Role: transcript.Role(w.Role), Records: []int{rec}}
	parts, err := DecodeContent(w.Content, rec)
	if err != nil {
		return m, err
	}
	m.Parts = parts
	m.Origin = originOf(&m)
	return m, nil
}

func originOf(m *transcript.Message) transcript.Origin {
	switch m.Role {
	case transcript.RoleAssistant:
		return transcript.OriginAgent
	case transcript.RoleSystem, transcript.RoleDeveloper:
		return transcript.OriginInjected
	}
	for _, p := range m.Parts {
		if p.Kind == transcript.PartToolResult {
			return transcript.OriginToolResult
		}
	}
	return transcript.OriginHuman
}

// DecodeContent decodes a content value: a string, null, or blocks.
func DecodeContent(content json.RawMessage, rec int) ([]transcript.Part, error) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return nil, nil
	}
	if content[0] == '"' {
		var s string
		if err := jsonv1.Unmarshal(content, &s); err != nil {
			return nil, err
		}
		return []transcript.Part{{Kind: transcript.PartText, Text: s, Ref: transcript.Ref{Record: rec, Block: BlockContent}}}, nil
	}
	if content[0] != '[' {
		return nil, errNotContent
	}
	elems, err := jsonx.ParseArray(content)
	if err != nil {
		return nil, err
	}
	var parts []transcript.Part
	for i, e := range elems {
		parts = append(parts, decodeBlock(e, transcript.Ref{Record: rec, Block: i})...)
	}
	return parts, nil
}

// Content is a content value decoded as it is read (as DecodeContent
// decodes it), for a codec that decodes its records' content in place:
// read from a jsontext.Decoder, its blocks are not captured and split
// again, which cost a 100 MB session's parse a third of its time. Set Rec
// (the record's index) before decoding. Like a json.RawMessage, it takes
// any JSON value: what is neither a string nor blocks leaves Parts nil and
// sets Err, and only a syntax error fails the decoding around it.
type Content struct {
	Rec   int
	Parts []transcript.Part
	Err   error
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (c *Content) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	c.Parts, c.Err = nil, nil // a repeated member replaces the last
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadToken()
		return err
	case '"':
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		var s string
		if c.Err = jsonv1.Unmarshal(raw, &s); c.Err == nil {
			c.Parts = []transcript.Part{{Kind: transcript.PartText, Text: s, Ref: transcript.Ref{Record: c.Rec, Block: BlockContent}}}
		}
		return nil
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for i := 0; dec.PeekKind() != ']'; i++ {
			ref := transcript.Ref{Record: c.Rec, Block: i}
			start, depth := valueStart(dec), dec.StackDepth()
			var b streamBlock
			err := jsonv2.UnmarshalDecode(dec, &b) // with the decoder's (v1) options
			if err != nil && fatal(err, dec, depth) {
				return err
			}
			size := int(dec.InputOffset() - start)
			if err != nil || b.Type == "" {
				c.Parts = append(c.Parts, transcript.Part{Kind: transcript.PartOpaque, Opaque: size, Ref: ref})
				continue
			}
			c.Parts = append(c.Parts, blockParts(&b.wireBlock, &b.Content, ref, size)...)
		}
		_, err := dec.ReadToken()
		return err
	}
	if err := dec.SkipValue(); err != nil {
		return err
	}
	c.Err = errNotContent
	return nil
}

var errNotContent = errors.New("content is neither a string nor a list of blocks")

// streamBlock is a block as Content decodes it in place: a wireBlock
// whose content is decoded as it is read (wireBlock.Content stays empty).
type streamBlock struct {
	wireBlock
	Content toolContent `json:"content"`
}

// toolContent is a block's content member as decodeToolResult reads it.
type toolContent struct {
	size int // its bytes; 0 when absent
	// kind is 0 (absent or null), '"' (text is the string), '[' (blocks
	// in inner) or 'x' (text is its bytes: anything else, blocks that did
	// not decode).
	kind  byte
	text  string
	inner []wireBlock
}

// contentOf reads a block's content member from its bytes.
func contentOf(raw json.RawMessage) toolContent {
	c := toolContent{size: len(raw)}
	content := bytes.TrimSpace(raw)
	switch {
	case len(content) == 0 || string(content) == "null":
	case content[0] == '"':
		c.kind = '"'
		_ = jsonv1.Unmarshal(content, &c.text)
	case jsonv1.Unmarshal(content, &c.inner) == nil:
		c.kind = '['
	default:
		c.kind, c.text, c.inner = 'x', string(content), nil
	}
	return c
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom: contentOf, the
// member read once.
func (c *toolContent) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*c = toolContent{} // a repeated member replaces the last
	start := valueStart(dec)
	switch dec.PeekKind() {
	case 'n':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
	case '"':
		depth := dec.StackDepth()
		if err := jsonv2.UnmarshalDecode(dec, &c.text); err != nil && fatal(err, dec, depth) {
			return err
		}
		c.kind = '"'
	default:
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if raw.Kind() == '[' && jsonv1.Unmarshal(raw, &c.inner) == nil {
			c.kind = '['
		} else {
			c.kind, c.text, c.inner = 'x', string(raw), nil
		}
	}
	c.size = int(dec.InputOffset() - start)
	return nil
}

// valueStart is the input offset of the value dec reads next: past the
// whitespace, colon or comma before it.
func valueStart(dec *jsontext.Decoder) int64 {
	dec.PeekKind() // the value is in the buffer
	rest, n := dec.UnreadBuffer(), 0
	for n < len(rest) && strings.IndexByte(" \t\r\n,:", rest[n]) >= 0 {
		n++
	}
	return dec.InputOffset() + int64(n)
}

// fatal reports whether an error decoding a value leaves the decoder
// unable to go on: a syntax error, or the value not read whole. Under v1
// semantics a value of another type is read whole and reported after.
func fatal(err error, dec *jsontext.Decoder, depth int) bool {
	var syntax *jsontext.SyntacticError
	return errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || dec.StackDepth() != depth
}

func decodeBlock(raw json.RawMessage, ref transcript.Ref) []transcript.Part {
	var b wireBlock
	if err := jsonv1.Unmarshal(raw, &b); err != nil || b.Type == "" {
		return []transcript.Part{{Kind: transcript.PartOpaque, Opaque: len(raw), Ref: ref}}
	}
	c := contentOf(b.Content)
	return blockParts(&b, &c, ref, len(raw))
}

// blockParts reads a decoded block of size bytes, its content member
// read into content.
func blockParts(b *wireBlock, content *toolContent, ref transcript.Ref, size int) []transcript.Part {
	switch b.Type {
	case "text":
		return []transcript.Part{{Kind: transcript.PartText, Text: b.Text, Ref: ref}}
	case "thinking":
		return []transcript.Part{{Kind: transcript.PartReasoning, Text: b.Thinking, Signed: b.Signature != "", Opaque: len(b.Signature), Ref: ref}}
	case "redacted_thinking":
		return []transcript.Part{{Kind: transcript.PartOpaque, Signed: true, Opaque: len(b.Data), Ref: ref}}
	case "tool_use", "server_tool_use", "mcp_tool_use":
		return []transcript.Part{{Kind: transcript.PartToolCall, ToolCallID: b.ID, ToolName: b.Name, Args: jsonx.Compact(b.Input), Ref: ref}}
	case "tool_result", "mcp_tool_result":
		return decodeToolResult(b, content, ref)
	case "image":
		return []transcript.Part{imagePart(b.Source, ref)}
	case "document":
		return []transcript.Part{documentPart(b, ref)}
	}
	if strings.HasSuffix(b.Type, "_tool_result") {
		// Server tool results (web_search, code_execution, …) carry
		// encrypted or structured content the model reads.
		return []transcript.Part{{Kind: transcript.PartToolResult, ToolCallID: b.ToolUseID, ToolName: strings.TrimSuffix(b.Type, "_tool_result"),
			Opaque: content.size, Ref: ref}}
	}
	if b.Text != "" {
		return []transcript.Part{{Kind: transcript.PartText, Text: b.Text, Ref: ref}}
	}
	return []transcript.Part{{Kind: transcript.PartOpaque, Opaque: size, Ref: ref}}
}

// decodeToolResult reads a tool_result: its content is a string, or a
// list of text, image and document blocks; anything else is kept as text
// so the gauge still counts it.
func decodeToolResult(b *wireBlock, content *toolContent, ref transcript.Ref) []transcript.Part {
	res := transcript.Part{Kind: transcript.PartToolResult, ToolCallID: b.ToolUseID, IsError: b.IsError, Ref: ref}
	if content.kind != '[' {
		res.Text = content.text
		return []transcript.Part{res}
	}
	inner := content.inner
	var texts []string
	var media []transcript.Part
	for i := range inner {
		switch inner[i].Type {
		case "text":
			texts = append(texts, inner[i].Text)
		case "image":
			media = append(media, imagePart(inner[i].Source, ref))
		case "document":
			media = append(media, documentPart(&inner[i], ref))
		}
	}
	res.Text = strings.Join(texts, "\n")
	return append([]transcript.Part{res}, media...)
}

func imagePart(src *wireSource, ref transcript.Ref) transcript.Part {
	p := transcript.Part{Kind: transcript.PartImage, Ref: ref}
	if src == nil {
		return p
	}
	p.MIME = src.MediaType
	if src.Type == "base64" {
		p.Size, p.Width, p.Height = ImageInfo(src.Data)
	}
	return p
}

// documentPart reads a document block: a PDF is known by its size, a
// plain-text source by its text.
func documentPart(b *wireBlock, ref transcript.Ref) transcript.Part {
	p := transcript.Part{Kind: transcript.PartDocument, Text: b.Title, Ref: ref}
	if b.Source == nil {
		return p
	}
	p.MIME = b.Source.MediaType
	switch b.Source.Type {
	case "base64":
		p.Size = base64.StdEncoding.DecodedLen(len(b.Source.Data))
	case "text":
		p.Text, p.Size = b.Source.Data, len(b.Source.Data)
	}
	return p
}

// ImageInfo returns a base64 image's decoded size and, when its header is
// readable (PNG, JPEG, GIF), its dimensions; only the header is decoded.
func ImageInfo(b64 string) (size, width, height int) {
	return media.Image(b64)
}
