// Package qwen is the codec for Qwen Code sessions
// (~/.qwen/projects/<cwd with / as ->/chats/<sessionId>.jsonl): one JSON
// record per line in a uuid/parentUuid chain, like Claude Code's, around
// Gemini API Content ({role, parts[]}). Assistant records carry the API's
// usageMetadata; a system record with subtype chat_compression holds the
// history (compressedHistory) that replaces everything before it when
// Qwen Code resumes the session.
//
// Parse and Append follow the chain from the last record, as Qwen Code's
// resume does; Write reproduces the source byte for byte; Fork writes a
// new session file whose summary is a chat_compression record, which
// `qwen --resume <id>` reads back.
//
// Like all of compaction/, it takes and returns bytes: it must not import
// daemon, lsp, SQLite, fsnotify or network packages, nor read files.
package qwen
