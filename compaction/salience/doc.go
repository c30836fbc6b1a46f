// Package salience scores what a conversation names — files, identifiers,
// shell commands, error codes, URLs — by how likely the rest of the
// conversation is to need it again, so that a compaction can keep the
// names that matter under a token budget rather than the newest ones.
//
// The score of a name is the sum, over the messages that name it, of a
// weight for who named it (the user's prompts and the assistant's own
// words and tool calls count more than tool output an agent merely read)
// times a recency factor that decays with the distance from the end of the
// conversation, with a slow component so that a file the whole session
// revolves around keeps its weight. Names the conversation edited or ran
// gain a bonus. Nothing is learned: the weights are fixed priors for coding
// sessions, the same for every agent and format.
//
// The package is pure and deterministic: it takes messages and returns
// scores. It must not import daemon/, lsp/, cmd/, compaction/strategy nor
// compaction/summarize (both import it).
package salience
