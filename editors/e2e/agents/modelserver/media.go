package modelserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// Images as the APIs check them. Each API decodes the base64 data it is
// sent and refuses what does not decode; the Messages API also refuses an
// image whose bytes are not of the declared media type (seen in Claude
// Code's issues: "Image does not match the provided media type
// image/png"), and only takes four types.

// imageTypes are the media types the APIs take for images.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// sniffImage names the image type of data's first bytes, "" when none of
// imageTypes.
func sniffImage(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")):
		return "image/webp"
	}
	return ""
}

// decodeBase64 decodes standard base64, padded or not.
func decodeBase64(s string) ([]byte, error) {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// anthSource is an image or document block's source.
type anthSource struct {
	Type      string  `json:"type"`
	MediaType string  `json:"media_type"`
	Data      *string `json:"data"`
	URL       string  `json:"url"`
	FileID    string  `json:"file_id"`
}

// checkAnthImage checks an image block of the Messages API; at is the
// block's path (messages.2.content.0, or
// messages.2.content.0.tool_result.content.1).
func checkAnthImage(src *anthSource, at string) *apiError {
	if src == nil {
		return invalid("%s.image.source: Field required", at)
	}
	switch src.Type {
	case "base64":
		if !imageTypes[src.MediaType] {
			return invalid("%s.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'", at)
		}
		if src.Data == nil {
			return invalid("%s.image.source.base64.data: Field required", at)
		}
		data, err := decodeBase64(*src.Data)
		if err != nil || len(data) == 0 {
			return invalid("%s.image.source.base64: invalid base64 data", at)
		}
		if got := sniffImage(data); got != src.MediaType {
			return invalid("%s.image.source.base64.data: Image does not match the provided media type %s", at, src.MediaType)
		}
	case "url":
		if src.URL == "" {
			return invalid("%s.image.source.url.url: Field required", at)
		}
	case "file":
		if src.FileID == "" {
			return invalid("%s.image.source.file.file_id: Field required", at)
		}
	default:
		return invalid("%s.image.source: Input tag '%s' found using 'type' does not match any of the expected tags: 'base64', 'file', 'url'", at, src.Type)
	}
	return nil
}

// checkToolResultContent checks a tool_result's content: a string, or a
// list of text, image, document and search_result blocks, each well
// formed.
func checkToolResultContent(raw json.RawMessage, at string) *apiError {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var blocks []anthBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return invalid("%s.tool_result.content: Input should be a valid list", at)
	}
	for k, b := range blocks {
		bat := fmt.Sprintf("%s.tool_result.content.%d", at, k)
		switch b.Type {
		case "text":
			if b.Text == nil {
				return invalid("%s.text.text: Field required", bat)
			}
		case "image":
			if err := checkAnthImage(b.Source, bat); err != nil {
				return err
			}
		case "document", "search_result":
		default:
			return invalid("%s: Input tag '%s' found using 'type' does not match any of the expected tags: 'document', 'image', 'search_result', 'text'", bat, b.Type)
		}
	}
	return nil
}

// checkDataURL checks an OpenAI image URL (an input_image's image_url, a
// Chat image_url's url): an http(s) URL, or a data URL of an image type
// holding base64 that decodes to something. It returns how the API ends
// its complaint, "" for a good URL.
func checkDataURL(u string) string {
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return ""
	}
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "but got a value without the 'data:' prefix."
	}
	mime, data, ok := strings.Cut(rest, ";base64,")
	if !ok || !imageTypes[mime] {
		return fmt.Sprintf("but got unsupported MIME type '%s'.", strings.SplitN(mime, ";", 2)[0])
	}
	if data == "" {
		return "but got empty base64-encoded bytes."
	}
	if b, err := decodeBase64(data); err != nil || len(b) == 0 {
		return "but got an invalid base64-encoded value."
	}
	return ""
}

// dataURLError is the OpenAI APIs' complaint about the image URL at param.
func dataURLError(param, end string) string {
	return fmt.Sprintf("Invalid '%s'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), %s", param, end)
}

// checkGeminiBlob checks an inlineData part: a MIME type and base64 data
// (standard or URL-safe, as protobuf JSON takes bytes).
func checkGeminiBlob(raw json.RawMessage, i, j int) *apiError {
	var blob struct {
		MimeType string  `json:"mimeType"`
		Data     *string `json:"data"`
	}
	if err := json.Unmarshal(raw, &blob); err != nil {
		return gemInvalid("Invalid JSON payload received. Unknown name at 'contents[%d].parts[%d].inline_data'", i, j)
	}
	if blob.MimeType == "" {
		return gemInvalid("* GenerateContentRequest.contents[%d].parts[%d].inline_data.mime_type: mime_type must be specified\n", i, j)
	}
	if blob.Data == nil {
		return nil
	}
	d := *blob.Data
	_, err := decodeBase64(d)
	if err != nil {
		if _, err2 := base64.URLEncoding.DecodeString(d); err2 == nil {
			err = nil
		} else if _, err3 := base64.RawURLEncoding.DecodeString(d); err3 == nil {
			err = nil
		}
	}
	if err != nil {
		shown := d
		if len(shown) > 64 {
			shown = shown[:64] + "..."
		}
		return gemInvalid("Invalid value at 'contents[%d].parts[%d].inline_data.data' (TYPE_BYTES), Base64 decoding failed for %q", i, j, shown)
	}
	return nil
}
