#!/usr/bin/env bash
# Out-of-process LSP test in headless Neovim (Debian bookworm's 0.7.2 or newer).
# Usage: editors/e2e/nvim-lsp/run.sh BIN   [NVIM=path/to/nvim]   exit 0 pass, 1 fail, 2 aborted, 64 usage
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 path/to/compactd" >&2; exit 64; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
nvim=${NVIM:-nvim}
if ! command -v "$nvim" >/dev/null; then
  sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q neovim >/dev/null
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compactd-nvim-e2e.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache \
  XDG_DATA_HOME=$tmp/data CLAUDE_CONFIG_DIR=$tmp/claude CODEX_HOME=$tmp/codex COMPACTD_STORE=$tmp/store/compactd.db
mkdir -p "$HOME" "$tmp/ws"
cp "$here/../node/testdata/claude-session.jsonl" "$tmp/ws/session.jsonl"
export E2E_WS=$tmp/ws E2E_APPEND=$here/../node/testdata/claude-append.jsonl
export COMPACTD_CMD_JSON=$(printf '["%s","serve","--log-file","%s"]' "$bin" "$tmp/compactd.log")
rc=0
timeout 60 "$nvim" --headless -u NONE -i NONE -n -c "luafile $here/compactd_e2e.lua" || rc=$?
if [ $rc -ne 0 ]; then echo "--- server log" >&2; tail -50 "$tmp/compactd.log" >&2; fi
exit $rc
