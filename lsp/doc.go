// Package lsp is compactd's Language Server Protocol adapter: one file per
// protocol feature, each a thin translation between go.lsp.dev/protocol
// messages and the daemon's snapshots and typed methods (command.go is one
// table from command name to daemon method).
//
// It holds no domain logic and no state of the session: the daemon owns the
// folders and the configuration; token counts, gauges and compaction live
// below it. It must not import cmd, nor be imported by daemon or
// compaction. See ARCHITECTURE.md.
package lsp
