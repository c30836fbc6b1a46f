// Package jobs runs compactd's long operations on transcripts — compact
// (fork, dry run or in place), restore, history, diff and doctor — for both
// the CLI and the LSP daemon.
//
// It reads and writes the watched files, takes the per-conversation lock,
// records every version in the store before anything on disk changes, and
// never modifies a source except on an explicit in-place request. It prints
// nothing: progress goes through a callback and results are values.
//
// It builds the summarizer a request's [summarize] settings ask for
// (extractive by default, which opens no network connection; the notes
// file; or a model whose summaries the store archives so each span is
// summarized once).
//
// It may import compaction/, daemon/store, daemon/config, daemon/agents
// (resume and import commands) and daemon/llm;
// it must not import lsp/ or cmd/.
package jobs
