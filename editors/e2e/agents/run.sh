#!/usr/bin/env bash
# The real-agent suite: installs the pinned agents (install.sh), then runs the Go
# tests of editors/e2e/agents against BIN (a built compactd) with
# COMPACTD_AGENTS_E2E=1, so a missing agent fails instead of skipping under CI.
# TestRealAgents (Claude Code, Codex, Gemini CLI; side by side), TestRealAgentCompactions
# (Claude Code and Codex compact their sessions themselves; compactd restores from before
# and re-compacts, and the agents resume both forks; compactd serve announces each compaction
# through a real LSP client, with what it lost), TestRealAgentThreshold (Claude Code with
# CLAUDE_AUTOCOMPACT_PCT_OVERRIDE compacts where compactd marks it), TestRealAgentCodexImageOutput
# (Codex resumes a fork whose view_image output compactd stripped, the stand-in as its output) and
# TestRealAgentsRecall (the four agents that load compactd's MCP server offline recall what a fork
# replaced), TestRealAgentPreCompactHook and TestRealAgentCompactionHook (Claude Code's /compact with
# compactd's hooks: recorded before, and compactd as the compaction) and TestRealAgentsIssue15 (Qwen Code, opencode, Kilo Code) run at the same time: the
# agents mostly wait, and the wall time is the slower of the two.
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
logs=$(mktemp -d "${TMPDIR:-/tmp}/compactd-agents.XXXXXX")
cd "$REPO_ROOT"
go test -c -o "$logs/agents.test" ./editors/e2e/agents/   # one build for both runs
# run_tests NAME REGEX: runs the tests matching REGEX, log in $logs/NAME.log.
run_tests() {
  (cd editors/e2e/agents && COMPACTD_AGENTS_E2E=1 COMPACTD_BIN="$bin" COMPACTD_AGENTS_REPORT="$logs/$1.figures" \
    "$logs/agents.test" -test.count=1 -test.timeout=30m -test.parallel=4 -test.run "$2" -test.v) >"$logs/$1.log" 2>&1
}
start=$(date +%s)
run_tests agents '^(TestRealAgents|TestRealAgentCompactions|TestRealAgentsRecall|TestRealAgentPreCompactHook|TestRealAgentCompactionHook|TestRealAgentThreshold|TestRealAgentCodexImageOutput)$' & agents=$!
run_tests issue15 '^(TestRealAgentsIssue15|TestRealAgentOpencodeCompactingHook|TestRealAgentGeminiCompression|TestRealAgentQwenCompression)$' & issue15=$!
status=0
wait "$agents" || status=1
wait "$issue15" || status=1
for name in agents issue15; do
  # The verdicts (and, on failure, why), then the figures.
  grep -E '^\s*(--- (PASS|FAIL|SKIP)|(ok|FAIL|PASS)$)|\.go:[0-9]+: ' "$logs/$name.log" | grep -v 'sandbox kept\| in /tmp/\|figures:$' || true
done
echo "--- figures"
cat "$logs/agents.figures" 2>/dev/null || true
awk '/figures:$/ {on=1; next} on && /^(---|===|PASS|FAIL|ok)/ {on=0} on {sub(/^ +/, ""); print}' "$logs/issue15.log"
echo "real-agent suite: $(( $(date +%s) - start )) s"
if [ "$status" -ne 0 ]; then echo "full logs: $logs/agents.log $logs/issue15.log"; else rm -rf "$logs"; fi
exit "$status"
