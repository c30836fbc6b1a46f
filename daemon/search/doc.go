// Package search is compactd's full-text search over every agent's
// sessions on the machine and every version the store keeps: the
// sessions under each registered agent's folders of every project
// (agents.Agent.Everywhere: files, and the sessions agents keep in a
// database), the workspace's transcripts, and the stored versions.
//
// The index lives in the store (daemon/store's search tables: no second
// database). Its text comes from each codec's parse (compaction/format),
// so every format is read as compactd reads it for everything else: the
// parts' text, and a tool call's name and the strings of its arguments.
// A source that only grows (a line-oriented transcript) is indexed in
// pieces of about pieceBytes, each parsed on its own, so an append
// indexes what was appended (and the short piece it ended on); a
// rewritten or truncated one, and one a codec reads whole (a JSON
// document), is indexed again whole; a deleted one is dropped. The FTS5
// index holds which pieces hold which terms, not the text: a query's
// candidates are read again from their sources, parsed the same way, to
// check its phrases and cut snippets. The index stays within a size
// (config's search.max_index_mb), the sessions least recently active
// dropped first.
//
// The daemon feeds it (Update on each transcript change, Sync for the
// rest of the machine); the CLI syncs before it answers. It must not
// import the daemon, its index or lsp (ARCHITECTURE.md).
package search
