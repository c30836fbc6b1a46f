#!/usr/bin/env bash
# Installs compactd's Neovim plugin from a local clone of this repository the way a plugin
# manager user does, in a headless Neovim 0.12 (from install.sh), with the spec the README
# and :help compactd-install give:
#   pack  (default) Neovim's own plugin manager, vim.pack: it clones the repository, a
#         PackChanged autocmd runs the documented build (go build -o bin/ ./cmd/compactd),
#         and `load` puts editors/nvim on the runtimepath;
#   lazy  lazy.nvim, with the same build and config; lazy.nvim itself is not part of this
#         repository (CI reaches no GitHub): point LAZY_NVIM_DIR at a checkout of it.
# A second Neovim then opens a transcript: the plugin must start the binary the build made,
# show a gauge, and `:checkhealth compactd` must report the binary, its version, the server
# attached and no error or warning.
# Usage: plugin_manager_install.sh [pack|lazy]
# Env: NVIM (default $E2E_HOME/nvim-sid/nvim), LAZY_NVIM_DIR (for lazy), E2E_SKIP_INSTALL=1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../setup/lib.sh
. "$here/../setup/lib.sh"
manager=${1:-pack}
case $manager in
  pack) ;;
  lazy) [ -f "${LAZY_NVIM_DIR:-}/lua/lazy/init.lua" ] || {
          echo "plugin_manager_install.sh: lazy needs LAZY_NVIM_DIR, a checkout of folke/lazy.nvim" >&2; exit 64; } ;;
  *) echo "usage: $0 [pack|lazy]" >&2; exit 64 ;;
esac
[ -n "${E2E_SKIP_INSTALL:-}" ] || "$here/../setup/install.sh" --no-vscode >&2
nvim=${NVIM:-$E2E_HOME/nvim-sid/nvim}
tmp=$(mktemp -d)
keep() { echo "   (kept in $tmp)"; }
start=$(date +%s)
# The build step runs Go: keep the machine's module and build caches (HOME moves below).
export GOMODCACHE GOCACHE GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod"   # make test's -trimpath kept: the build is cached
GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
isolate_home "$tmp"
# A user's clone of the repository (committed state: what they would get).
git clone -q "$REPO_ROOT" "$tmp/src/compactd"
ws=$tmp/workspace; mkdir -p "$ws"
cp "$here/testdata/conversation.jsonl" "$ws/conversation.jsonl"
# The user's init.lua: the spec as documented, with the clone's URL in place of GitHub's.
src=$tmp/src/compactd
if [ "$manager" = pack ]; then
  plugin_dir=$XDG_DATA_HOME/nvim/site/pack/core/opt/compactd
  cat > "$tmp/init.lua" <<LUA
vim.api.nvim_create_autocmd('PackChanged', { callback = function(ev)
  local data = ev.data
  if data.spec.name == 'compactd' and (data.kind == 'install' or data.kind == 'update') then
    vim.system({ 'go', 'build', '-o', 'bin/', './cmd/compactd' }, { cwd = data.path }):wait()
  end
end })
vim.pack.add({ { src = '$src', name = 'compactd' } }, {
  confirm = false,
  load = function(plugin) vim.opt.rtp:append(plugin.path .. '/editors/nvim') end,
})
require('compactd').setup({})
LUA
  install_cmd=()   # vim.pack installs while init.lua runs
else
  plugin_dir=$tmp/lazy/compactd
  cat > "$tmp/init.lua" <<LUA
vim.opt.rtp:prepend('$LAZY_NVIM_DIR')
require('lazy').setup({
  {
    url = '$src',
    name = 'compactd',
    build = 'go build -o bin/ ./cmd/compactd',
    config = function(plugin)
      vim.opt.rtp:append(plugin.dir .. '/editors/nvim')
      require('compactd').setup({})
    end,
  },
}, {
  root = '$tmp/lazy', lockfile = '$tmp/lazy-lock.json', install = { missing = true },
  checker = { enabled = false }, change_detection = { enabled = false }, rocks = { enabled = false },
})
LUA
  install_cmd=('+Lazy! install')
fi
# 1. Install: the manager clones and builds on a first start.
if ! timeout 600 "$nvim" --headless -u "$tmp/init.lua" -i NONE -n "${install_cmd[@]}" '+qa' >"$tmp/install.log" 2>&1; then
  echo "$manager: FAIL install"; cat "$tmp/install.log"; keep; exit 1
fi
bin=$plugin_dir/bin/compactd
if [ ! -x "$bin" ]; then
  echo "$manager: FAIL the build step made no $bin"; cat "$tmp/install.log"; keep; exit 1
fi
echo "$manager: installed and built ($("$bin" version)) in $(( $(date +%s)-start )) s"
# 2. Use: open a transcript, wait for the gauge, :checkhealth compactd.
cat > "$tmp/check.lua" <<'LUA'
local ok_all = true
local manager = vim.env.E2E_MANAGER
local function check(what, cond, detail)
  io.stdout:write(('%s: %s %s\n'):format(manager, cond and 'ok  ' or 'FAIL', what))
  if not cond then ok_all = false; if detail then io.stdout:write(detail .. '\n') end end
end
local compactd = require('compactd')
local attached = vim.wait(20000, function()
  local c = compactd.client(); return c ~= nil and compactd.statusline():find('%d+k? / %d+k? · %d+ %%') ~= nil
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
if (cd "$ws" && E2E_MANAGER=$manager E2E_BUILT_BIN=$bin timeout 120 "$nvim" --headless -u "$tmp/init.lua" -i NONE -n conversation.jsonl \
    -c "luafile $tmp/check.lua"); then
  echo "$manager: 1 passed, 0 failed ($(( $(date +%s)-start )) s)"
  rm -rf "$tmp"
else
  echo "$manager: 0 passed, 1 failed"; keep; exit 1
fi
