#!/usr/bin/env bash
# Installs everything make test needs beyond Go and Node, idempotently (what is installed is
# kept): the Debian packages the suites use (strace for the no-network test; file, zip and
# unzip for dist), Wine 10 (.ci/wine/install.sh), the editors' e2e tools (code-server, Neovim
# 0.7.2 and 0.12, tmux, Chromium, the driver: editors/e2e/setup/install.sh), the six pinned
# agents (editors/e2e/agents/install.sh) and the VS Code extension's npm tree. Each step is
# also run by the target that needs it, so this only moves the work earlier: .ci/test.sh runs
# it in the background while the Go stages keep the cores busy (it mostly waits on downloads).
# Usage: .ci/setup.sh     Env: E2E_HOME / COMPACTD_E2E_HOME (where the tools go)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../editors/e2e/setup/lib.sh
. "$repo/editors/e2e/setup/lib.sh"
cd "$repo"
t0=$(date +%s)
step() {
  local name=$1 t; shift; t=$(date +%s)
  "$@"
  echo "setup: $name ($(( $(date +%s)-t )) s)"
}
step "Debian packages" apt_need strace file zip unzip
step "Wine" bash .ci/wine/install.sh
step "editor e2e tools" bash editors/e2e/setup/install.sh
step "agents" bash editors/e2e/agents/install.sh claude codex gemini qwen opencode kilo
step "VS Code extension's npm tree" env DEPS_ONLY=1 bash editors/vscode/build.sh
echo "setup: done in $(( $(date +%s)-t0 )) s (E2E_HOME=$E2E_HOME)"
