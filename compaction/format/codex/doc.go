// Package codex is the codec for Codex CLI rollouts
// ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl, FORMATS.md §3): one
// {timestamp, type, payload} envelope per line — session_meta,
// turn_context, response_item (Responses API items), event_msg (UI and
// telemetry that mostly repeats response items) and compacted markers whose
// replacement_history replaces the model-visible history wholesale. Older
// rollouts whose lines are bare session meta and response items are read
// as far as cheap. Compressed .jsonl.zst rollouts are out of scope: the
// caller must hand this codec plain JSONL.
//
// Parse and Append build what the model sees now: the base instructions
// as a pinned system message, then the response items since the last
// compaction; token_count events give each response's reported usage and
// the context window. Write reproduces the source byte for byte. Fork
// writes a compacted view as a new rollout with forked_from_id set, kept
// items byte-exact where unchanged (encrypted reasoning always) and a
// compacted record where history was cut.
//
// Like all of compaction/, it takes and returns bytes: it must not import
// daemon, lsp, SQLite, fsnotify or network packages, nor read files.
package codex
