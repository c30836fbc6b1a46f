package agents

import "path/filepath"

// gridCases are the threshold grid's cases: each agent's settings as users
// set them, and what the agents' notes say does not matter varied too.
// Claude Code runs claude-sonnet-4-6 (a 200k window, 20k of output
// reserved) unless a case says otherwise.
func gridCases() []gridCase {
	claudeUser := func(sb *sandbox) string { return filepath.Join(sb.getenv("CLAUDE_CONFIG_DIR"), "settings.json") }
	claudeProject := func(sb *sandbox) string { return filepath.Join(sb.project, ".claude", "settings.json") }
	claudeLocal := func(sb *sandbox) string { return filepath.Join(sb.project, ".claude", "settings.local.json") }
	claudeGlobal := func(sb *sandbox) string { return filepath.Join(sb.getenv("CLAUDE_CONFIG_DIR"), ".claude.json") }
	settings := func(f func(sb *sandbox) map[string]any) func(sb *sandbox) map[string]any { return f }
	env := func(kv ...string) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return map[string]any{"env": m}
	}
	codexUser := func(sb *sandbox) string { return filepath.Join(sb.getenv("CODEX_HOME"), "config.toml") }
	codexProject := func(sb *sandbox) string { return filepath.Join(sb.project, ".codex", "config.toml") }
	trusted := func(sb *sandbox) map[string]any {
		return map[string]any{sb.project: map[string]any{"trust_level": "trusted"}}
	}
	geminiUser := func(sb *sandbox) string { return filepath.Join(sb.home, ".gemini", "settings.json") }
	geminiProject := func(sb *sandbox) string { return filepath.Join(sb.project, ".gemini", "settings.json") }
	compression := func(f float64) map[string]any {
		return map[string]any{"model": map[string]any{"compressionThreshold": f}}
	}
	qwenUser := func(sb *sandbox) string { return filepath.Join(sb.home, ".qwen", "settings.json") }
	qwenProject := func(sb *sandbox) string { return filepath.Join(sb.project, ".qwen", "settings.json") }
	qwenWindow := func(n int) map[string]any {
		return map[string]any{"model": map[string]any{"generationConfig": map[string]any{"contextWindowSize": n}}}
	}
	qwenThreshold := func(f float64) map[string]any {
		return map[string]any{"context": map[string]any{"autoCompactThreshold": f}}
	}
	both := func(a, b map[string]any) map[string]any {
		m := map[string]any{}
		mergeJSON(m, a)
		mergeJSON(m, b)
		return m
	}
	const pct, window = "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "CLAUDE_CODE_AUTO_COMPACT_WINDOW"
	return []gridCase{
		// Claude Code: the percentage alone, the window alone, both.
		{name: "claude/default", agent: "claude"},
		{name: "claude/percentage-env", agent: "claude", env: []string{pct + "=40"}}, // issue 34, item 1
		{name: "claude/window-env", agent: "claude", env: []string{window + "=100000"}},
		{name: "claude/both-env", agent: "claude", env: []string{pct + "=40", window + "=100000"}},
		{name: "claude/window-env-k", agent: "claude", env: []string{pct + "=50", window + "=140k"}},
		{name: "claude/percentage-out-of-range", agent: "claude", env: []string{pct + "=150", window + "=100000"}},
		// … in each settings file's env.
		{name: "claude/percentage-user-settings", agent: "claude", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{claudeUser(sb): env(pct, "25")}
		})},
		{name: "claude/window-project-settings", agent: "claude", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{claudeProject(sb): env(window, "120000")}
		})},
		{name: "claude/both-local-settings", agent: "claude", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{claudeLocal(sb): env(pct, "30", window, "110000")}
		})},
		{name: "claude/percentage-managed-settings", agent: "claude", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{claudeUser(sb): env(pct, "60")}
		}), etc: map[string]any{"claude-code/managed-settings.json": env(pct, "20")}},
		{name: "claude/settings-env-over-launch-env", agent: "claude", env: []string{pct + "=90"}, files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{claudeUser(sb): env(pct, "35")}
		})},
		{name: "claude/percentage-global-config", agent: "claude", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{claudeGlobal(sb): env(pct, "30")}
		})},
		// autoCompactWindow, top level and per model.
		{name: "claude/autoCompactWindow-per-model", agent: "claude", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{claudeUser(sb): map[string]any{"autoCompactWindow": 150000,
				"modelSettings": map[string]any{claudeModel: map[string]any{"autoCompactWindow": 100000}}}}
		})},
		{name: "claude/autoCompactWindow-top-level-over-lower-per-model", agent: "claude", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{
				claudeUser(sb):    map[string]any{"modelSettings": map[string]any{claudeModel: map[string]any{"autoCompactWindow": 150000}}},
				claudeProject(sb): map[string]any{"autoCompactWindow": 100000},
			}
		})},
		// Switched off: the agent does not compact past where it would.
		{name: "claude/autoCompactEnabled-false", agent: "claude", env: []string{window + "=100000"}, beyond: 67_000,
			files: settings(func(sb *sandbox) map[string]any {
				return map[string]any{claudeUser(sb): map[string]any{"autoCompactEnabled": false}}
			})},
		{name: "claude/DISABLE_AUTO_COMPACT", agent: "claude", env: []string{"DISABLE_AUTO_COMPACT=1", window + "=100000"}, beyond: 67_000},
		{name: "claude/DISABLE_COMPACT-project-settings", agent: "claude", env: []string{window + "=100000"}, beyond: 67_000,
			files: settings(func(sb *sandbox) map[string]any {
				return map[string]any{claudeProject(sb): env("DISABLE_COMPACT", "1")}
			})},
		{name: "claude/DISABLE_AUTO_COMPACT-0", agent: "claude", env: []string{"DISABLE_AUTO_COMPACT=0", window + "=100000"}, beyond: 67_000},
		// Other models. (Without a window set, claude-sonnet-4-5 and the
		// models of its kind take their default window from Anthropic's
		// servers, which the model server cannot stand in for: against it
		// they compact only when refused.)
		{name: "claude/sonnet-4-5-both-env", agent: "claude", model: "claude-sonnet-4-5-20250929", env: []string{pct + "=40", window + "=100000"}},
		{name: "claude/opus-4-7-percentage-env", agent: "claude", model: "claude-opus-4-7", env: []string{pct + "=10"}}, // 1M natively

		// Codex (gpt-5.5, a 272k window in its catalogue).
		{name: "codex/model_context_window", agent: "codex", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{codexUser(sb): map[string]any{"model_context_window": 40000}}
		})},
		{name: "codex/model_auto_compact_token_limit", agent: "codex", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{codexUser(sb): map[string]any{"model_auto_compact_token_limit": 30000}}
		})},
		{name: "codex/limit-above-90-percent", agent: "codex", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{codexUser(sb): map[string]any{"model_context_window": 40000, "model_auto_compact_token_limit": 39000}}
		})},
		{name: "codex/profile", agent: "codex", flags: []string{"--profile", "small"}, files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{
				codexUser(sb): map[string]any{"model_auto_compact_token_limit": 60000},
				filepath.Join(sb.getenv("CODEX_HOME"), "small.config.toml"): map[string]any{"model_auto_compact_token_limit": 25000},
			}
		})},
		{name: "codex/project-config", agent: "codex", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{
				codexUser(sb):    map[string]any{"model_auto_compact_token_limit": 60000, "projects": trusted(sb)},
				codexProject(sb): map[string]any{"model_auto_compact_token_limit": 28000},
			}
		})},
		{name: "codex/project-config-untrusted", agent: "codex", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{
				codexUser(sb):    map[string]any{"model_auto_compact_token_limit": 35000},
				codexProject(sb): map[string]any{"model_auto_compact_token_limit": 25000},
			}
		})},

		// Gemini CLI (gemini-3.1-pro-preview: its fixed 1,048,576 limit).
		{name: "gemini/user-settings", agent: "gemini", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{geminiUser(sb): compression(0.03)}
		})},
		{name: "gemini/project-settings", agent: "gemini", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{geminiUser(sb): compression(0.06), geminiProject(sb): compression(0.03)}
		})},
		{name: "gemini/system-settings", agent: "gemini", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{geminiUser(sb): compression(0.03)}
		}), etc: map[string]any{"gemini-cli/settings.json": compression(0.07)}},
		{name: "gemini/system-settings-insecure", agent: "gemini", env: []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=@SANDBOX@/system/settings.json"}, files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{geminiUser(sb): compression(0.03), filepath.Join(sb.root, "system", "settings.json"): compression(0.07)}
		})},
		{name: "gemini/trust-env", agent: "gemini", env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{
				filepath.Join(sb.home, ".gemini", "trustedFolders.json"): map[string]any{sb.project: "DO_NOT_TRUST"},
				geminiUser(sb): compression(0.06), geminiProject(sb): compression(0.03),
			}
		})},

		// Qwen Code (qwen3-coder-plus).
		{name: "qwen/window-and-threshold", agent: "qwen", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{qwenUser(sb): both(qwenWindow(64000), qwenThreshold(0.5))}
		})},
		{name: "qwen/window", agent: "qwen", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{qwenUser(sb): qwenWindow(60000)}
		})},
		{name: "qwen/project-settings", agent: "qwen", files: settings(func(sb *sandbox) map[string]any {
			return map[string]any{qwenUser(sb): both(qwenWindow(90000), qwenThreshold(0.5)), qwenProject(sb): qwenThreshold(0.25)}
		})},
	}
}
