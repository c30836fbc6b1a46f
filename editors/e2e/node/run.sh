#!/usr/bin/env bash
# Out-of-process LSP test with the Node client stack of VS Code.
# Usage: editors/e2e/node/run.sh BIN   (BIN = a built compactd)   exit 0 pass, 1 fail, 64 usage
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 path/to/compactd" >&2; exit 64; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compactd-node-e2e.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Nothing of the real home is touched: every location points into $tmp.
export HOME=$tmp/home XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache \
  XDG_DATA_HOME=$tmp/data CLAUDE_CONFIG_DIR=$tmp/claude CODEX_HOME=$tmp/codex COMPACTD_STORE=$tmp/store/compactd.db \
  TMPDIR=$tmp npm_config_cache=${npm_config_cache:-$tmp/npm-cache}
mkdir -p "$HOME"
# node_modules are installed in a copy, so the checkout stays clean.
cp -r "$here/package.json" "$here/package-lock.json" "$here/lsp.test.mjs" "$here/testdata" "$tmp/"
(cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error >&2)
COMPACTD_CMD_JSON=$(printf '["%s","serve","--log-file","%s"]' "$bin" "$tmp/compactd.log") \
  node --test "$tmp/lsp.test.mjs" || { echo "--- server log" >&2; tail -50 "$tmp/compactd.log" >&2; exit 1; }
