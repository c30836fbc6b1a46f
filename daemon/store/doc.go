// Package store is compactd's per-user SQLite database: conversations, their
// versions (lineage, reports, fork paths), the content-addressed record bytes
// that let any version be restored byte for byte, the token cache, and the
// summary archive that lets each span be summarized once.
//
// It runs on modernc.org/sqlite (pure Go) in WAL mode with explicit
// transactions and migrates its schema by PRAGMA user_version. It knows
// nothing of transcript formats: callers hand it bytes and the byte offsets
// where records start, so that versions sharing records share storage.
//
// It must not import lsp/, cmd/ or anything that parses or watches files;
// from compaction/ it uses only the value types of tokens and summarize.
package store
