// Package tokens counts tokens the way model APIs do, offline.
//
// It counts with the real BPE ranks of o200k_base and cl100k_base, the files
// github.com/pkoukk/tiktoken-go-loader embeds (read as its offline loader
// reads them, into a map sized up front), so nothing is ever downloaded. The two steps of tiktoken are done here rather than by
// pkoukk/tiktoken-go, whose backtracking regex engine made counting slower
// than OpenAI's own tokenizer: pretokenize.go cuts text into the pieces the
// encodings' split regexes give (held equal to regexp2's matches by a
// differential fuzz test), and bpe.go merges each piece by rank exactly as
// the library does, remembering the counts of pieces that needed merging.
// The counts are the library's, token for token (and OpenAI's tiktoken's
// on the reference table and the benchmark transcript).
// Around the BPE it adds what a daemon watching multi-hundred-megabyte
// transcripts needs (ARCHITECTURE.md, "Counting tokens"):
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
