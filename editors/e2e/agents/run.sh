#!/usr/bin/env bash
# The real-agent suite: installs the pinned agents (install.sh), then runs the Go
# tests of editors/e2e/agents against BIN (a built compactd) with
# COMPACTD_AGENTS_E2E=1, so a missing agent fails instead of skipping under CI.
# TestRealAgents (Claude Code, Codex, Gemini CLI; side by side), TestRealAgentCompactions
# (Claude Code and Codex compact their sessions themselves; compactd restores from before
# and re-compacts, and the agents resume both forks; compactd serve announces each compaction
# through a real LSP client, with what it lost), TestRealAgentThresholdGrid (Claude Code, Codex,
# Gemini CLI and Qwen Code, each set up one way a case, run until they compact on their own:
# compactd's mark on every surface within 2 % of the window of where they did), TestRealAgentCodexImageOutput
# (Codex resumes a fork whose view_image output compactd stripped, the stand-in as its output),
# TestRealAgentsRecall (the agents that load compactd's MCP server offline recall what a fork
# replaced), TestRealAgentPreCompactHook and TestRealAgentCompactionHook (Claude Code's /compact
# with compactd's hooks: recorded before, and compactd as the compaction),
# TestRealAgentOpencodeCompactingHook, TestRealAgentsIssue15 (Qwen Code, opencode, Kilo Code),
# TestRealAgentGeminiCompression and TestRealAgentQwenCompression (Gemini CLI's and Qwen Code's
# own compression, announced and restored), TestRealAgentOffChainForks (Claude Code reads a PNG,
# calls tools in parallel, runs a subagent and compacts itself; it resumes compactd's forks of that
# session with seven strategies, every tool result the fork keeps reaching the model),
# TestRealAgentHandoff (a session handed off between agents with compactd handoff, resumed by the
# target, answered from the handed-off context, its picture an image there, and recalled byte for
# byte), in groups that run at the same time (below).
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
go test -c -o "$logs/agents.test" ./editors/e2e/agents/   # one build for every group
# The suite runs as groups of tests, each group one process, all at the same time: the agents
# mostly wait (on their model server, their own start-up and shutdown), so the wall time is the
# longest group's, not the sum. Each group's tests run in turn, their subtests (one per agent)
# side by side. The groups are balanced on the chains of agent runs they hold: Gemini CLI's 28
# runs in TestRealAgents; Qwen Code, opencode and Kilo Code in TestRealAgentsIssue15; five
# agents' recall and opencode's compacting hook; the agents' own compactions (the compression
# tests run beside the others, t.Parallel) and Claude Code's hooks; the threshold grid, its cases
# side by side, in a group of its own; the handoff directions side by side (57 s alone). Last clean
# run (make test on a quiet 2-core machine): 186, 187, 70+58 and 163 s, the suite 244 s. A test no
# group names runs in a
# group of its own, so a new test is never left out.
groups=(
  "agents|TestRealAgents"
  "threshold|TestRealAgentThresholdGrid"
  "issue15|TestRealAgentsIssue15"
  "recall|TestRealAgentsRecall TestRealAgentOpencodeCompactingHook TestRealAgentOffChainForks"
  "handoff|TestRealAgentHandoff"
  "compactions|TestRealAgentCompactions TestRealAgentCodexImageOutput TestRealAgentPreCompactHook TestRealAgentCompactionHook TestRealAgentGeminiCompression TestRealAgentQwenCompression"
)
named=" $(for g in "${groups[@]}"; do printf '%s ' "${g#*|}"; done)"
rest=()
for t in $("$logs/agents.test" -test.list '^Test'); do
  case $named in *" $t "*) ;; *) rest+=("$t");; esac
done
[ ${#rest[@]} -eq 0 ] || groups+=("other|${rest[*]}")
# run_group NAME TESTS: runs the tests (space-separated names), log in $logs/NAME.log,
# figures in $logs/NAME.figures.
run_group() {
  local re rc=0 t0 par=4; re="^($(echo "$2" | tr ' ' '|'))\$"; t0=$(date +%s)
  # The grid's cases mostly wait on their agents: more of them side by side.
  [ "$1" = threshold ] && par=8
  (cd editors/e2e/agents && COMPACTD_AGENTS_E2E=1 COMPACTD_BIN="$bin" COMPACTD_AGENTS_REPORT="$logs/$1.figures" \
    "$logs/agents.test" -test.count=1 -test.timeout=30m -test.parallel="$par" -test.run "$re" -test.v) >"$logs/$1.log" 2>&1 || rc=$?
  echo "$(( $(date +%s)-t0 ))" >"$logs/$1.seconds"
  return "$rc"
}
start=$(date +%s)
pids=() names=()
for g in "${groups[@]}"; do
  run_group "${g%%|*}" "${g#*|}" & pids+=($!); names+=("${g%%|*}")
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for name in "${names[@]}"; do
  # The verdicts (and, on failure, why).
  echo "--- group $name ($(cat "$logs/$name.seconds") s)"
  grep -E '^\s*(--- (PASS|FAIL|SKIP)|(ok|FAIL|PASS)$)|\.go:[0-9]+: ' "$logs/$name.log" | grep -v 'sandbox kept\| in /tmp/\|figures:$' || true
done
echo "--- figures"
for name in "${names[@]}"; do cat "$logs/$name.figures" 2>/dev/null || true; done
echo "real-agent suite: $(( $(date +%s) - start )) s (${#names[@]} groups side by side)"
if [ "$status" -ne 0 ]; then echo "full logs: $logs/*.log"; else rm -rf "$logs"; fi
exit "$status"
