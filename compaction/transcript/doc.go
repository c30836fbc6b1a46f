// Package transcript is the normalized, lossless model of an agent transcript.
//
// A Transcript keeps every on-disk Record with its exact bytes, so a codec can
// write untouched records back byte for byte, and overlays the semantic view
// the model actually sees: Messages made of Parts, grouped into Turns.
// Messages are the active branch only, after any compaction markers the agent
// itself wrote (Claude compact_boundary, Codex compacted, …).
//
// The package knows no on-disk format; codecs live in compaction/format.
package transcript
