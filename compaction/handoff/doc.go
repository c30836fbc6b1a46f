// Package handoff carries a conversation from one agent to another. It
// maps a compacted view of the lossless transcript model to a neutral
// Session: messages whose roles alternate (user first, assistant last),
// every tool call answered by the message after it, the source's tool
// calls mapped onto the target agent's tools where the target has an
// equivalent (file reads, edits and patches, writes, shell commands,
// searches) and rendered as faithful text where it has none, each call
// keeping its result. A codec that can start a session of its format
// from a neutral one (format.SessionWriter) writes it; what compactd
// knows of each agent's tools (a Tools table) lives with the agent
// (daemon/agents/<name>).
//
// Like the rest of compaction/ it is pure: it must not import the daemon,
// the formats, SQLite or anything that does I/O.
package handoff
