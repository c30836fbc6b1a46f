package modelserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

// Images are checked as the APIs check them: each rule has a request the
// real API accepts and one it refuses, in its words.

func pngBase64(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func jpegBase64(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 3)), nil); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func body(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type obj = map[string]any

func TestValidateAnthropicImages(t *testing.T) {
	png64, jpeg64 := pngBase64(t), jpegBase64(t)
	img := func(media, data string) obj {
		return obj{"type": "image", "source": obj{"type": "base64", "media_type": media, "data": data}}
	}
	// A Read of a PNG, as Claude Code sends it: the image inside the
	// tool_result, then a text block.
	readResult := func(content ...any) string {
		return body(t, obj{"model": "m", "max_tokens": 10, "messages": []any{
			obj{"role": "user", "content": "look"},
			obj{"role": "assistant", "content": []any{obj{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": obj{"file_path": "/a.png"}}}},
			obj{"role": "user", "content": content},
		}})
	}
	result := func(blocks ...any) obj {
		return obj{"type": "tool_result", "tool_use_id": "toolu_1", "content": blocks}
	}
	runValidation(t, ValidateAnthropic, []validationCase{
		{"a PNG read", readResult(result(img("image/png", png64)), obj{"type": "text", "text": "(image)"}), ""},
		{"a JPEG pasted by the user", body(t, obj{"model": "m", "max_tokens": 10, "messages": []any{obj{"role": "user", "content": []any{img("image/jpeg", jpeg64), obj{"type": "text", "text": "what is this?"}}}}}), ""},
		{"PNG bytes declared as JPEG", readResult(result(img("image/jpeg", png64))),
			"messages.2.content.0.tool_result.content.0.image.source.base64.data: Image does not match the provided media type image/jpeg"},
		{"a media type the API does not take", body(t, obj{"model": "m", "max_tokens": 10, "messages": []any{obj{"role": "user", "content": []any{img("image/bmp", png64)}}}}),
			"messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"},
		{"data that is not base64", readResult(result(img("image/png", "not base64!"))), "messages.2.content.0.tool_result.content.0.image.source.base64: invalid base64 data"},
		{"no data at all", readResult(result(img("image/png", ""))), "image.source.base64: invalid base64 data"},
		{"an image without a source", readResult(result(obj{"type": "image"})), "messages.2.content.0.tool_result.content.0.image.source: Field required"},
		{"a tool result holding a tool_use", readResult(result(obj{"type": "tool_use", "id": "x", "name": "n", "input": obj{}})),
			"messages.2.content.0.tool_result.content.0: Input tag 'tool_use' found using 'type' does not match any of the expected tags"},
		{"an error result with no content", readResult(obj{"type": "tool_result", "tool_use_id": "toolu_1", "content": "", "is_error": true}),
			"messages.2.content.0.tool_result: content cannot be empty if `is_error` is true"},
		{"an error result saying why", readResult(obj{"type": "tool_result", "tool_use_id": "toolu_1", "content": "no such file", "is_error": true}), ""},
		{"two results for one call", readResult(result(img("image/png", png64)), obj{"type": "tool_result", "tool_use_id": "toolu_1", "content": "again"}),
			"messages.2.content.1: each tool_use must have a single result. Found multiple `tool_result` blocks with id: toolu_1"},
	})
}

func TestValidateOpenAIImages(t *testing.T) {
	png64 := pngBase64(t)
	view := func(output any) string {
		return body(t, obj{"model": "m", "input": []any{
			obj{"type": "message", "role": "user", "content": []any{obj{"type": "input_text", "text": "look"}}},
			obj{"type": "function_call", "call_id": "call_1", "name": "view_image", "arguments": `{"path":"/a.png"}`},
			obj{"type": "function_call_output", "call_id": "call_1", "output": output},
		}})
	}
	imagePart := func(url string) obj { return obj{"type": "input_image", "image_url": url} }
	runValidation(t, ValidateResponses, []validationCase{
		{"view_image's output, as Codex sends it", view([]any{imagePart("data:image/png;base64," + png64)}), ""},
		{"an http image", view([]any{imagePart("https://example.com/a.png")}), ""},
		{"empty base64", view([]any{imagePart("data:image/png;base64,")}),
			"Invalid 'input[2].output[0].image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got empty base64-encoded bytes."},
		{"not base64", view([]any{imagePart("data:image/png;base64,%%%")}), "but got an invalid base64-encoded value."},
		{"no data: prefix", view([]any{imagePart(png64)}), "but got a value without the 'data:' prefix."},
		{"a user's image in a message", body(t, obj{"model": "m", "input": []any{obj{"type": "message", "role": "user", "content": []any{imagePart("data:image/bmp;base64," + png64)}}}}),
			"Invalid 'input[0].content[0].image_url'. Expected a base64-encoded data URL with an image MIME type"},
	})
	chat := func(role string, content any) string {
		msgs := []any{obj{"role": "user", "content": "look"}}
		if role == "tool" {
			msgs = append(msgs, obj{"role": "assistant", "content": nil, "tool_calls": []any{obj{"id": "call_1", "type": "function", "function": obj{"name": "read", "arguments": "{}"}}}},
				obj{"role": "tool", "tool_call_id": "call_1", "content": content})
		} else {
			msgs = append(msgs, obj{"role": role, "content": content})
		}
		return body(t, obj{"model": "m", "messages": msgs})
	}
	imageURL := func(url string) []any {
		return []any{obj{"type": "text", "text": "see"}, obj{"type": "image_url", "image_url": obj{"url": url}}}
	}
	runValidation(t, ValidateChat, []validationCase{
		{"a user's image", chat("user", imageURL("data:image/png;base64,"+png64)), ""},
		{"an image in a tool message", chat("tool", imageURL("data:image/png;base64,"+png64)),
			"Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL."},
		{"a user's image that is not base64", chat("user", imageURL("data:image/png;base64,***")),
			"Invalid image URL: 'messages[1].content[1].image_url.url'. Expected a base64-encoded data URL with an image MIME type"},
	})
}

func TestValidateGeminiImages(t *testing.T) {
	png64 := pngBase64(t)
	req := func(blob obj) string {
		return body(t, obj{"contents": []any{obj{"role": "user", "parts": []any{obj{"text": "look"}, obj{"inlineData": blob}}}}})
	}
	runValidation(t, ValidateGemini, []validationCase{
		{"an inline PNG", req(obj{"mimeType": "image/png", "data": png64}), ""},
		{"URL-safe base64", req(obj{"mimeType": "image/png", "data": base64.URLEncoding.EncodeToString([]byte{0xfb, 0xff, 0xfe})}), ""},
		{"data that is not base64", req(obj{"mimeType": "image/png", "data": "not base64!"}),
			"Invalid value at 'contents[0].parts[1].inline_data.data' (TYPE_BYTES), Base64 decoding failed for"},
		{"no MIME type", req(obj{"data": png64}), "contents[0].parts[1].inline_data.mime_type: mime_type must be specified"},
	})
}
