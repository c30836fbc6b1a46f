#!/usr/bin/env bash
# Runs the end-to-end suites with real clients against the built server.
# Usage: .ci/e2e.sh /abs/path/to/compactd
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: e2e.sh /abs/path/to/compactd}
suites=(
  "node LSP client|editors/e2e/node/run.sh"
  "headless Neovim, raw LSP|editors/e2e/nvim-lsp/run.sh"
  "Neovim plugin (0.7.2, 0.12, TUI)|editors/e2e/nvim-plugin/run.sh"
  "Neovim plugin installed by vim.pack|editors/e2e/nvim-plugin/plugin_manager_install.sh"
  "VS Code via code-server|editors/e2e/vscode/run.sh"
  "real agents: Claude Code, Codex, Gemini CLI|editors/e2e/agents/run.sh"
)
pass=0 fail=0
for s in "${suites[@]}"; do
  name=${s%%|*} script=${s#*|}
  start=$(date +%s)
  if bash "$script" "$bin"; then
    pass=$((pass+1)); echo "e2e: PASS $name ($(( $(date +%s)-start ))s)"
  else
    fail=$((fail+1)); echo "e2e: FAIL $name ($(( $(date +%s)-start ))s)"
  fi
done
echo "e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
