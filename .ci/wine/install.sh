#!/usr/bin/env bash
# Unpacks Wine 10 from Debian trixie's .debs into $E2E_HOME/wine, with trixie's own glibc
# (bookworm's 2.36 is too old for it), and creates its prefix. Nothing is installed into the
# system and the system's apt sources are not touched (private apt lists).
#
# Why trixie's Wine 10 and not bookworm's Wine 8: Go's runtime (1.24+) loads
# bcryptprimitives.dll, which Wine 8 lacks (a stub DLL would need mingw-w64, ~300 MB), and
# Wine 8's os.RemoveAll misbehaves; Wine 10 runs Go binaries as they are. Only Wine's core is
# unpacked (wine64, libwine, their loader and libc): its multimedia and GUI dependencies
# (GStreamer, FFmpeg, X11, Vulkan) are never loaded by console programs.
# Usage: install.sh            (idempotent: a finished install is kept)
# Env:   DEBIAN_MIRROR (default: the first Debian archive URI in the system's apt sources)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../editors/e2e/setup/lib.sh
. "$repo/editors/e2e/setup/lib.sh"
DEST=$E2E_HOME/wine
WINE_VERSION=10.0~repack-6
if [ -f "$DEST/.installed-$WINE_VERSION" ]; then
  exit 0
fi
start=$(date +%s)
rm -rf "$DEST"
A=$DEST/.apt
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/debs"
mirror=${DEBIAN_MIRROR:-$({ cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true; } |
  grep -oE 'https?://[^ ]+/debian/?( |$)' | head -1 | tr -d ' ' || true)}
[ -n "$mirror" ] || { echo "no Debian archive found in the apt sources; set DEBIAN_MIRROR" >&2; exit 2; }
echo "deb $mirror trixie main" > "$A/sources.list"
O=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
   -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o "APT::Sandbox::User=$(id -un)")
apt-get "${O[@]}" update -q >/dev/null
(cd "$A/debs" && apt-get "${O[@]}" download "wine64=$WINE_VERSION" "libwine=$WINE_VERSION" \
  "wine64-preloader=$WINE_VERSION" libc6 libgcc-s1 libunwind8 liblzma5 libz-mingw-w64 >/dev/null)
for d in "$A"/debs/*.deb; do dpkg -x "$d" "$DEST/root"; done
rm -rf "$A"
R=$DEST/root
L=$R/usr/lib/x86_64-linux-gnu
# 64-bit programs only: drop the 32-bit Windows side.
rm -rf "$L/wine/i386-windows" "$R/usr/i686-w64-mingw32" "$R/usr/share/doc" "$R/usr/share/man"
# Point the programs at trixie's loader and libs (DT_RPATH is searched for dlopen too).
apt_need patchelf
for b in "$R/usr/lib/wine/wine64" "$R/usr/lib/wine/wineserver64"; do
  patchelf --set-interpreter "$L/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$L" "$b"
done
patchelf --force-rpath --set-rpath "$L" "$L/wine/x86_64-unix/ntdll.so"
# Debian's wineserver script names /usr/lib/wine; user32.dll needs zlib1.dll beside it.
sed -i "s#/usr/lib/wine/#$R/usr/lib/wine/#g" "$R/usr/lib/wine/wineserver"
cp "$R/usr/x86_64-w64-mingw32/lib/zlib1.dll" "$L/wine/x86_64-windows/"
# wineserver looks for its tables under share/wine/wine/nls (found in /usr/share/wine/nls
# only when a system Wine is installed too).
ln -s . "$R/usr/share/wine/wine"
cat > "$DEST/wine" <<W
#!/bin/sh
# Runs a Windows program under the Wine 10 unpacked here, in its own prefix.
export WINEPREFIX="\${WINEPREFIX:-$DEST/prefix}" WINEDEBUG="\${WINEDEBUG:--all}" WINEDLLOVERRIDES="mscoree,mshtml="
exec "$R/usr/lib/wine/wine64" "\$@"
W
cat > "$DEST/wineserver" <<W
#!/bin/sh
export WINEPREFIX="\${WINEPREFIX:-$DEST/prefix}"
exec "$R/usr/lib/wine/wineserver" "\$@"
W
chmod +x "$DEST/wine" "$DEST/wineserver"
# Create the prefix now (about 10 s), not in the first test. Its complaints about a missing
# display and Bluetooth are expected: console programs need neither.
WINEDEBUG=-all "$DEST/wine" wineboot --init >/dev/null 2>&1 || true
"$DEST/wineserver" -w
[ -f "$DEST/prefix/system.reg" ] || { echo "wine: the prefix was not created" >&2; exit 1; }
touch "$DEST/.installed-$WINE_VERSION"
echo "wine: Wine $WINE_VERSION in $DEST ($(du -sh "$DEST" | cut -f1), $(( $(date +%s)-start )) s)"
