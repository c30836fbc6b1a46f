#!/usr/bin/env bash
# Builds the VSIX: npm ci, type check, esbuild bundle, the platform's compactd binary copied
# into bin/<platform>-<arch>/, vsce package (@vscode/vsce 3.9.x runs on Node 20).
# Usage: build.sh [BIN]   BIN: the compactd binary to bundle (default <repo>/bin/compactd,
#                         built with `go build` when missing); NO_BUNDLE=1 packages without one.
# Env:   TARGET: a VS Code target (linux-x64, darwin-arm64, win32-x64, …): BIN is that
#        platform's binary, and the VSIX is platform-specific (vsce package --target);
#        default: the build machine's platform, a VSIX for any platform.
#        OUT: where the VSIX goes (default editors/vscode/compactd.vsix).
#        NO_COMPILE=1: package the dist/extension.js already built.
#        DEPS_ONLY=1: install the npm tree (npm ci, when package-lock.json changed) and stop.
# Only the npm registry is contacted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$here"
if [ ! -d node_modules ] || ! cmp -s package-lock.json node_modules/.compactd-lock; then
  npm ci --no-audit --no-fund
  cp package-lock.json node_modules/.compactd-lock
fi
# DEPS_ONLY=1: only the npm tree (make test installs it ahead, with the other installs).
[ -z "${DEPS_ONLY:-}" ] || exit 0
# NO_COMPILE=1: dist/extension.js is already built (make dist packages six targets from one build).
if [ -z "${NO_COMPILE:-}" ]; then
  npm run -s typecheck
  node check_webview.mjs   # the webview pages' scripts are strings to tsc: parse them
  npm run -s compile
fi
rm -rf bin
if [ -z "${NO_BUNDLE:-}" ]; then
  bin=${1:-$repo/bin/compactd}
  if [ ! -x "$bin" ]; then (cd "$repo" && go build -o bin/compactd ./cmd/compactd); bin=$repo/bin/compactd; fi
  # Node's names (process.platform-process.arch), which the extension looks up at run time
  # (src/server.ts bundledPath); they are also vsce's target names.
  if [ -n "${TARGET:-}" ]; then
    plat=${TARGET%%-*} arch=${TARGET#*-}
  else
    goos=$(go env GOOS 2>/dev/null || uname -s | tr A-Z a-z); goarch=$(go env GOARCH 2>/dev/null || uname -m)
    case $goos in windows) plat=win32;; *) plat=$goos;; esac
    case $goarch in amd64|x86_64) arch=x64;; 386) arch=ia32;; aarch64) arch=arm64;; *) arch=$goarch;; esac
  fi
  exe=compactd; [ "$plat" = win32 ] && exe=compactd.exe
  mkdir -p "bin/$plat-$arch"
  cp "$bin" "bin/$plat-$arch/$exe"
  chmod +x "bin/$plat-$arch/$exe"
fi
out=${OUT:-$here/compactd.vsix}
npx --no-install vsce package --no-dependencies ${TARGET:+--target "$TARGET"} -o "$out"
echo "built $out ($(du -h "$out" | cut -f1))"
