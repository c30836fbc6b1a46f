#!/usr/bin/env bash
# `make demo`: runs compactd over a throwaway copy of the bundled example
# workspace (cmd/compactd/testdata/workspace). Nothing outside a temp dir is
# written: HOME, XDG dirs and the store all point into it.
set -euo pipefail
bin=$(cd "$(dirname "${1:?usage: demo.sh path/to/compactd}")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")/testdata/workspace" && pwd)
testdata=$(cd "$(dirname "$0")/testdata" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compactd-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_STATE_HOME=$tmp/home/.local/state \
  XDG_CACHE_HOME=$tmp/home/.cache XDG_DATA_HOME=$tmp/home/.local/share \
  CLAUDE_CONFIG_DIR=$tmp/home/.claude CODEX_HOME=$tmp/home/.codex COMPACTD_STORE=$tmp/store/compactd.db
mkdir -p "$HOME"
cp -R "$src" "$tmp/workspace"
cd "$tmp/workspace"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
# brief: like step, but shows only the first lines of a long output.
brief() {
  printf '\n\033[1m$ %s\033[0m\n' "$*"
  out=$("$@")
  printf '%s\n' "$out" | head -n 24
  n=$(printf '%s\n' "$out" | wc -l)
  [ "$n" -le 24 ] || echo "… ($((n - 24)) more lines)"
}

echo "compactd demo — example workspace copied to $tmp/workspace"
transcripts=$(find . -type f \( -name '*.jsonl' -o -name '*.json' -o -name '*.md' \) ! -name '*.meta.json' | sort)
# shellcheck disable=SC2086
step "$bin" gauge $transcripts

main=claude/session.jsonl
step "$bin" compact --dry-run "$main"
step "$bin" compact "$main"
# The fork is a new Claude Code session beside the original: its gauge.
fork=$(ls -t claude/*.jsonl | grep -v '/session.jsonl$' | head -n 1)
step "$bin" gauge "$fork"
step "$bin" compact --strategy turn-window --keep-last 2 "$main"
step "$bin" history "$main"
brief "$bin" diff "$main" v1 v2
step "$bin" restore "$main" v1
step "$bin" compact codex/rollout.jsonl

# A Claude Code session whose window is nearly full of what the agent sends beside the
# conversation (system prompt, tool and MCP definitions, memory): compaction cannot help.
mkdir -p "$tmp/full"
cp "$testdata/insight/claude-2.1.92-outside.jsonl" "$tmp/full/4b7e2c19-8d3a-4f6e-a1c2-5e9f0d7b3a21.jsonl"
step "$bin" gauge --breakdown ../full/4b7e2c19-8d3a-4f6e-a1c2-5e9f0d7b3a21.jsonl
step "$bin" compact --dry-run ../full/4b7e2c19-8d3a-4f6e-a1c2-5e9f0d7b3a21.jsonl
# Claude Code's statusLine command gets this JSON on stdin.
sed "s|/home/dev/.claude/projects/-home-dev-src-inventory-service/|$tmp/full/|" "$testdata/statusline/payload.json" > "$tmp/payload.json"
printf '\n\033[1m$ %s\033[0m\n' "$bin statusline < payload.json"
"$bin" statusline < "$tmp/payload.json"
step "$bin" doctor
echo
echo "demo: done (original transcripts untouched: $(cd "$src" && find . -type f | wc -l) files, compared below)"
diff -r -q "$src" "$tmp/workspace" | grep -v '^Only in' || echo "demo: no source file was modified"
