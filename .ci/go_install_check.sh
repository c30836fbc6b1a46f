#!/usr/bin/env bash
# Checks that `go install github.com/compactd/compactd/cmd/compactd@VERSION` works: the
# committed tree (HEAD) is served as that module version from a module proxy in a temp folder
# (the layout and zip the Go module proxy serves for a tag), and go install fetches, verifies
# and builds it in module mode — the module path, the absence of replace directives, the
# zip's limits (no nested module inside it) and the main package all have to be right.
# Usage: go_install_check.sh [VERSION]   (default v0.0.0-test.g<commit>; nothing is published)
# The version names the commit: the module cache keeps what it fetched by version, so a fixed
# version would be served from the cache as the tree was the first time it was checked (the
# check then tested that stale copy). What this run put in the module cache is removed after.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
version=${1:-v0.0.0-test.g$(git -C "$repo" rev-parse --short=12 HEAD)}
mod=$(cd "$repo" && go list -m)
tmp=$(mktemp -d)
modcache=$(go env GOMODCACHE)
cleanup() {
  rm -rf "$tmp"
  for p in "$modcache/$mod@$version" "$modcache/cache/download/$mod/@v/$version".*; do
    [ -e "$p" ] || continue
    chmod -R u+w "$p" && rm -rf "$p"
  done
}
trap cleanup EXIT
start=$(date +%s)
d=$tmp/proxy/$mod/@v
mkdir -p "$d"
# The zip Go builds for a version: every file of the module at HEAD under MODULE@VERSION/,
# without the folders that hold a go.mod of their own (other modules).
(cd "$repo" && git archive --format=zip --prefix="$mod@$version/" -o "$d/$version.zip" HEAD)
nested=$(cd "$repo" && git ls-files '*/go.mod' | xargs -r -n1 dirname)
for n in $nested; do zip -qd "$d/$version.zip" "$mod@$version/$n/*" >/dev/null; done
git -C "$repo" show HEAD:go.mod > "$d/$version.mod"
printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(git -C "$repo" log -1 --format=%cI HEAD)" > "$d/$version.info"
echo "$version" > "$d/list"
if grep -qE '^\s*replace\b' "$d/$version.mod"; then echo "go install: FAIL go.mod has replace directives (go install pkg@version refuses them)"; exit 1; fi
# Dependencies come from the usual proxy (or the module cache); ours from the temp proxy,
# not checked against the public checksum database (it was never published). -trimpath (and
# the caller's CGO_ENABLED): the build settings make test compiles everything with, so only
# compactd's own packages are compiled again; the check is of the module, not of the flags.
export GOPROXY="file://$tmp/proxy,$(go env GOPROXY)" GONOSUMDB=$mod GOFLAGS=-trimpath GOBIN=$tmp/bin
if ! (cd "$tmp" && go install "$mod/cmd/compactd@$version") >"$tmp/log" 2>&1; then
  echo "go install: FAIL go install $mod/cmd/compactd@$version"; cat "$tmp/log"; exit 1
fi
out=$("$tmp/bin/compactd" version)
case $out in *"module $version"*) ;; *) echo "go install: FAIL compactd version says \"$out\", not module $version"; exit 1;; esac
echo "go install: ok   go install $mod/cmd/compactd@$version → $out ($(( $(date +%s)-start )) s)"
