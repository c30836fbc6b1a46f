// Package compaction is compactd's domain: the transcript model, the format
// codecs, token counting and the compaction strategies.
//
// Everything under compaction/ is pure: it must not import LSP, SQLite,
// fsnotify, HTTP or anything else from daemon/, lsp/ or cmd/. Callers hand it
// bytes and get bytes and values back; where work can be long it takes a
// context.Context.
package compaction
