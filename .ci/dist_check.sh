#!/usr/bin/env bash
# Checks make dist's output (bin/dist): every archive and VSIX holds a binary of its own OS
# and architecture (file(1)), each VSIX is marked for its target and holds its binary where
# the extension looks for it on that platform (src/server.ts bundledPath, run for each target),
# the checksums verify, and the Linux binary reports the stamped version.
# Usage: dist_check.sh [DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../editors/e2e/setup/lib.sh
. "$repo/editors/e2e/setup/lib.sh"
apt_need file unzip
dir=${1:-$repo/bin/dist}
version=$(cat "$dir/VERSION")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
ok() { pass=$((pass+1)); echo "dist check: ok   $*"; }
bad() { fail=$((fail+1)); echo "dist check: FAIL $*"; }
# kind TARGET: what file(1) says of a binary for TARGET (Node's platform-arch names).
kind() {
  case $1 in
    linux-x64) echo 'ELF 64-bit LSB executable, x86-64';;
    linux-arm64) echo 'ELF 64-bit LSB executable, ARM aarch64';;
    darwin-x64) echo 'Mach-O 64-bit x86_64 executable';;
    darwin-arm64) echo 'Mach-O 64-bit arm64 executable';;
    win32-x64) echo 'PE32+ executable (console) x86-64';;
    win32-arm64) echo 'PE32+ executable (console) Aarch64';;
  esac
}
node_name() { # linux-amd64 -> linux-x64
  local os=${1%-*} arch=${1#*-}
  [ "$os" = windows ] && os=win32
  [ "$arch" = amd64 ] && arch=x64
  echo "$os-$arch"
}
(cd "$dir" && sha256sum --quiet -c SHA256SUMS) && ok "SHA256SUMS verifies" || bad "SHA256SUMS does not verify"

# Archives.
for a in "$dir"/compactd-"$version"-*.tar.gz "$dir"/compactd-"$version"-*.zip; do
  name=$(basename "$a"); name=${name%.tar.gz}; name=${name%.zip}
  plat=${name#compactd-"$version"-}; t=$(node_name "$plat")
  mkdir -p "$tmp/a/$plat"
  case $a in *.zip) unzip -q "$a" -d "$tmp/a/$plat";; *) tar -C "$tmp/a/$plat" -xzf "$a";; esac
  exe=$tmp/a/$plat/$name/compactd; [ "${t%%-*}" = win32 ] && exe=$exe.exe
  if [ -f "$exe" ] && file -b "$exe" | grep -qF "$(kind "$t")"; then ok "$(basename "$a"): $(file -b "$exe" | cut -d, -f1-2)"
  else bad "$(basename "$a"): no $(kind "$t") binary ($(file -b "$exe" 2>&1 | cut -c1-80))"; fi
  [ -f "$tmp/a/$plat/$name/README.md" ] && [ -f "$tmp/a/$plat/$name/LICENSE" ] || bad "$(basename "$a"): README.md or LICENSE missing"
done
host=$tmp/a/$(go env GOOS)-$(go env GOARCH)/compactd-$version-$(go env GOOS)-$(go env GOARCH)/compactd
if [ -x "$host" ]; then
  v=$("$host" version)
  case $v in "compactd $version "*) ok "the binary reports its version: $v";; *) bad "compactd version says \"$v\", want $version";; esac
fi

# Where the extension looks for its binary on each platform: src/server.ts itself, bundled
# for Node (it imports only fs and path).
ext=$repo/editors/vscode
(cd "$ext" && npx --no-install esbuild src/server.ts --bundle --platform=node --format=cjs --outfile="$tmp/server.js" --log-level=warning)
for v in "$dir"/compactd-"$version"-*.vsix; do
  t=$(basename "$v" .vsix); t=${t#compactd-"$version"-}
  mkdir -p "$tmp/v/$t"; unzip -q "$v" -d "$tmp/v/$t"
  want=$(node -e 'const s=require(process.argv[1]); const [p,a]=process.argv[3].split("-"); process.stdout.write(require("path").relative(process.argv[2], s.bundledPath(process.argv[2], p, a)))' "$tmp/server.js" "$tmp/v/$t/extension" "$t")
  bins=$(cd "$tmp/v/$t/extension" && find bin -type f | sort | tr '\n' ' ')
  exe=$tmp/v/$t/extension/$want
  if [ "$bins" = "$want " ] && file -b "$exe" | grep -qF "$(kind "$t")"; then ok "$(basename "$v"): $want is $(file -b "$exe" | cut -d, -f1-2)"
  else bad "$(basename "$v"): the extension looks for $want; the VSIX holds [$bins] ($(file -b "$exe" 2>&1 | cut -c1-80))"; fi
  grep -q "TargetPlatform=\"$t\"" "$tmp/v/$t/extension.vsixmanifest" && ok "$(basename "$v"): marked for $t" || bad "$(basename "$v"): not marked TargetPlatform=$t"
done
echo "dist check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
