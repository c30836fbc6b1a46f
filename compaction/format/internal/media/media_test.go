package media

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

func encoded(t *testing.T, encode func(*bytes.Buffer, image.Image) error, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func TestImage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		encode func(*bytes.Buffer, image.Image) error
		w, h   int
	}{
		{"png", func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) }, 3, 2},
		{"gif", func(b *bytes.Buffer, m image.Image) error { return gif.Encode(b, m, nil) }, 7, 1},
		{"jpeg", func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) }, 16, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b64 := encoded(t, tc.encode, tc.w, tc.h)
			raw, _ := base64.StdEncoding.DecodeString(b64)
			size, w, h := Image(b64)
			if size != len(raw) || w != tc.w || h != tc.h {
				t.Fatalf("Image = %d bytes %dx%d, want %d bytes %dx%d", size, w, h, len(raw), tc.w, tc.h)
			}
			mime, size, w, h := DataURL("data:image/" + tc.name + ";base64," + b64)
			if mime != "image/"+tc.name || size != len(raw) || w != tc.w || h != tc.h {
				t.Fatalf("DataURL = %s %d bytes %dx%d", mime, size, w, h)
			}
		})
	}
}

func TestUnreadableImagesHaveNoDimensions(t *testing.T) {
	for _, b64 := range []string{"", "!!", "aGVsbG8gd29ybGQ=", "UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA="} {
		if w, h := Dimensions(b64); w != 0 || h != 0 {
			t.Errorf("Dimensions(%q) = %dx%d, want 0x0", b64, w, h)
		}
	}
}

func TestDecodedSizeCountsPadding(t *testing.T) {
	for n := range 10 {
		b64 := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xab}, n))
		if got := DecodedSize(b64); got != n {
			t.Errorf("DecodedSize(%q) = %d, want %d", b64, got, n)
		}
	}
}

func TestDataURL(t *testing.T) {
	for _, tc := range []struct {
		url, mime  string
		size, w, h int
	}{
		{"https://example.com/cat.png", "", 0, 0, 0},
		{"file-abc123", "", 0, 0, 0},
		{"data:image/png;base64", "", 0, 0, 0}, // no comma: not a data URL
		{"data:text/plain,hello%20world", "text/plain", 13, 0, 0},
		{"data:text/plain;charset=utf-8,hi", "text/plain", 2, 0, 0},
		{"data:application/pdf;base64,JVBERi0=", "application/pdf", 5, 0, 0},
		{"data:image/png;base64,!!", "image/png", 0, 0, 0},
		{"data:;base64,", "", 0, 0, 0},
		{"data:image/png;base64,==", "image/png", 0, 0, 0}, // padding alone is not -2 bytes
	} {
		mime, size, w, h := DataURL(tc.url)
		if mime != tc.mime || size != tc.size || w != tc.w || h != tc.h {
			t.Errorf("DataURL(%q) = %q %d %dx%d, want %q %d %dx%d", tc.url, mime, size, w, h, tc.mime, tc.size, tc.w, tc.h)
		}
	}
}

func FuzzDataURL(f *testing.F) {
	f.Add("data:image/png;base64,iVBORw0KGgo=")
	f.Add("data:,")
	f.Fuzz(func(t *testing.T, url string) {
		_, size, w, h := DataURL(url)
		if size < 0 || w < 0 || h < 0 {
			t.Fatalf("negative result %d %dx%d", size, w, h)
		}
	})
}
