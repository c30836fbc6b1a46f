#!/usr/bin/env bash
# The whole Go suite for windows/amd64 under Wine: every package's test binary is built for
# Windows and run by .ci/wine/exec.sh (go test -exec). -short, as the race run: the long
# stress forms run on Linux. Prints each package's verdict, every failure in full and every
# skip with its reason; the full log goes to $E2E_HOME/results/wine-go-test.log ($WINE_TEST_LOG).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../editors/e2e/setup/lib.sh
. "$repo/editors/e2e/setup/lib.sh"
cd "$repo"
bash .ci/wine/install.sh
mkdir -p "$E2E_HOME/results"
log=${WINE_TEST_LOG:-$E2E_HOME/results/wine-go-test.log}
start=$(date +%s)
# One Wine session for the whole run, its server and services started here with their output
# discarded: started by a test binary's wine they would inherit its stdout, and go test would
# wait for that pipe ("Test I/O incomplete ... after exiting").
# (One already running for this prefix is kept: wineserver -p then exits 2.)
"$E2E_HOME/wine/wineserver" -p </dev/null >/dev/null 2>&1 || true
"$E2E_HOME/wine/wine" cmd.exe /c ver </dev/null >/dev/null 2>&1 || true
set +e
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -short -count=1 -v -timeout 20m \
  -exec "$repo/.ci/wine/exec.sh" ./... >"$log" 2>&1
rc=$?
set -e
"$E2E_HOME/wine/wineserver" -k 2>/dev/null || true
# Verdicts, then each failed or skipped test (subtests too) with what it logged, kept per test
# from its === RUN line to its --- FAIL/--- SKIP line: the skips are listed with their reasons.
awk '
  /^=== RUN/ { cur = $3; next }
  /^=== (CONT|NAME)/ { cur = $3; next }
  /^=== PAUSE/ { next }
  /^(ok|FAIL|\?) / || /^(ok|FAIL)\t/ { print; next }
  /^ *--- SKIP/ { print "wine: " $0; printf "%s", logs[$3]; delete logs[$3]; next }
  /^ *--- FAIL/ { print $0; printf "%s", logs[$3]; delete logs[$3]; next }
  /^ *--- PASS/ { delete logs[$3]; next }
  /^PASS$/ { next }
  /^ +/ { logs[cur] = logs[cur] "wine:     " $0 "\n"; next }
' "$log"
pkgs=$(grep -cE '^(ok|FAIL)[[:space:]]+github.com' "$log" || true)
skips=$(grep -c -- '--- SKIP' "$log" || true)
echo "wine: go test for windows/amd64: $pkgs packages tested, $skips tests skipped (listed above), exit $rc, $(( $(date +%s)-start )) s"
exit $rc
