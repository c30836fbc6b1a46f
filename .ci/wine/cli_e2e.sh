#!/usr/bin/env bash
# The Windows CLI end to end under Wine, on a copy of the example workspace: gauge, dry run,
# compact (a fork), compact --in-place while another Windows process holds the transcript
# open (as an editor or a viewer does, without delete sharing), restore, history, diff and
# doctor. Every path compactd.exe sees is a Windows path (Z:\...), and the store and the
# agents' folders point into a temp folder.
# Usage: cli_e2e.sh   (builds compactd.exe for windows/amd64; installs Wine when missing)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../editors/e2e/setup/lib.sh
. "$repo/editors/e2e/setup/lib.sh"
bash "$repo/.ci/wine/install.sh"
wine=$E2E_HOME/wine/wine
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compactd-wine.XXXXXX")
holder_pid=
cleanup() {
  [ -n "$holder_pid" ] && kill "$holder_pid" 2>/dev/null
  "$E2E_HOME/wine/wineserver" -k 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
start=$(date +%s)
# One Wine session for every command below, as test.sh keeps one for the suite: a server
# started on demand exits a few seconds after its last program, and a command that connects
# while it shuts down fails ("wine client error:0: recvmsg: Connection reset by peer"). Wait
# for a server still shutting down (test.sh's), then start one that stays until cleanup.
"$E2E_HOME/wine/wineserver" -w 2>/dev/null || true
"$E2E_HOME/wine/wineserver" -p </dev/null >/dev/null 2>&1 || true
"$E2E_HOME/wine/wine" cmd.exe /c ver </dev/null >/dev/null 2>&1 || true
(cd "$repo" && GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$tmp/compactd.exe" ./cmd/compactd)
# The holder: a Windows program that opens a file for reading the way most do (Go's os.Open,
# like the C runtime's fopen, shares read and write but not delete) and keeps it open until
# its stdin closes.
mkdir -p "$tmp/holder"
cat > "$tmp/holder/main.go" <<'GO'
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Println("holder:", err)
		os.Exit(1)
	}
	fmt.Println("holding")
	io.Copy(io.Discard, os.Stdin)
	f.Close()
}
GO
printf 'module holder\n\ngo 1.22\n' > "$tmp/holder/go.mod"
(cd "$tmp/holder" && GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$tmp/holder.exe" .)

# win PATH: the Windows path of a Unix path under Wine's Z: drive.
win() { local p=$1; printf 'Z:%s' "${p//\//\\}"; }
home=$tmp/home
mkdir -p "$home/AppData/Roaming" "$home/AppData/Local"
cp -R "$repo/cmd/compactd/testdata/workspace" "$tmp/workspace"
export HOME USERPROFILE APPDATA LOCALAPPDATA XDG_CONFIG_HOME XDG_STATE_HOME XDG_CACHE_HOME XDG_DATA_HOME
HOME=$(win "$home") USERPROFILE=$(win "$home") APPDATA=$(win "$home/AppData/Roaming") LOCALAPPDATA=$(win "$home/AppData/Local")
unset XDG_CONFIG_HOME XDG_STATE_HOME XDG_CACHE_HOME XDG_DATA_HOME
export CLAUDE_CONFIG_DIR=$(win "$home/.claude") CODEX_HOME=$(win "$home/.codex")
# Wine gives a Windows program its own USERPROFILE, APPDATA and LOCALAPPDATA (the prefix's
# profile) whatever the Unix environment says, so the store is named explicitly.
export COMPACTD_STORE; COMPACTD_STORE=$(win "$tmp/store/compactd.db")
cd "$tmp/workspace"
main=$(win "$tmp/workspace/claude/session.jsonl")
fail=0 pass=0
# check NAME CMD...: runs compactd.exe under Wine; output in $out; exit 0 expected.
check() {
  local name=$1; shift
  if out=$("$wine" "$tmp/compactd.exe" "$@" 2>&1); then
    pass=$((pass+1)); echo "wine cli: ok   $name"
  else
    fail=$((fail+1)); echo "wine cli: FAIL $name (exit $?)"; printf '%s\n' "$out" | sed 's/^/    /'
  fi
}
# expect NAME TEXT: the last output holds TEXT.
expect() {
  if printf '%s' "$out" | grep -qF -- "$2"; then :; else
    fail=$((fail+1)); echo "wine cli: FAIL $1: output lacks \"$2\""; printf '%s\n' "$out" | head -20 | sed 's/^/    /'
  fi
}
orig_sum=$(sha256sum claude/session.jsonl | cut -d' ' -f1)

check "gauge" gauge "$main" "$(win "$tmp/workspace/codex/rollout.jsonl")"
expect "gauge" "session.jsonl"
check "dry run" compact --dry-run "$main"
check "compact (a fork beside the original)" compact "$main"
forks=$(ls claude/*.jsonl | grep -vc '/session.jsonl$' || true)
[ "$forks" -ge 1 ] || { fail=$((fail+1)); echo "wine cli: FAIL no fork written beside the original"; }
[ "$(sha256sum claude/session.jsonl | cut -d' ' -f1)" = "$orig_sum" ] ||
  { fail=$((fail+1)); echo "wine cli: FAIL compact (a fork) changed the original"; }

# compact --in-place while another process holds the transcript open.
coproc HOLDER { "$wine" "$tmp/holder.exe" "$main" 2>&1; }
holder_pid=$HOLDER_PID
read -r -t 60 line <&"${HOLDER[0]}" || line=
if [ "$line" != "holding" ]; then
  fail=$((fail+1)); echo "wine cli: FAIL the holder did not open the transcript: $line"
fi
check "compact --in-place while a reader holds the file" compact --in-place "$main"
# Windows replaces no file a program holds open: the new content went into the file itself,
# and compactd says so.
expect "compact --in-place while a reader holds the file" "into the file itself"
[ "$(sha256sum claude/session.jsonl | cut -d' ' -f1)" != "$orig_sum" ] ||
  { fail=$((fail+1)); echo "wine cli: FAIL compact --in-place left the transcript as it was"; }
kill -0 "$holder_pid" 2>/dev/null ||
  { fail=$((fail+1)); echo "wine cli: FAIL the reader holding the transcript was disturbed"; }
exec {HOLDER[1]}>&-
wait "$holder_pid" 2>/dev/null || true
holder_pid=

check "history" history "$main"
expect "history" "v1"
check "diff v1 v2" diff "$main" v1 v2
check "restore --in-place v1" restore --in-place "$main" v1
[ "$(sha256sum claude/session.jsonl | cut -d' ' -f1)" = "$orig_sum" ] ||
  { fail=$((fail+1)); echo "wine cli: FAIL restore v1 did not bring the original back byte for byte"; }
check "doctor" doctor
expect "doctor" "$COMPACTD_STORE"
echo "wine cli: $pass passed, $fail failed ($(( $(date +%s)-start )) s)"
[ "$fail" -eq 0 ]
