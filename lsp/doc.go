// Package lsp is compactd's Language Server Protocol adapter: one file per
// protocol feature, each a thin translation between go.lsp.dev/protocol
// messages and the daemon's snapshots and jobs.
//
// It holds no domain logic: token counts, gauges and compaction live below
// it. It must not import cmd, nor be imported by daemon or compaction.
package lsp
