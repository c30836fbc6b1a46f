// Package mcpserver is compactd's MCP server (`compactd mcp`): the tools an
// agent calls from inside its own loop.
//
//   - recall(handle, max_tokens, page): what a placeholder or summary
//     replaced, byte for byte as the original transcript held it, from the
//     store (compaction/recall names it; daemon/store keeps it), in pages
//     of at most max_tokens tokens;
//   - context_status(session): the gauge of the session the agent runs in,
//     found from its working folder (the most recently written session of
//     the agent there) or the session id it passes: tokens, window, the
//     agent's compaction threshold, what fills the window, what a
//     compaction would save;
//   - search(query): the conversation's stored versions searched for a
//     string, so the model finds what was said before a compaction.
//
// It is read-only: it never writes a transcript, and opens the store only
// to read it. Each tool has one typed request and one typed result
// (Recall, ContextStatus, Search); Register wires them to an MCP server of
// the official Go SDK, whose stdio transport `compactd mcp` serves.
//
// It must not import lsp/ or cmd/.
package mcpserver
