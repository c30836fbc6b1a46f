// Package copilotcli is the codec for GitHub Copilot CLI sessions: one
// event per line, {type, data, id, timestamp, parentId}, in
// ~/.copilot/session-state/<id>/events.jsonl (1.0) or, from 0.0.343 to
// 0.0.38x, session-state/<id>.jsonl; before that, one JSON document per
// session (history-session-state/session_<id>_<ms>.json, see legacy.go). user.message, assistant.message
// (content, reasoningText, toolRequests) and tool.execution_complete make
// the conversation. The gauge calibrates on assistant.usage and on
// session.shutdown's currentTokens, the context size Copilot counted when
// the process ended.
//
// The conversation is the one Copilot CLI rebuilds from the events when
// it resumes a session (its loader, read in the @github/copilot npm
// package, 0.0.369 and 1.0.52): a subagent's events (data.parentToolCallId
// or agentId) and the results of commands the user ran themselves are not
// in it, a call's second result is ignored, an abort or a restart answers
// the calls it interrupted, and a successful compaction's summary replaces
// what the conversation held at its session.compaction_start — what came
// while it ran stays after the summary. session.truncation only reports
// what a request left out; the session keeps it all.
//
// No session of the real agent could be run here (it needs a GitHub
// sign-in), so forks are exported files whose shape follows the agent's
// own schema and loader, not resumed by the agent.
//
// Like all of compaction/, it takes and returns bytes only.
package copilotcli
