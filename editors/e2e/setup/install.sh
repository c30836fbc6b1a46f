#!/usr/bin/env bash
# Installs everything the editor e2e tests need, idempotently, into the cache dir
# ${COMPACTD_E2E_HOME:-<repo>/.cache/e2e}; whatever is already there is skipped.
#   Debian packages: chromium, neovim (0.7.2 on bookworm), tmux, patchelf, ripgrep and the
#                    build deps of code-server's native modules;
#   $E2E_HOME/code-server-4.100.3   code-server from the npm registry (VS Code 1.100, Node 20);
#   $E2E_HOME/nvim-sid/nvim         Neovim 0.12 from Debian sid's .debs (not installed system-wide);
#   $E2E_HOME/vscode/driver         playwright-core for the code-server driver.
# Only Debian's archive and the npm registry are contacted.
# Usage: install.sh [--no-vscode] [--no-nvim-sid]
# Env: CODE_SERVER_VERSION (default 4.100.3), DEBIAN_MIRROR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$here/lib.sh"
vscode=1; sid=1
for a in "$@"; do case $a in --no-vscode) vscode=0;; --no-nvim-sid) sid=0;; *) echo "unknown option $a" >&2; exit 64;; esac; done
t0=$(date +%s)
apt_need neovim tmux patchelf ripgrep ca-certificates
if [ "$sid" = 1 ]; then
  if [ -x "$E2E_HOME/nvim-sid/nvim" ] && "$E2E_HOME/nvim-sid/nvim" --version >/dev/null 2>&1; then
    echo "nvim-sid present: $("$E2E_HOME/nvim-sid/nvim" --version | head -1)"
  else
    "$here/get_newer_nvim.sh" sid "$E2E_HOME/nvim-sid"
  fi
fi
if [ "$vscode" = 1 ]; then
  apt_need chromium
  cs=$E2E_HOME/code-server-${CODE_SERVER_VERSION:-4.100.3}
  if [ -x "$cs/node_modules/.bin/code-server" ]; then
    echo "code-server present: $cs"
  else
    rm -rf "$cs"   # a half-finished earlier install
    "$here/install_code_server.sh" "$cs"
  fi
  npm_stage "$REPO_ROOT/editors/e2e/vscode/driver" "$E2E_HOME/vscode/driver"
fi
echo "install.sh: done in $(( $(date +%s) - t0 )) s (E2E_HOME=$E2E_HOME)"
