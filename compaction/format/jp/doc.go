// Package jp is the codec for jp (dcdpr/jp) conversations (FORMATS.md §10):
// .jp/conversations/<id>-<slug>/events.json, a pretty-printed JSON array
// of events, with metadata.json (title) and base_config.json (model, system
// prompt) beside it.
//
// Parse reads events.json alone; ParseWithSiblings also takes the sibling
// files' bytes (nil when absent), since the codec never reads files. Every
// array element is a Record; chat_request events become user messages,
// runs of chat_response and tool_call_request events one assistant message,
// runs of tool_call_response events one tool-result message. turn_start,
// config_delta and inquiry events are metadata; compaction events are
// markers whose overlays (RFD 064: per-turn summary, reasoning strip, tool
// call strip or omit, latest timestamp wins) shape the model-visible
// messages exactly as jp's projection does.
//
// String values in tool arguments, tool response content and metadata are
// base64 on disk: the model view shows them decoded ("decode if valid
// base64 and valid UTF-8", jp's own rule) and every string written there is
// encoded again.
//
// Fork keeps the event list byte for byte and appends compaction overlays
// when the view is what such overlays would project (verified by projecting
// them); otherwise it re-renders the edited events, pretty-printed like the
// source.
//
// Like all of compaction/, it takes and returns bytes: it must not import
// daemon, lsp, SQLite, fsnotify or network packages, nor read files.
package jp
