// Package tokens counts tokens the way model APIs do, offline.
//
// It uses real BPE (o200k_base, cl100k_base) from github.com/pkoukk/tiktoken-go
// with the embedded loader of github.com/pkoukk/tiktoken-go-loader, so nothing
// is ever downloaded. Around the BPE it adds what a daemon watching
// multi-hundred-megabyte transcripts needs (DESIGN.md §4):
//
//   - texts are never handed to the BPE whole: large texts are cut into
//     pieces of at most MaxPiece bytes at exact split points (after a newline
//     whose next character is not whitespace, nor '/' for o200k_base), so the
//     sum of the pieces equals the sequential count;
//   - long unbroken runs (letters, spaces, punctuation, CJK, base64), on which
//     BPE time is quadratic, are cut at a fixed width and, past a sample
//     budget, extrapolated; such counts are marked Count.Approx;
//   - counts are cached by content hash (Cache, keyed by sha256 and encoding)
//     and messages are counted in parallel (CountMessages);
//   - images are priced from their dimensions per provider, other opaque
//     payloads by size, plus a per-message overhead;
//   - a Registry maps model names to encodings and context windows, and
//     transcript formats to their agent's default model and auto-compact point.
//
// The package is pure domain code: it must not import daemon, lsp, the store,
// fsnotify or anything that does network or file I/O.
package tokens
