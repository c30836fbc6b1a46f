package codex

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.MediaReader = Codec{}

// Media implements format.MediaReader: the input_image (a base64 data:
// URL) at index ref.Block of a response item's content or output list.
func (Codec) Media(t *transcript.Transcript, ref transcript.Ref) ([]format.Media, error) {
	if ref.Record < 0 || ref.Record >= len(t.Records) {
		return nil, fmt.Errorf("record %d is outside the transcript", ref.Record)
	}
	var rec struct {
		Payload struct {
			Content json.RawMessage `json:"content"`
			Output  json.RawMessage `json:"output"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(t.Records[ref.Record].Raw, &rec); err != nil {
		return nil, err
	}
	var list []struct {
		Type     string `json:"type"`
		ImageURL string `json:"image_url"`
	}
	raw := rec.Payload.Content
	if len(raw) == 0 {
		raw = rec.Payload.Output
	}
	if json.Unmarshal(raw, &list) != nil || ref.Block < 0 || ref.Block >= len(list) {
		return nil, fmt.Errorf("record %d has no content item %d", ref.Record, ref.Block)
	}
	it := list[ref.Block]
	meta, data, ok := strings.Cut(strings.TrimPrefix(it.ImageURL, "data:"), ",")
	if it.Type != "input_image" || !strings.HasPrefix(it.ImageURL, "data:") || !ok || !strings.HasSuffix(meta, ";base64") {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("record %d: an image's base64: %w", ref.Record, err)
	}
	return []format.Media{{MIME: strings.TrimSuffix(meta, ";base64"), Data: b}}, nil
}
