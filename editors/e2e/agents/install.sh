#!/usr/bin/env bash
# Installs the real agents the real-agent suite drives, at the versions pinned in
# editors/e2e/agents/npm/<agent>/package-lock.json, into the e2e cache:
#   $E2E_HOME/agents/<agent>-<version>/node_modules/.bin/<command>
# and the suite's LSP client (lspclient/, vscode-languageserver-protocol) into
#   $E2E_HOME/agents/lspclient
# Idempotent: an agent whose node_modules match its lock file is skipped; `npm ci`
# (reproducible: exactly the locked tree) runs otherwise. Only the npm registry is
# contacted. E2E_HOME defaults to <repo>/.cache/e2e (COMPACTD_E2E_HOME overrides).
# Usage: install.sh [AGENT...]   AGENT: claude codex gemini opencode qwen kilo (default: claude codex gemini)
# Prints one line per agent: "<agent> <version> <path to its command>".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../setup/lib.sh
. "$here/../setup/lib.sh"
agents=("$@")
[ ${#agents[@]} -gt 0 ] || agents=(claude codex gemini)
command -v npm >/dev/null || { echo "install.sh: npm is not on PATH; install Node.js 20 or later (Debian: apt-get install nodejs npm)" >&2; exit 1; }

# command_of AGENT: the executable the package installs.
command_of() {
  case $1 in
    claude) echo claude ;; codex) echo codex ;; gemini) echo gemini ;; opencode) echo opencode ;;
    qwen) echo qwen ;; kilo) echo kilo ;;
    *) echo "install.sh: unknown agent '$1' (known: claude codex gemini opencode qwen kilo)" >&2; return 64 ;;
  esac
}

t0=$(date +%s)
npm_stage "$here/lspclient" "$E2E_HOME/agents/lspclient"
echo "lspclient $E2E_HOME/agents/lspclient/client.mjs"
for agent in "${agents[@]}"; do
  cmd=$(command_of "$agent")
  src=$here/npm/$agent
  version=$(node -p "Object.values(require('$src/package.json').dependencies)[0]")
  dest=$E2E_HOME/agents/$agent-$version
  if [ -x "$dest/node_modules/.bin/$cmd" ] && cmp -s "$src/package-lock.json" "$dest/node_modules/.e2e-lock"; then
    echo "$agent $version $dest/node_modules/.bin/$cmd (present)"
    continue
  fi
  start=$(date +%s)
  rm -rf "$dest"   # a half-finished or older install
  mkdir -p "$dest"
  cp "$src/package.json" "$src/package-lock.json" "$dest/"
  # `npm ci` installs exactly the locked tree. A lock written where the registry
  # lacks some platforms' optional packages (opencode's) lists only the ones it
  # has, which `npm ci` calls out of sync: then `npm install` over the same lock
  # installs the same locked versions and integrity hashes.
  if ! (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error >"$dest/install.log" 2>&1) &&
     ! { grep -q "from lock file" "$dest/install.log" &&
         (cd "$dest" && npm install --no-audit --no-fund --loglevel=error >>"$dest/install.log" 2>&1); }; then
    echo "install.sh: npm ci of $agent $version failed (log: $dest/install.log):" >&2
    tail -20 "$dest/install.log" >&2
    exit 1
  fi
  if [ ! -x "$dest/node_modules/.bin/$cmd" ]; then
    echo "install.sh: $agent $version installed but $dest/node_modules/.bin/$cmd is missing (its platform package may not exist for $(uname -m))" >&2
    exit 1
  fi
  cp "$src/package-lock.json" "$dest/node_modules/.e2e-lock"
  echo "$agent $version $dest/node_modules/.bin/$cmd (installed in $(( $(date +%s) - start )) s)"
done
echo "install.sh: agents ready in $(( $(date +%s) - t0 )) s (E2E_HOME=$E2E_HOME)" >&2
