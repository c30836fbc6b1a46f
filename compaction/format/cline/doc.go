// Package cline is the codec for Cline, Roo Code and Kilo Code task
// histories (api_conversation_history.json): an array of Anthropic
// MessageParams with extras (ts, modelInfo, metrics.tokens, Roo's
// condense and truncation fields). It reuses the anthropic package's block
// decoding and fork machinery and adds what Cline does differently:
// plain-text tool results, <environment_details> injections (attachments,
// so they can be stripped), and Roo's non-destructive condensing — the
// model-visible messages leave out what a summary or truncation marker
// replaced.
//
// Like every codec it is pure: it must not import the daemon, the LSP
// layer, SQLite or anything that reads files.
package cline
