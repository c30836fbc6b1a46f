// Package daemon is compactd's long-lived state, one session of a
// workspace: its folders, the configuration resolved per transcript (the
// .compactd.toml nearest to it, the editor's settings, the server's flags:
// settings.go), watching the workspace and every registered agent's folders
// (daemon/agents), an incremental index of every transcript (immutable
// snapshots with per-turn token counts, the gauge and cached dry-run
// savings), automatic compaction, and the editor's commands as typed
// methods with named results (commands.go) that run daemon/jobs.
//
// It knows nothing of LSP: the lsp package reads its snapshots, calls its
// methods and turns both into protocol messages. It must not import lsp or
// cmd. See ARCHITECTURE.md.
package daemon
