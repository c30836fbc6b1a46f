#!/usr/bin/env bash
# make test: every suite, each stage timed, a summary at the end. The installs (.ci/setup.sh)
# mostly wait on the network, so they run in the background from the start while the Go stages
# (lint, cross, unit, race) keep the cores busy; Wine and the e2e suites wait for them. Every
# stage runs even when an earlier one failed (one CI run reports every failure); the exit
# status is 1 when any failed.
# Usage: .ci/test.sh   (make test runs it; MAKE names the make to call)
set -uo pipefail
cd "$(dirname "$0")/.."
make=(${MAKE:-make} --no-print-directory)
start=$(date +%s)
setup_log=$(mktemp "${TMPDIR:-/tmp}/compactd-setup.XXXXXX")
bash .ci/setup.sh >"$setup_log" 2>&1 &
setup=$!
# Never leave the installs running behind a make test that was interrupted.
trap 'kill "$setup" 2>/dev/null; rm -f "$setup_log"' EXIT
summary=() failed=0
# stage NAME CMD...: runs CMD, timed, and records the outcome.
stage() {
  local name=$1 t rc=0; shift; t=$(date +%s)
  echo "=== make test: $name"
  "$@" || rc=$?
  local took=$(( $(date +%s)-t ))
  if [ "$rc" -eq 0 ]; then summary+=("$(printf '%-11s ok    %5d s' "$name" "$took")")
  else summary+=("$(printf '%-11s FAIL  %5d s' "$name" "$took")"); failed=1; fi
  echo "=== make test: $name $([ "$rc" -eq 0 ] && echo ok || echo FAILED) ($took s)"
}
# wait_setup: the background installs' outcome and log (shown once).
wait_setup() {
  local rc=0
  wait "$setup" || rc=$?
  sed 's/^/setup: /; s/^setup: setup: /setup: /' "$setup_log"
  [ "$rc" -eq 0 ] || echo "setup: FAILED (exit $rc); the stages that need it install again"
  return "$rc"
}
stage lint "${make[@]}" lint
stage cross "${make[@]}" cross
stage unit "${make[@]}" unit
stage race "${make[@]}" race
stage setup wait_setup
stage wine "${make[@]}" wine
stage fuzz-short "${make[@]}" fuzz-short
stage dist "${make[@]}" dist
# The VS Code e2e runs the linux-x64 VSIX make dist packaged, its bundled binary serving (when
# dist failed, the e2e builds a VSIX of its own).
vsix=$(ls "$PWD"/bin/dist/compactd-*-linux-x64.vsix 2>/dev/null | head -1)
stage e2e env E2E_VSIX="$vsix" "${make[@]}" e2e
echo "=== make test: summary"
printf '  %s\n' "${summary[@]}"
echo "  total $(( $(date +%s)-start )) s"
if [ "$failed" -ne 0 ]; then echo "make test: FAILED"; exit 1; fi
echo "make test: all suites passed"
