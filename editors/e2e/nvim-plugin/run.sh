#!/usr/bin/env bash
# End-to-end test of the Neovim plugin (editors/nvim) in real Neovims against a real server:
# headless on every Neovim found (Debian's 0.7.2 and 0.12 from install.sh), then one run of
# the real TUI in tmux. Installs what is missing (editors/e2e/setup/install.sh --no-vscode).
# Usage: run.sh BIN            (the compactd binary; runs `BIN serve`)
#        run.sh -- CMD [ARG...] (any server argv, e.g. a stand-in server)
# Env: NVIMS (space-separated binaries; default "nvim $E2E_HOME/nvim-sid/nvim"),
#      E2E_SETTINGS_JSON (plugin settings; default a 20k window so the transcript is over warn),
#      E2E_PROTOCOL_ONLY=1 (skip the compactd.* commands), COMPACTD_E2E_HOME (cache + results),
#      E2E_SKIP_INSTALL=1, E2E_SKIP_TMUX=1.
# Every run gets its own HOME, XDG_*, CLAUDE_CONFIG_DIR, CODEX_HOME and COMPACTD_STORE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../setup/lib.sh
. "$here/../setup/lib.sh"
if [ "${1:-}" = "--" ]; then shift; cmd=("$@")
elif [ $# -eq 1 ]; then cmd=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" serve)
else echo "usage: $0 BIN | $0 -- SERVER_CMD [ARGS...]" >&2; exit 64; fi
[ -x "${cmd[0]}" ] || command -v "${cmd[0]}" >/dev/null || { echo "no server binary: ${cmd[0]}" >&2; exit 64; }
[ -n "${E2E_SKIP_INSTALL:-}" ] || "$here/../setup/install.sh" --no-vscode >&2
export COMPACTD_CMD_JSON; COMPACTD_CMD_JSON=$(argv_json "${cmd[@]}")
export E2E_PLUGIN_DIR=$REPO_ROOT/editors/nvim
export E2E_SETTINGS_JSON=${E2E_SETTINGS_JSON:-'{"gauge":{"contextWindow":20000}}'}
res=$E2E_HOME/results/nvim-plugin; mkdir -p "$res"
read -ra nvims <<< "${NVIMS:-nvim $E2E_HOME/nvim-sid/nvim}"
pass=0; fail=0
for n in "${nvims[@]}"; do
  command -v "$n" >/dev/null || { echo "skip $n: not installed"; continue; }
  v=$("$n" --version | head -1 | tr -d ' ')
  # A fresh workspace and home per run: the transcript, its forks and the store live there.
  tmp=$(mktemp -d); ws=$tmp/workspace; mkdir -p "$ws"
  cp "$here/testdata/conversation.jsonl" "$ws/conversation.jsonl"
  echo "== headless $v"
  if (isolate_home "$tmp"; cd "$ws" && E2E_FILE=$ws/conversation.jsonl E2E_OUT=$res/headless-$v.json \
      timeout 120 "$n" --headless -u NONE -i NONE -n -c "lua dofile('$here/plugin_e2e.lua')"); then
    pass=$((pass+1)); rm -rf "$tmp"
  else
    fail=$((fail+1)); echo "   (workspace kept in $tmp)"
  fi
  if [ -z "${E2E_SKIP_TMUX:-}" ]; then
    echo "== tmux TUI $v"
    tmp=$(mktemp -d)
    if (isolate_home "$tmp"; NVIM=$n OUT_DIR=$res/tmux-$v "$here/tmux_ui.sh" "$tmp"); then
      pass=$((pass+1)); rm -rf "$tmp"
    else
      fail=$((fail+1)); echo "   (workspace kept in $tmp)"
    fi
  fi
done
echo "nvim-plugin: $pass passed, $fail failed (results in $res)"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
