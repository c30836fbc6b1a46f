package agents

import "path/filepath"

// gridCases are the threshold grid's cases.
func gridCases() []gridCase {
	claudeUser := func(sb *sandbox) string { return filepath.Join(sb.getenv("CLAUDE_CONFIG_DIR"), "settings.json") }
	_ = claudeUser
	return []gridCase{
		{name: "claude/percentage-env", agent: "claude", env: []string{"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=40"}},
		{name: "claude/default", agent: "claude"},
	}
}
