// Package strategy compacts transcripts: each strategy turns a View into a
// smaller one, the pipeline composes them left to right under keep-last and
// turn-boundary rules, a sanitize pass keeps the API invariants (tool call and
// result pairing, signatures byte-exact, reasoning kept with what follows it,
// role alternation where the API needs it), and a report says what was saved
// and which key facts were lost.
//
// It also holds the domain parts of dry runs (RenderDiff, RenderReport) and
// of opt-in auto-compaction (Trigger).
//
// The package is pure: it takes parsed transcripts and returns views and
// values. It must not import daemon, lsp, storage, file watching or network
// packages, and it never reads watched files.
package strategy
