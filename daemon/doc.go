// Package daemon is compactd's long-lived state, one session of a
// workspace, composed of its parts: the watcher (daemon/watch) finds the
// transcripts of the workspace and every registered agent's folders
// (daemon/agents), the index (daemon/index) reads and gauges them into
// immutable snapshots with dry-run savings, and the daemon itself holds
// the workspace folders, the configuration resolved per transcript (the
// .compactd.toml nearest to it, the editor's settings, the server's
// flags: settings.go), the agents' thresholds and compaction ledgers, and
// the editor's commands as typed methods with named results (commands.go)
// that run daemon/jobs.
//
// It knows nothing of LSP: the lsp package reads its snapshots, calls its
// methods and turns both into protocol messages. It must not import lsp or
// cmd. See ARCHITECTURE.md.
package daemon
