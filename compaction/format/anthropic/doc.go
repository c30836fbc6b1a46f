// Package anthropic is the codec for Anthropic Messages API documents: a
// request ({model, system, messages, tools, …}) or a bare messages array,
// as tools dump them. The system value and every message are records with
// their exact bytes; the wrapper and whitespace are kept in the frame so an
// unmodified parse writes back byte for byte. The block decoding, rendering
// and fork machinery are exported for the Cline/Roo codec, whose files are
// arrays of the same MessageParam objects.
//
// Like every codec it is pure: it must not import the daemon, the LSP
// layer, SQLite or anything that reads files.
package anthropic
