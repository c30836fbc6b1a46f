#!/usr/bin/env bash
# make dist: the release's packages, in bin/dist/:
#   compactd-VERSION-OS-ARCH.tar.gz (.zip for Windows) for linux, darwin and windows on amd64
#   and arm64: the binary (CGO off, -trimpath, version stamped), README.md and LICENSE;
#   compactd-VERSION-TARGET.vsix for the six VS Code targets (vsce package --target), each
#   bundling that platform's binary in bin/TARGET/ where the extension looks for it;
#   SHA256SUMS over all twelve.
# Then checks them (.ci/dist_check.sh) and that go install …/cmd/compactd@VERSION works
# (.ci/go_install_check.sh). VERSION: $VERSION, else the tag v* at HEAD without
# its v, else lsp.Version-dev+<commit> (e.g. 0.1.0-dev+5b48ee3).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../editors/e2e/setup/lib.sh
. "$repo/editors/e2e/setup/lib.sh"
apt_need zip
cd "$repo"
base=$(sed -n 's/^var Version = "\(.*\)"$/\1/p' lsp/lifecycle.go)
[ -n "$base" ] || { echo "dist: no var Version in lsp/lifecycle.go" >&2; exit 2; }
if [ -z "${VERSION:-}" ]; then
  if tag=$(git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null); then
    VERSION=${tag#v}
  else
    VERSION=$base-dev+$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  fi
fi
# One version for the extension and the binary: package.json holds the base version (the
# Marketplace takes major.minor.patch only).
ext_version=$(node -p 'require("./editors/vscode/package.json").version')
[ "$ext_version" = "$base" ] || { echo "dist: editors/vscode/package.json is $ext_version but lsp.Version is $base; make them one" >&2; exit 1; }
out=$repo/bin/dist
rm -rf "$out"; mkdir -p "$out"
start=$(date +%s)
for p in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
  goos=${p%/*} goarch=${p#*/}
  name=compactd-$VERSION-$goos-$goarch
  exe=compactd; [ "$goos" = windows ] && exe=compactd.exe
  mkdir -p "$out/$name"
  GOOS=$goos GOARCH=$goarch CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X github.com/compactd/compactd/lsp.Version=$VERSION" -o "$out/$name/$exe" ./cmd/compactd
  cp README.md "$out/$name/"
  cp editors/vscode/LICENSE "$out/$name/LICENSE"
  if [ "$goos" = windows ]; then
    (cd "$out" && rm -f "$name.zip" && zip -qr "$name.zip" "$name")
  else
    tar -C "$out" -czf "$out/$name.tar.gz" "$name"
  fi
  echo "dist: $name ($(du -h "$out/$name/$exe" | cut -f1))"
done
# VS Code: one VSIX per target, each with its platform's binary (Node's platform-arch names).
for t in linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64; do
  case $t in
    linux-x64) d=linux-amd64;; linux-arm64) d=linux-arm64;;
    darwin-x64) d=darwin-amd64;; darwin-arm64) d=darwin-arm64;;
    win32-x64) d=windows-amd64;; win32-arm64) d=windows-arm64;;
  esac
  exe=compactd; [ "${t%%-*}" = win32 ] && exe=compactd.exe
  compiled=${compiled:-}
  NO_COMPILE=$compiled TARGET=$t OUT="$out/compactd-$VERSION-$t.vsix" editors/vscode/build.sh "$out/compactd-$VERSION-$d/$exe" >/dev/null
  compiled=1
  echo "dist: compactd-$VERSION-$t.vsix ($(du -h "$out/compactd-$VERSION-$t.vsix" | cut -f1))"
done
for p in "$out"/compactd-"$VERSION"-*/; do rm -rf "$p"; done
(cd "$out" && sha256sum -- *.tar.gz *.zip *.vsix > SHA256SUMS)
echo "$VERSION" > "$out/VERSION"
echo "dist: $(ls "$out" | grep -c -E '\.(tar\.gz|zip)$') archives, $(ls "$out" | grep -c '\.vsix$') VSIXes, SHA256SUMS in $out ($(( $(date +%s)-start )) s)"
bash .ci/dist_check.sh "$out"
# And the Go way: go install github.com/compactd/compactd/cmd/compactd@VERSION from a proxy.
bash .ci/go_install_check.sh
