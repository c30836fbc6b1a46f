// Package daemon is compactd's long-lived state: it watches workspace
// folders and the agents' own transcript folders, keeps an incremental index
// of every transcript (immutable snapshots with per-turn token counts, the
// gauge and cached dry-run savings), and runs compaction jobs.
//
// It knows nothing of LSP: the lsp package reads its snapshots and turns
// them into protocol messages. It must not import lsp or cmd.
package daemon
