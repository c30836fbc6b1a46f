// Package gemini is the codec for Gemini CLI chat recordings (FORMATS.md §7).
//
// Three shapes share it:
//
//   - the JSONL recording of Gemini CLI ≥ 0.40
//     (~/.gemini/tmp/<hash>/chats/session-*.jsonl): a metadata line, message
//     lines {id, timestamp, type, content, toolCalls, thoughts, tokens,
//     model}, {"$set":{…}} metadata patches and {"$rewindTo":"<id>"} lines
//     that delete that message and everything after it. An update re-appends
//     the whole message with the same id: the last version wins, at the
//     position the id was first seen. This shape is parsed incrementally
//     (format.Appender);
//   - the legacy whole-file session-*.json ({…metadata, messages[]});
//   - /chat save checkpoints ({history: Content[]} or a bare Content array,
//     Content = {role: user|model, parts[]}).
//
// A "gemini" message becomes an assistant message (content, tool calls)
// followed, when its tool calls carry results, by a user-role tool-result
// message built from the same record — what Gemini CLI sends for it. Its
// thoughts (the thoughts field, thought Parts) are not read as parts:
// Gemini CLI strips them from every request, and forks keep them as
// recorded. A {"$set":{"messages":[…]}} line (written on every --resume)
// replaces the conversation read so far, as in Gemini CLI's loader. Parts
// locate themselves with Ref.Block: the index in an array content, -1 for a
// string content, blockCall+k and blockResult+k for tool calls and their
// results, plus setBlock(e) for element e of a $set's messages. info,
// error and warning messages are UI (RecordMeta).
//
// Fork always writes a new JSONL recording (fresh metadata line and session
// id, kept messages, a summary as a user message), except for checkpoints,
// which fork into a checkpoint document of the same layout.
//
// Like all of compaction/, it takes and returns bytes: it must not import
// daemon, lsp, SQLite, fsnotify or network packages, nor read files.
package gemini
