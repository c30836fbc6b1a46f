package claude

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.MediaReader = Codec{}

// Media implements format.MediaReader: the base64 image blocks of the
// content block ref names, the block itself or those of a tool result.
func (Codec) Media(t *transcript.Transcript, ref transcript.Ref) ([]format.Media, error) {
	if ref.Record < 0 || ref.Record >= len(t.Records) {
		return nil, fmt.Errorf("record %d is outside the transcript", ref.Record)
	}
	var rec struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(t.Records[ref.Record].Raw, &rec); err != nil {
		return nil, err
	}
	type source struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	}
	type block struct {
		Type    string          `json:"type"`
		Source  *source         `json:"source"`
		Content json.RawMessage `json:"content"`
	}
	var blocks []block
	if json.Unmarshal(rec.Message.Content, &blocks) != nil || ref.Block < 0 || ref.Block >= len(blocks) {
		return nil, fmt.Errorf("record %d has no content block %d", ref.Record, ref.Block)
	}
	b := blocks[ref.Block]
	list := []block{b}
	if b.Type == "tool_result" {
		list = nil
		_ = json.Unmarshal(b.Content, &list)
	}
	var out []format.Media
	for _, x := range list {
		if x.Type != "image" || x.Source == nil || x.Source.Type != "base64" {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(x.Source.Data)
		if err != nil {
			return nil, fmt.Errorf("record %d: an image's base64: %w", ref.Record, err)
		}
		out = append(out, format.Media{MIME: x.Source.MediaType, Data: data})
	}
	return out, nil
}
