#!/usr/bin/env bash
# Sourced by every editor e2e script (bash). Sets E2E_HOME, the one place for installs,
# caches and outputs (nothing is written next to the sources), and defines small helpers.
# Default: <repo>/.cache/e2e (ignored by git), so CI can cache one folder.
_e2e_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
: "${COMPACTD_E2E_HOME:=$_e2e_repo/.cache/e2e}"
E2E_HOME=${E2E_HOME:-$COMPACTD_E2E_HOME}
mkdir -p "$E2E_HOME"
E2E_HOME=$(cd "$E2E_HOME" && pwd)
export E2E_HOME COMPACTD_E2E_HOME=$E2E_HOME
REPO_ROOT=$_e2e_repo

# argv_json ARG...: prints the arguments as a JSON array of strings.
argv_json() {
  local a e json='['
  for a in "$@"; do e=${a//\\/\\\\}; e=${e//\"/\\\"}; json+="\"$e\","; done
  printf '%s]\n' "${json%,}"
}

# apt_need PKG...: installs the Debian packages that are missing (needs root or sudo).
apt_need() {
  local p missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing Debian packages: ${missing[*]}" >&2
  local sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  # make test installs in the background while other steps may install too: wait for dpkg's
  # lock rather than fail on it.
  local lock=(-o DPkg::Lock::Timeout=900)
  if ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get "${lock[@]}" install -y -q "${missing[@]}" >/dev/null; then
    # A fresh machine (or container) may have no package lists yet.
    "${sudo[@]}" apt-get "${lock[@]}" update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get "${lock[@]}" install -y -q "${missing[@]}" >/dev/null
  fi
}

# npm_stage SRC DEST: copies the npm project SRC (without node_modules and build outputs) to
# DEST and runs `npm ci` there when its package-lock.json changed since the last install.
# Node resolves imports from the importing file's folder, so the scripts run from DEST.
npm_stage() {
  local src=$1 dest=$2
  mkdir -p "$dest"
  (cd "$src" && tar cf - --exclude=node_modules --exclude=dist --exclude=out --exclude=bin --exclude='*.vsix' .) | (cd "$dest" && tar xf -)
  if [ ! -d "$dest/node_modules" ] || ! cmp -s "$dest/package-lock.json" "$dest/node_modules/.e2e-lock"; then
    (cd "$dest" && npm ci --no-audit --no-fund >&2) && cp "$dest/package-lock.json" "$dest/node_modules/.e2e-lock"
  fi
}

# isolate_home DIR: points HOME, XDG_*, CLAUDE_CONFIG_DIR, CODEX_HOME and COMPACTD_STORE at
# fresh folders under DIR, so no test ever reads or writes the real home.
isolate_home() {
  local d=$1
  mkdir -p "$d/home" "$d/xdg/config" "$d/xdg/data" "$d/xdg/state" "$d/xdg/cache" "$d/xdg/run" "$d/claude" "$d/codex" "$d/store"
  chmod 700 "$d/xdg/run"
  export HOME=$d/home XDG_CONFIG_HOME=$d/xdg/config XDG_DATA_HOME=$d/xdg/data XDG_STATE_HOME=$d/xdg/state \
    XDG_CACHE_HOME=$d/xdg/cache XDG_RUNTIME_DIR=$d/xdg/run CLAUDE_CONFIG_DIR=$d/claude CODEX_HOME=$d/codex \
    COMPACTD_STORE=$d/store/compactd.db
}
