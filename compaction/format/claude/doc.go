// Package claude is the codec for Claude Code session transcripts
// (~/.claude/projects/<slug>/<session>.jsonl and subagent agent-*.jsonl
// files): one JSON record per line, a uuid/parentUuid tree, assistant
// responses split over several lines sharing message.id, and
// compact_boundary markers (FORMATS.md §2).
//
// Parse and Append build the active branch the model sees now; Write
// reproduces the source byte for byte; Fork writes a compacted view as a new
// session Claude Code can resume.
//
// Like all of compaction/, it takes and returns bytes: it must not import
// daemon, lsp, SQLite, fsnotify or network packages, nor read files.
package claude
