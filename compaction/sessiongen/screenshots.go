package sessiongen

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
)

// ClaudeScreenshots is a Claude Code session without reported usage in
// which the user sends shots screenshots of width×height pixels, one per
// turn, and the assistant answers briefly: images dominate its size, and
// every token is estimated, so it tells apart the providers' image rules.
func ClaudeScreenshots(sessionID string, shots, width, height int) []byte {
	var img bytes.Buffer
	// A blank image: tiny to encode, and the price depends only on its size.
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, width, height))); err != nil {
		panic(err) // encoding to memory does not fail
	}
	data := base64.StdEncoding.EncodeToString(img.Bytes())
	var b bytes.Buffer
	parent := "null"
	for i := 0; i < shots; i++ {
		user, asst := fmt.Sprintf("%s-u%d", sessionID, i), fmt.Sprintf("%s-a%d", sessionID, i)
		fmt.Fprintf(&b, `{"parentUuid":%s,"sessionId":%q,"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":%q}},{"type":"text","text":"What is wrong in screenshot %d?"}]},"uuid":%q,"timestamp":"2025-11-17T09:30:00.000Z"}`+"\n",
			parent, sessionID, data, i, user)
		fmt.Fprintf(&b, `{"parentUuid":%q,"sessionId":%q,"type":"assistant","message":{"id":"msg_%s_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"The button in screenshot %d overlaps the header."}]},"uuid":%q,"timestamp":"2025-11-17T09:30:05.000Z"}`+"\n",
			user, sessionID, sessionID, i, i, asst)
		parent = fmt.Sprintf("%q", asst)
	}
	return b.Bytes()
}
