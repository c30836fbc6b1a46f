// Package store is compactd's per-user SQLite database: conversations, their
// versions (lineage, reports, fork paths), the content-addressed record bytes
// that let any version be restored byte for byte, and the token cache.
//
// It runs on modernc.org/sqlite (pure Go) in WAL mode with explicit
// transactions and migrates its schema by PRAGMA user_version. It knows
// nothing of transcript formats: callers hand it bytes and the byte offsets
// where records start, so that versions sharing records share storage.
//
// It must not import lsp/, cmd/ or anything that parses or watches files;
// compaction/ is not needed here either.
package store
