#!/usr/bin/env bash
# What a person sees: Neovim's real TUI in a private tmux server with the plugin loaded,
# driven with send-keys and read with capture-pane: the gauge in the statusline, the hover
# float, the code-action menu, and the new gauge after "Compact conversation".
# Usage: tmux_ui.sh WORKDIR   (run.sh calls it; needs COMPACTD_CMD_JSON, E2E_PLUGIN_DIR)
# Env: NVIM, E2E_SETTINGS_JSON, E2E_GAUGE_RE (ERE), E2E_HOVER_RE (ERE), OUT_DIR (screens).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1; mkdir -p "$work/workspace"
OUT=${OUT_DIR:-$work/screens}; mkdir -p "$OUT"
GAUGE_RE=${E2E_GAUGE_RE:-[0-9.]+[kM]? / [0-9.]+[kM]? · [0-9]+ %}
HOVER_RE=${E2E_HOVER_RE:-[Tt]okens}
ACTION='Compact conversation'
file=$work/workspace/conversation.jsonl
cp "$here/testdata/conversation.jsonl" "$file"
cat > "$work/setup.lua" <<'LUA'
vim.opt.rtp:prepend(os.getenv('E2E_PLUGIN_DIR'))
vim.o.laststatus = 2
vim.o.statusline = "%f %=%{v:lua.require'compactd'.statusline()}"
require('compactd').setup({
  cmd = vim.json.decode(os.getenv('COMPACTD_CMD_JSON')),
  settings = vim.json.decode(os.getenv('E2E_SETTINGS_JSON') or '{}'),
})
LUA
# -L: a private tmux server that starts with exactly this environment (isolated HOME etc.);
# a tmux the user already runs is not touched.
T=(tmux -L "compactd-nvim-$$")
cleanup() { "${T[@]}" kill-server 2>/dev/null || true; }
trap cleanup EXIT
t0=$(date +%s%N)
(cd "$work/workspace" && E2E_SETUP=$work/setup.lua "${T[@]}" -f /dev/null new-session -d -s e2e -x 140 -y 40 \
  "${NVIM:-nvim}" -u NONE -i NONE -n --cmd 'lua dofile(os.getenv("E2E_SETUP"))' "$file")
cap() { "${T[@]}" capture-pane -p -t e2e; }
ms() { echo $(( ($(date +%s%N) - t0) / 1000000 )); }
waitre() { # waitre REGEX NAME: poll the screen up to 20 s
  for _ in $(seq 1 200); do
    "${T[@]}" has-session -t e2e 2>/dev/null || { echo "FAIL: $2: nvim exited"; exit 1; }
    if cap | grep -Eq "$1"; then return 0; fi; sleep 0.1
  done
  cap > "$OUT/fail-$2.txt"; echo "FAIL: $2 (screen in $OUT/fail-$2.txt)"; exit 1; }
waitre "$GAUGE_RE" gauge; echo "ok gauge in statusline ($(ms) ms)"; cap > "$OUT/1-gauge.txt"
before=$(grep -Eo "$GAUGE_RE" "$OUT/1-gauge.txt" | tail -1)
"${T[@]}" send-keys -t e2e '6j' ':lua vim.lsp.buf.hover()' Enter
waitre "$HOVER_RE" hover; echo "ok hover float ($(ms) ms)"; cap > "$OUT/2-hover.txt"
"${T[@]}" send-keys -t e2e Escape 'gg' ':lua vim.lsp.buf.code_action()' Enter
waitre "$ACTION" codeaction-menu; echo "ok code action menu ($(ms) ms)"; cap > "$OUT/3-menu.txt"
# vim.ui.select's default is inputlist ("1: title"): type the entry's number.
n=$(cap | grep -E "^[0-9]+: .*$ACTION" | head -1 | cut -d: -f1 || true); n=${n:-1}
"${T[@]}" send-keys -t e2e "$n" Enter
now=""
for _ in $(seq 1 200); do now=$(cap | grep -Eo "$GAUGE_RE" | tail -1 || true); [ -n "$now" ] && [ "$now" != "$before" ] && break; sleep 0.1; done
cap > "$OUT/4-after-compact.txt"
[ "$now" != "$before" ] || { echo "FAIL: gauge did not change after compaction ($before)"; exit 1; }
echo "ok compacted: statusline gauge $before -> $now ($(ms) ms)"
"${T[@]}" send-keys -t e2e ':qa!' Enter
echo "tmux-ui: PASS ($(ms) ms, screens in $OUT)"
