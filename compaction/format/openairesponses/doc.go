// Package openairesponses is the codec for OpenAI Responses API input item
// lists: a bare array of items or a request object holding "input" (and
// optionally "instructions", read as the system message). Every item is a
// record with its exact bytes; the wrapper and whitespace are kept in the
// frame, so an unmodified parse writes back byte for byte. Reasoning items
// with encrypted_content are signed: a fork may drop them, never alter them.
//
// Like every codec it is pure: it must not import the daemon, the LSP
// layer, SQLite or anything that reads files.
package openairesponses
