// Package facts defines the key facts of a conversation — file paths,
// commands run, error lines of failed results, identifiers, standing
// instructions, decisions and open tasks — once, for everyone who needs
// them: the retention report (compaction/strategy) checks a compaction's
// result for them, and the extractive summarizer (compaction/summarize)
// keeps them. It also holds the tool-argument readers both use: the
// command a call ran, the path it acted on, the file range it read, and
// whether its result failed.
//
// It is pure and small: it imports only compaction/transcript and the
// standard library, never strategy, summarize, daemon, lsp or cmd.
package facts
