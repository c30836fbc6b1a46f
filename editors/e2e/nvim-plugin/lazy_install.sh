#!/usr/bin/env bash
# Installs compactd's Neovim plugin the way a lazy.nvim user does, in a headless Neovim (0.12
# from install.sh; lazy.nvim needs 0.8+): lazy.nvim (vendored in testdata/lazy.nvim, CI
# reaches no GitHub) clones a local clone of this repository, runs the spec's documented
# `build` (go build -o bin/ ./cmd/compactd), and the spec's `config` puts editors/nvim on the
# runtimepath and calls setup. A second Neovim then opens a transcript: the plugin starts the
# binary the build made, and `:checkhealth compactd` must report it, its version, the server
# attached and no error.
# Usage: lazy_install.sh   Env: NVIM (default $E2E_HOME/nvim-sid/nvim), E2E_SKIP_INSTALL=1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../setup/lib.sh
. "$here/../setup/lib.sh"
[ -n "${E2E_SKIP_INSTALL:-}" ] || "$here/../setup/install.sh" --no-vscode >&2
nvim=${NVIM:-$E2E_HOME/nvim-sid/nvim}
tmp=$(mktemp -d)
keep() { echo "   (kept in $tmp)"; }
start=$(date +%s)
# The build step runs Go: keep the machine's module and build caches (HOME moves below).
export GOMODCACHE GOCACHE GOFLAGS=-mod=mod
GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
isolate_home "$tmp"
# A user's clone of the repository (committed state: what they would get).
git clone -q "$REPO_ROOT" "$tmp/src/compactd"
ws=$tmp/workspace; mkdir -p "$ws"
cp "$here/testdata/conversation.jsonl" "$ws/conversation.jsonl"
cat > "$tmp/init.lua" <<LUA
-- A user's init.lua: lazy.nvim (normally bootstrapped from GitHub) and compactd's spec as the
-- README gives it, with the clone's URL in place of 'compactd/compactd'.
vim.opt.rtp:prepend('$here/testdata/lazy.nvim')
require('lazy').setup({
  {
    url = '$tmp/src/compactd',
    name = 'compactd',
    build = 'go build -o bin/ ./cmd/compactd',
    config = function(plugin)
      vim.opt.rtp:append(plugin.dir .. '/editors/nvim')
      require('compactd').setup({})
    end,
  },
}, {
  root = '$tmp/lazy',
  lockfile = '$tmp/lazy-lock.json',
  install = { missing = true },
  checker = { enabled = false },
  change_detection = { enabled = false },
  rocks = { enabled = false },
})
LUA
# 1. Install: lazy clones and builds (what :Lazy install does on a first start).
if ! timeout 600 "$nvim" --headless -u "$tmp/init.lua" -i NONE -n '+Lazy! install' '+qa' >"$tmp/install.log" 2>&1; then
  echo "lazy.nvim: FAIL install"; cat "$tmp/install.log"; keep; exit 1
fi
bin=$tmp/lazy/compactd/bin/compactd
if [ ! -x "$bin" ]; then
  echo "lazy.nvim: FAIL the build step made no $bin"; cat "$tmp/install.log"; keep; exit 1
fi
echo "lazy.nvim: installed and built ($("$bin" version)) in $(( $(date +%s)-start )) s"
# 2. Use: open a transcript, wait for the gauge, :checkhealth compactd.
cat > "$tmp/check.lua" <<'LUA'
local ok_all = true
local function check(what, cond, detail)
  io.stdout:write(('lazy.nvim: %s %s\n'):format(cond and 'ok  ' or 'FAIL', what))
  if not cond then ok_all = false; if detail then io.stdout:write(detail .. '\n') end end
end
local compactd = require('compactd')
local attached = vim.wait(20000, function()
  local c = compactd.client(); return c ~= nil and compactd.statusline() ~= ''
end, 50)
check('the plugin started the server and shows a gauge: ' .. compactd.statusline(), attached)
check('the server is the binary the build made', compactd.server_cmd()[1] == vim.env.E2E_BUILT_BIN, vim.inspect(compactd.server_cmd()))
local messages = vim.fn.execute('messages')
check('the server took the settings (no "settings were ignored")', messages:find('ignored', 1, true) == nil, messages)
vim.cmd('checkhealth compactd')
local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check(':checkhealth compactd names the built binary and its version',
  health:find(vim.env.E2E_BUILT_BIN, 1, true) ~= nil and health:find('compactd 0%.%d+%.%d+') ~= nil, health)
check(':checkhealth compactd: the server attached', health:find('running (client', 1, true) ~= nil, health)
check(':checkhealth compactd: no error or warning', health:find('ERROR') == nil and health:find('WARNING') == nil, health)
vim.cmd(ok_all and 'qa!' or 'cquit 1')
LUA
if (cd "$ws" && E2E_BUILT_BIN=$bin timeout 120 "$nvim" --headless -u "$tmp/init.lua" -i NONE -n conversation.jsonl \
    -c "luafile $tmp/check.lua"); then
  echo "lazy.nvim: 1 passed, 0 failed ($(( $(date +%s)-start )) s)"
  rm -rf "$tmp"
else
  echo "lazy.nvim: 0 passed, 1 failed"; keep; exit 1
fi
