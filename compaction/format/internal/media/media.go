// Package media reads what codecs need to know about inline attachments
// (base64 payloads and data: URLs): MIME type, decoded size and, for
// images, pixel dimensions. Only an image's header is decoded.
//
// It is pure: it takes strings and returns values, and imports nothing of
// compactd.
package media

import (
	"encoding/base64"
	"image"
	_ "image/gif"  // image.DecodeConfig reads GIF headers for image dimensions
	_ "image/jpeg" // … and JPEG
	_ "image/png"  // … and PNG
	"strings"
)

// DecodedSize is the number of bytes standard (padded) base64 b64 decodes
// to, counted without decoding; never negative, even for a string of
// padding alone.
func DecodedSize(b64 string) int {
	return max(0, base64.StdEncoding.DecodedLen(len(b64))-strings.Count(b64[max(0, len(b64)-2):], "="))
}

// Dimensions reads a base64 image's width and height from its header;
// 0, 0 when the header is not a PNG, JPEG or GIF one (WebP is not among
// the standard decoders) or the base64 is broken.
func Dimensions(b64 string) (width, height int) {
	cfg, _, err := image.DecodeConfig(base64.NewDecoder(base64.StdEncoding, strings.NewReader(b64)))
	if err != nil {
		return 0, 0
	}
	return cfg.Width, cfg.Height
}

// Image returns a base64 image's decoded size and, when its header is
// readable, its dimensions.
func Image(b64 string) (size, width, height int) {
	width, height = Dimensions(b64)
	return DecodedSize(b64), width, height
}

// DataURL reads a data: URL's MIME type, decoded size and, for base64
// images whose header is readable, dimensions. A data: URL that is not
// base64 gives its MIME type and the length of its data; any other URL
// (https:, file ids) gives zero values.
func DataURL(url string) (mime string, size, width, height int) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return "", 0, 0, 0
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return "", 0, 0, 0
	}
	mime, _, _ = strings.Cut(meta, ";")
	if !strings.HasSuffix(meta, ";base64") {
		return mime, len(data), 0, 0
	}
	size, width, height = Image(data)
	return mime, size, width, height
}
