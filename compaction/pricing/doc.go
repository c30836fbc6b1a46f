// Package pricing knows what tokens cost: a bundled, dated price table of
// the models coding agents run (Anthropic, OpenAI, Google, DeepSeek, Qwen),
// which the user's settings may override or extend, and the arithmetic
// that turns API-reported usage and context sizes into dollars: a
// session's cost so far, the next turn's cost at today's size, and what a
// compaction saves per turn.
//
// Prices are list prices in US dollars per million tokens, for the
// provider's own API (not batch, not a reseller). They change; the table
// says when it was checked (TableDate) and every figure shown from it is
// an estimate.
//
// The package is pure: it must not import daemon, lsp, the store, or
// anything that reads files or the network.
package pricing
