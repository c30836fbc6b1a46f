package agentstest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// systemSettingsWant is the gemini/system-settings-insecure case's point:
// the user's 0.3 where Gemini CLI skips the insecure system file, the
// system file's 0.7 (× 1,048,576 = 734,003.2) on Windows, where compactd
// takes it as read.
func systemSettingsWant() Want {
	if runtime.GOOS == "windows" {
		return Want{At: 734_004, Source: "system settings"}
	}
	return Want{At: 314_573, Source: "user settings"}
}

// Cases are the threshold cases, every setting source of Claude Code,
// Codex, Gemini CLI and Qwen Code. The expected points are worked out by
// hand from what each real agent did in the real-agent suite's threshold
// grid, on its fixture session's window:
//
//   - Claude Code 2.1.330 (200k): E = W − 20k; T = E − 13k, or
//     min(⌊E × P/100⌋, E − 13k) with a percentage, whether or not a window
//     is set; claude-opus-4-7 runs with 1M.
//   - Codex, gpt-5.5 (the rollout records 258,400 = 95 % of 272,000):
//     min(limit, 90 % × 272,000 = 244,800).
//   - Gemini CLI: compressionThreshold × 1,048,576, rounded up (0 counts as
//     unset: the default 0.5).
//   - Qwen Code (1,000,000 recorded): min(P × W, W − 33k), rounded up.
func Cases() []Case {
	claudeUser := func(l Layout) string { return filepath.Join(l.Home, ".claude", "settings.json") }
	claudeProject := func(l Layout) string { return filepath.Join(l.Project, ".claude", "settings.json") }
	codexUser := func(l Layout) string { return filepath.Join(l.Home, ".codex", "config.toml") }
	geminiUser := func(l Layout) string { return filepath.Join(l.Home, ".gemini", "settings.json") }
	geminiProject := func(l Layout) string { return filepath.Join(l.Project, ".gemini", "settings.json") }
	qwenUser := func(l Layout) string { return filepath.Join(l.Home, ".qwen", "settings.json") }
	qwenProject := func(l Layout) string { return filepath.Join(l.Project, ".qwen", "settings.json") }
	files := func(m func(l Layout) map[string]any) func(l Layout) map[string]any { return m }
	env := func(kv ...string) func(l Layout) map[string]string {
		return func(Layout) map[string]string {
			m := map[string]string{}
			for i := 0; i+1 < len(kv); i += 2 {
				m[kv[i]] = kv[i+1]
			}
			return m
		}
	}
	return []Case{
		// Claude Code.
		{Name: "claude/default", Agent: "claude", Want: Want{At: 167_000, Source: "default"}},
		{Name: "claude/version-2.1.17", Agent: "claude", Version: "2.1.17", Want: Want{At: 155_000, Source: "default"}}, // 32k reserved then
		{Name: "claude/sonnet-4-6-default", Agent: "claude", Model: "claude-sonnet-4-6", Want: Want{At: 167_000, Source: "default"}},
		{Name: "claude/env", Agent: "claude", Env: env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "40", "CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000"),
			Want: Want{At: 32_000, Source: "env"}}, // E = 80k; min(32k, 67k)
		{Name: "claude/env-percentage-without-window", Agent: "claude", Model: "claude-sonnet-4-6", Env: env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "40"),
			Want: Want{At: 72_000, Source: "env"}}, // E = 180k; min(72k, 167k): 2.1.330 compacted at 73,102 (issue 34)
		{Name: "claude/env-percentage-without-window-sonnet-4-5", Agent: "claude", Env: env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "40"),
			Want: Want{At: 72_000, Source: "env"}},
		{Name: "claude/env-percentage-1m-model", Agent: "claude", Model: "claude-opus-4-7", Env: env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "10"),
			Want: Want{At: 98_000, Source: "env"}}, // E = 1M − 20k
		{Name: "claude/disable-auto-compact-0", Agent: "claude", Model: "claude-sonnet-4-6", Env: env("DISABLE_AUTO_COMPACT", "0"),
			Want: Want{At: 167_000, Source: "default"}}, // read as a boolean: 0 is false
		{Name: "claude/user-settings", Agent: "claude", Files: files(func(l Layout) map[string]any {
			return map[string]any{claudeUser(l): map[string]any{"autoCompactWindow": 120_000}}
		}), Want: Want{At: 87_000, Source: "user settings"}}, // E = 100k; 100k − 13k
		{Name: "claude/user-settings-env", Agent: "claude", Env: env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "90", "CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000"),
			Files: files(func(l Layout) map[string]any {
				return map[string]any{claudeUser(l): map[string]any{"env": map[string]any{"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "40"}}}
			}), Want: Want{At: 32_000, Source: "user settings"}}, // the settings' env beats the launch env (run G)
		{Name: "claude/project-settings", Agent: "claude", Files: files(func(l Layout) map[string]any {
			return map[string]any{
				claudeUser(l):    map[string]any{"autoCompactWindow": 120_000},
				claudeProject(l): map[string]any{"autoCompactWindow": 150_000},
			}
		}), Want: Want{At: 117_000, Source: "project settings"}}, // E = 130k
		{Name: "claude/project-top-level-over-user-per-model", Agent: "claude", Files: files(func(l Layout) map[string]any {
			return map[string]any{
				claudeUser(l):    map[string]any{"modelSettings": map[string]any{"claude-sonnet-4-5": map[string]any{"autoCompactWindow": 150_000}}},
				claudeProject(l): map[string]any{"autoCompactWindow": 100_000},
			}
		}), Want: Want{At: 67_000, Source: "project settings"}}, // a file's top-level value replaces the per-model ones below it
		{Name: "claude/per-model-over-top-level", Agent: "claude", Files: files(func(l Layout) map[string]any {
			return map[string]any{claudeUser(l): map[string]any{"autoCompactWindow": 150_000,
				"modelSettings": map[string]any{"claude-sonnet-4-5": map[string]any{"autoCompactWindow": 100_000}}}}
		}), Want: Want{At: 67_000, Source: "user settings"}},
		{Name: "claude/local-settings", Agent: "claude", Files: files(func(l Layout) map[string]any {
			return map[string]any{
				claudeUser(l): map[string]any{"autoCompactWindow": 100_000},
				filepath.Join(l.Project, ".claude", "settings.local.json"): map[string]any{"env": map[string]any{"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "30"}},
			}
		}), Want: Want{At: 24_000, Source: "local settings"}}, // E = 80k; 30 %
		{Name: "claude/disabled-env", Agent: "claude", Env: env("DISABLE_AUTO_COMPACT", "1"), Want: Want{Disabled: true, Source: "env"}},
		{Name: "claude/disabled-settings", Agent: "claude", Files: files(func(l Layout) map[string]any {
			return map[string]any{claudeUser(l): map[string]any{"autoCompactEnabled": false}}
		}), Want: Want{Disabled: true, Source: "user settings"}},

		// Codex.
		{Name: "codex/default", Agent: "codex", Want: Want{At: 244_800, Source: "default"}},
		{Name: "codex/config.toml", Agent: "codex", Files: files(func(l Layout) map[string]any {
			return map[string]any{codexUser(l): TOML{"model_auto_compact_token_limit": 120_000}}
		}), Want: Want{At: 120_000, Source: "config.toml"}},
		{Name: "codex/config.toml-above-90-percent", Agent: "codex", Files: files(func(l Layout) map[string]any {
			return map[string]any{codexUser(l): TOML{"model_auto_compact_token_limit": 300_000}}
		}), Want: Want{At: 244_800, Source: "config.toml"}},
		{Name: "codex/env", Agent: "codex", Env: func(l Layout) map[string]string {
			return map[string]string{"CODEX_HOME": filepath.Join(l.Home, "codex-home")}
		}, Files: files(func(l Layout) map[string]any {
			return map[string]any{
				codexUser(l): TOML{"model_auto_compact_token_limit": 120_000},
				filepath.Join(l.Home, "codex-home", "config.toml"): TOML{"model_auto_compact_token_limit": 60_000},
			}
		}), Want: Want{At: 60_000, Source: "config.toml"}}, // CODEX_HOME moves the user's config
		{Name: "codex/profile", Agent: "codex", Args: []string{"codex", "exec", "--profile", "small", "hello"}, Files: files(func(l Layout) map[string]any {
			return map[string]any{
				codexUser(l): TOML{"model_auto_compact_token_limit": 120_000},
				filepath.Join(l.Home, ".codex", "small.config.toml"): TOML{"model_auto_compact_token_limit": 50_000},
			}
		}), Want: Want{At: 50_000, Source: "profile small"}}, // --profile layers <name>.config.toml over config.toml
		{Name: "codex/profile-legacy", Agent: "codex", Files: files(func(l Layout) map[string]any {
			return map[string]any{codexUser(l): TOML{"model_auto_compact_token_limit": 120_000, "profile": "small",
				"profiles": map[string]any{"small": map[string]any{"model_auto_compact_token_limit": 50_000}}}}
		}), Want: Want{At: 120_000, Source: "config.toml"}}, // Codex 0.169 refuses profile = "small": the tables do nothing
		{Name: "codex/project-config.toml", Agent: "codex", Files: files(func(l Layout) map[string]any {
			return map[string]any{
				codexUser(l): TOML{"projects": map[string]any{l.Project: map[string]any{"trust_level": "trusted"}}},
				filepath.Join(l.Project, ".codex", "config.toml"): TOML{"model_auto_compact_token_limit": 90_000},
			}
		}), Want: Want{At: 90_000, Source: "project config.toml"}},
		{Name: "codex/project-config.toml-untrusted", Agent: "codex", Files: files(func(l Layout) map[string]any {
			return map[string]any{filepath.Join(l.Project, ".codex", "config.toml"): TOML{"model_auto_compact_token_limit": 90_000}}
		}), Want: Want{At: 244_800, Source: "default"}},
		{Name: "codex/context-window", Agent: "codex", Files: files(func(l Layout) map[string]any {
			return map[string]any{codexUser(l): TOML{"model_context_window": 200_000}}
		}), Want: Want{At: 180_000, Source: "config.toml"}},

		// Gemini CLI.
		{Name: "gemini/default", Agent: "gemini", Want: Want{At: 524_288, Source: "default"}},
		{Name: "gemini/user-settings", Agent: "gemini", Files: files(func(l Layout) map[string]any {
			return map[string]any{geminiUser(l): map[string]any{"model": map[string]any{"compressionThreshold": 0.3}}}
		}), Want: Want{At: 314_573, Source: "user settings"}},
		{Name: "gemini/project-settings-trusted", Agent: "gemini", Files: files(func(l Layout) map[string]any {
			return map[string]any{
				geminiUser(l):    map[string]any{"model": map[string]any{"compressionThreshold": 0.3}},
				geminiProject(l): map[string]any{"model": map[string]any{"compressionThreshold": 0.2}},
				filepath.Join(l.Home, ".gemini", "trustedFolders.json"): map[string]any{l.Project: "TRUST_FOLDER"},
			}
		}), Want: Want{At: 209_716, Source: "project settings"}},
		{Name: "gemini/project-settings-zero", Agent: "gemini", Files: files(func(l Layout) map[string]any {
			return map[string]any{
				geminiUser(l):    map[string]any{"model": map[string]any{"compressionThreshold": 0.3}},
				geminiProject(l): map[string]any{"model": map[string]any{"compressionThreshold": 0}},
				filepath.Join(l.Home, ".gemini", "trustedFolders.json"): map[string]any{l.Project: "TRUST_FOLDER"},
			}
		}), Want: Want{At: 524_288, Source: "project settings"}}, // a winning 0 counts as unset: the default, not the user's 0.3
		{Name: "gemini/project-settings-untrusted", Agent: "gemini", Files: files(func(l Layout) map[string]any {
			return map[string]any{
				geminiUser(l):    map[string]any{"model": map[string]any{"compressionThreshold": 0.3}},
				geminiProject(l): map[string]any{"model": map[string]any{"compressionThreshold": 0.2}},
			}
		}), Want: Want{At: 314_573, Source: "user settings"}},
		{Name: "gemini/env", Agent: "gemini", Env: env("GEMINI_CLI_TRUST_WORKSPACE", "true"), Files: files(func(l Layout) map[string]any {
			return map[string]any{geminiProject(l): map[string]any{"model": map[string]any{"compressionThreshold": 0.2}}}
		}), Want: Want{At: 209_716, Source: "project settings"}},
		{Name: "gemini/system-settings-insecure", Agent: "gemini", Env: func(l Layout) map[string]string {
			return map[string]string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(l.Home, "etc", "settings.json")}
		}, Files: files(func(l Layout) map[string]any {
			return map[string]any{
				geminiUser(l): map[string]any{"model": map[string]any{"compressionThreshold": 0.3}},
				filepath.Join(l.Home, "etc", "settings.json"): map[string]any{"model": map[string]any{"compressionThreshold": 0.7}},
			}
		}), Prepare: func(t testing.TB, l Layout) {
			// Writable by others: Gemini CLI skips a system file there
			// (on Windows it checks ACLs, which compactd does not repeat).
			if err := os.Chmod(filepath.Join(l.Home, "etc"), 0o777); err != nil {
				t.Fatal(err)
			}
		}, Want: systemSettingsWant()},

		// Qwen Code.
		{Name: "qwen/default", Agent: "qwen", Want: Want{At: 850_000, Source: "default"}},
		{Name: "qwen/user-settings", Agent: "qwen", Files: files(func(l Layout) map[string]any {
			return map[string]any{qwenUser(l): map[string]any{"context": map[string]any{"autoCompactThreshold": 0.5}}}
		}), Want: Want{At: 500_000, Source: "user settings"}},
		{Name: "qwen/project-settings", Agent: "qwen", Files: files(func(l Layout) map[string]any {
			return map[string]any{
				qwenUser(l):    map[string]any{"context": map[string]any{"autoCompactThreshold": 0.5}},
				qwenProject(l): map[string]any{"context": map[string]any{"autoCompactThreshold": 0.2}},
			}
		}), Want: Want{At: 200_000, Source: "project settings"}},
		{Name: "qwen/window-setting", Agent: "qwen", Files: files(func(l Layout) map[string]any {
			return map[string]any{qwenUser(l): map[string]any{
				"context": map[string]any{"autoCompactThreshold": 0.2},
				"model":   map[string]any{"generationConfig": map[string]any{"contextWindowSize": 100_000}}}}
		}), Want: Want{At: 20_000, Source: "user settings"}}, // run Q1: min(20k, 67k)
		{Name: "qwen/env", Agent: "qwen", Env: func(l Layout) map[string]string {
			return map[string]string{"QWEN_HOME": filepath.Join(l.Home, "qwen-home")}
		}, Files: files(func(l Layout) map[string]any {
			return map[string]any{
				qwenUser(l): map[string]any{"context": map[string]any{"autoCompactThreshold": 0.5}},
				filepath.Join(l.Home, "qwen-home", "settings.json"): map[string]any{"context": map[string]any{"autoCompactThreshold": 0.6}},
			}
		}), Want: Want{At: 600_000, Source: "user settings"}}, // QWEN_HOME replaces ~/.qwen
		{Name: "qwen/project-settings-untrusted", Agent: "qwen", Files: files(func(l Layout) map[string]any {
			return map[string]any{
				qwenUser(l):    map[string]any{"security": map[string]any{"folderTrust": map[string]any{"enabled": true}}},
				qwenProject(l): map[string]any{"context": map[string]any{"autoCompactThreshold": 0.2}},
			}
		}), Want: Want{At: 850_000, Source: "default"}},
	}
}
