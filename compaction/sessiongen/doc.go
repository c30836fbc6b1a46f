// Package sessiongen generates realistic, deterministic agent coding
// sessions in the agents' real on-disk formats (Claude Code session JSONL,
// Codex rollout JSONL, Copilot CLI sessions of its three layouts), for tests and
// benchmarks that need transcripts of a chosen size without shipping
// megabytes of fixtures.
//
// The same Options always produce the same bytes. Sessions look like real
// work: repeated and range reads of the same files, large Bash outputs,
// failing builds followed by fixes, standing instructions with
// must/never/always, split assistant lines, thinking with signatures and
// encrypted reasoning — the material compaction strategies act on.
//
// It is pure: it must not import daemon, lsp, storage or network packages,
// and it never touches the file system.
package sessiongen
