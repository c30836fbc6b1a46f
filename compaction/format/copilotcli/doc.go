// Package copilotcli is the codec for GitHub Copilot CLI sessions
// (~/.copilot/session-state/<id>/events.jsonl): one event per line,
// {type, id, timestamp, parentId, data}. user.message, assistant.message
// (content, reasoningText, toolRequests) and tool.execution_complete make
// the conversation; a successful session.compaction_complete carrying
// summaryContent replaces what came before it. The gauge calibrates on
// assistant.usage and on session.shutdown's currentTokens, the context
// size Copilot counted when the process ended.
//
// The shapes follow public descriptions of the format and the Copilot SDK's
// session-event schema; no session of the real agent was available (it
// needs a GitHub sign-in), so forks are exported files, not resumed by the
// agent.
//
// Like all of compaction/, it takes and returns bytes only.
package copilotcli
