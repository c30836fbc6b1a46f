// Package opencode is the codec for opencode and Kilo Code CLI sessions
// (Kilo is an opencode fork with the same session shape). Both keep their
// sessions in SQLite ($XDG_DATA_HOME/opencode/opencode.db,
// $XDG_DATA_HOME/kilo/kilo.db); this codec reads the JSON shape of
// `opencode export ID` — {info: session, messages: [{info, parts[]}]} —
// which is also what the daemon renders from a database's session, message
// and part rows (daemon/agentdb). Reading the database stays in daemon/:
// this package takes and returns bytes only.
//
// The model sees what opencode's prompt builder sends: user text, file and
// compaction parts; assistant text, reasoning and tool parts (one part holds
// a call and its result); since the last finished compaction (a user
// compaction part answered by an assistant message with summary: true),
// only what follows it. Per-step usage (step-finish tokens) calibrates the
// gauge.
//
// Fork writes a new export document with fresh session, message and part
// ids — `opencode import` silently skips every row whose id exists — which
// the agent imports (`opencode import FILE`, `kilo import FILE`) and resumes
// with --session. compactd never writes into the agents' databases.
package opencode
