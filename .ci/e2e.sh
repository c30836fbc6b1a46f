#!/usr/bin/env bash
# Runs the end-to-end suites with real clients against the built server.
# Usage: .ci/e2e.sh /abs/path/to/compactd
# Each suite is "name|script [args]": a script without args gets the binary; one with args
# gets them instead (the vim.pack install builds compactd from a clone, as a user's does).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: e2e.sh /abs/path/to/compactd}
suites=(
  "node LSP client|editors/e2e/node/run.sh"
  "headless Neovim, raw LSP|editors/e2e/nvim-lsp/run.sh"
  "Neovim plugin (0.7.2, 0.12, TUI)|editors/e2e/nvim-plugin/run.sh"
  "Neovim plugin installed by vim.pack|editors/e2e/nvim-plugin/plugin_manager_install.sh pack"
  "VS Code via code-server|editors/e2e/vscode/run.sh"
  "real agents: Claude Code, Codex, Gemini CLI, Qwen Code, opencode, Kilo Code|editors/e2e/agents/run.sh"
)
pass=0 fail=0
for s in "${suites[@]}"; do
  name=${s%%|*}
  read -ra cmd <<< "${s#*|}"
  [ ${#cmd[@]} -gt 1 ] || cmd+=("$bin")
  start=$(date +%s)
  if bash "${cmd[@]}"; then
    pass=$((pass+1)); echo "e2e: PASS $name ($(( $(date +%s)-start ))s)"
  else
    fail=$((fail+1)); echo "e2e: FAIL $name ($(( $(date +%s)-start ))s)"
  fi
done
echo "e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
