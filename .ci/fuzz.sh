#!/usr/bin/env bash
# Runs every Fuzz* target in the module for the given time each (Go's fuzzer
# takes one target per invocation).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-10s}
n=0
while IFS= read -r file; do
  pkg=./$(dirname "$file")
  for target in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
    echo "fuzz: $pkg $target ($fuzztime)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >/tmp/compactd-fuzz.log 2>&1 || { cat /tmp/compactd-fuzz.log; exit 1; }
    n=$((n+1))
  done
done < <(grep -rlE '^func Fuzz' --include='*_test.go' cmd daemon lsp compaction | sort)
echo "fuzz: $n targets passed, 0 failed"
