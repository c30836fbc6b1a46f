#!/usr/bin/env bash
# Runs every Fuzz* target in the module for the given time each (Go's fuzzer
# takes one target per invocation), two at a time on two fuzzing workers.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-10s}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
targets=()
while IFS= read -r file; do
  pkg=./$(dirname "$file")
  for target in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
    targets+=("$pkg $target")
  done
done < <(grep -rlE '^func Fuzz' --include='*_test.go' cmd daemon lsp compaction | sort)

run_one() {
  local pkg=$1 target=$2 fuzztime=$3 logs=$4
  local log="$logs/$(echo "$pkg-$target" | tr '/.' '__').log"
  if go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -parallel=1 "$pkg" >"$log" 2>&1; then
    echo "fuzz: ok   $pkg $target ($fuzztime)"
  else
    echo "fuzz: FAIL $pkg $target"; cat "$log"; return 1
  fi
}
export -f run_one
failed=0
printf '%s\n' "${targets[@]}" | xargs -P 2 -L 1 bash -c 'run_one "$0" "$1" "'"$fuzztime"'" "'"$logs"'"' || failed=1
n=${#targets[@]}
if [ "$failed" -ne 0 ]; then
  echo "fuzz: some of $n targets failed (see above)"
  exit 1
fi
echo "fuzz: $n passed, 0 failed"
