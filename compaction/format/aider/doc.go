// Package aider is the codec for Aider's chat log, .aider.chat.history.md
// (FORMATS.md §8): "# aider chat started at …" headers, user input on
// "#### " lines, tool and console output on "> " lines, assistant Markdown
// everything else.
//
// The codec reads the file exactly as Aider's --restore-chat-history does
// (aider/utils.py split_chat_history_markdown): the text is decoded as
// UTF-8 with undecodable bytes ignored and split with Python's
// str.splitlines; a "# " line is skipped without ending the message being
// gathered, "> " lines gather a tool message, "#### " lines a user message,
// any other line an assistant message; each message is its lines joined and
// stripped, blank ones are dropped, and tool messages are not sent to the
// model, so they are RecordMeta here.
//
// A Record is a maximal run of lines of one class (header, user, tool,
// other); unlike JSON formats its Raw includes the line terminators, so the
// records concatenate to the file. Undecodable bytes stay in Raw, byte for
// byte. Append re-reads from the start of the last record, which may have
// grown.
//
// Fork writes a new log that the same splitter reads back as the view's
// messages: untouched messages as their original bytes, edited ones and
// summaries rendered ("#### " before each user line), with a separator line
// where two messages of one role would otherwise merge. An assistant line
// that would read as a header, user or tool line gets a leading space.
//
// Like all of compaction/, it takes and returns bytes: it must not import
// daemon, lsp, SQLite, fsnotify or network packages, nor read files.
package aider
