// Package openaichat is the codec for OpenAI Chat Completions message
// arrays: a bare array or an object holding "messages" (mini-swe-agent
// trajectories, request dumps). Every element is a record with its exact
// bytes; the wrapper and whitespace are kept in the frame, so an
// unmodified parse writes back byte for byte and a fork keeps the wrapper,
// the indentation and every untouched message as it was.
//
// Like every codec it is pure: it must not import the daemon, the LSP
// layer, SQLite or anything that reads files.
package openaichat
