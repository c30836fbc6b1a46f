package tokens

import "math"

// ImagePricing selects a provider's rule for what an image costs.
type ImagePricing uint8

const (
	// ImageOpenAI: high detail, fit in 2048×2048, shortest side scaled to
	// 768, then 85 + 170 per 512-px tile.
	ImageOpenAI ImagePricing = iota
	// ImageAnthropic: scaled to fit a 1568-px long edge and 1.15 MP, then
	// width×height/750.
	ImageAnthropic
	// ImageGemini: 258 for an image within 384×384, else 258 per 768×768 tile.
	ImageGemini
)

// Costs used when a size is unknown.
const (
	// UnknownImageOpenAI is a 1024×1024 image at high detail (4 tiles).
	UnknownImageOpenAI = 85 + 4*170
	// UnknownImageAnthropic is the most an image costs after scaling
	// (1.15 MP / 750, which Anthropic rounds to about 1,600).
	UnknownImageAnthropic = 1600
	// UnknownImageGemini is one tile.
	UnknownImageGemini = 258
	// UnknownDocumentTokens is charged for a document (PDF) whose text we do
	// not have: one page at Anthropic's lower bound of 1,500–3,000 per page.
	UnknownDocumentTokens = 1500
)

// ImageTokens is what an image of w×h pixels costs under pricing p; a
// zero or negative dimension means the size is unknown and the pricing's
// documented fixed cost applies.
func ImageTokens(p ImagePricing, w, h int) int {
	known := w > 0 && h > 0
	switch p {
	case ImageAnthropic:
		if !known {
			return UnknownImageAnthropic
		}
		fw, fh := float64(w), float64(h)
		scale := math.Min(1, 1568/math.Max(fw, fh))
		scale = math.Min(scale, math.Sqrt(1_150_000/(fw*fh)))
		sw, sh := math.Floor(fw*scale), math.Floor(fh*scale)
		return int(math.Ceil(sw * sh / 750))
	case ImageGemini:
		if !known {
			return UnknownImageGemini
		}
		if w <= 384 && h <= 384 {
			return 258
		}
		return ceilDiv(w, 768) * ceilDiv(h, 768) * 258
	default:
		if !known {
			return UnknownImageOpenAI
		}
		fw, fh := float64(w), float64(h)
		if s := 2048 / math.Max(fw, fh); s < 1 {
			fw, fh = fw*s, fh*s
		}
		if s := 768 / math.Min(fw, fh); s < 1 {
			fw, fh = fw*s, fh*s
		}
		tiles := int(math.Ceil(fw/512)) * int(math.Ceil(fh/512))
		return 85 + 170*tiles
	}
}

// OpaqueTokens estimates what an opaque payload of n bytes (encrypted
// reasoning, signatures; base64 text) costs: base64 carries 3 bytes per 4
// characters and the ciphertext about one token per 4 plaintext bytes.
func OpaqueTokens(n int) int {
	if n <= 0 {
		return 0
	}
	return ceilDiv(n*3, 16)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
