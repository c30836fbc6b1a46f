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

# run_one fuzzes one target. Go's coordinator can end a -fuzztime run with a
# bare "context deadline exceeded" when a starved worker misses the stop
# deadline (golang/go#75804): no input failed and none is written. That
# outcome, and only that, is run once more; a second one, a written
# failing input, a panic or any other error fails the target.
run_one() {
  local pkg=$1 target=$2 fuzztime=$3 logs=$4
  local log="$logs/$(echo "$pkg-$target" | tr '/.' '__').log"
  local try
  for try in 1 2; do
    if go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -parallel=1 "$pkg" >"$log" 2>&1; then
      echo "fuzz: ok   $pkg $target ($fuzztime)"
      return 0
    fi
    if [ "$try" -eq 1 ] && grep -q 'context deadline exceeded' "$log" && ! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$log"; then
      echo "fuzz: again $pkg $target (the coordinator missed its deadline; no failing input)"
      continue
    fi
    break
  done
  echo "fuzz: FAIL $pkg $target"; cat "$log"; return 1
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
