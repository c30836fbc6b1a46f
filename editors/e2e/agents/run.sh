#!/usr/bin/env bash
# The real-agent suite: installs the pinned agents (install.sh), then runs the Go
# tests of editors/e2e/agents against BIN (a built compactd) with
# COMPACTD_AGENTS_E2E=1, so a missing agent fails instead of skipping under CI.
# Usage: editors/e2e/agents/run.sh BIN   exit 0 pass, 1 fail, 64 usage
# Env: E2E_HOME / COMPACTD_E2E_HOME (the cache), COMPACTD_AGENTS_KEEP=1 keeps each
# sandbox (sessions, forks, every request the agents sent) for a post-mortem.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 path/to/compactd" >&2; exit 64; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
# shellcheck source=../setup/lib.sh
. "$here/../setup/lib.sh"
bash "$here/install.sh" claude codex gemini qwen opencode kilo
report=$(mktemp "${TMPDIR:-/tmp}/compactd-agents-report.XXXXXX")
trap 'rm -f "$report" "$report.log"' EXIT
cd "$REPO_ROOT"
status=0
COMPACTD_AGENTS_E2E=1 COMPACTD_BIN="$bin" COMPACTD_AGENTS_REPORT="$report" \
  go test -count=1 -timeout 30m -run '^TestRealAgents(Issue15)?$' -v ./editors/e2e/agents/ >"$report.log" 2>&1 || status=1
# The verdicts (and, on failure, why), then the figures.
grep -E '^\s*(--- (PASS|FAIL|SKIP)|(ok|FAIL)\s)|\.go:[0-9]+: ' "$report.log" | grep -v 'sandbox kept\|in /tmp' || true
echo "--- figures"
cat "$report" 2>/dev/null || true
if [ "$status" -ne 0 ]; then echo "full log: $report.log"; trap - EXIT; fi
exit "$status"
