#!/usr/bin/env bash
# Unpacks a newer Neovim from a newer Debian suite's .debs into DEST, with that suite's own
# glibc (bookworm's 2.36 is too old for it), and writes the launcher DEST/nvim. The binary is
# patchelf'ed to use that glibc's loader. Nothing is installed into the system and the
# system's apt sources are not touched (private apt lists under DEST/.apt).
# Usage: get_newer_nvim.sh [SUITE] [DEST]   SUITE: trixie (0.10.x, default) | sid (0.12.x)
#        DEST defaults to $E2E_HOME/nvim-SUITE, where run_all.sh looks for it.
# Env:   DEBIAN_MIRROR (default: the first Debian archive URI in the system's apt sources)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$here/lib.sh"
SUITE=${1:-trixie}
DEST=${2:-$E2E_HOME/nvim-$SUITE}
mkdir -p "$DEST" && DEST=$(cd "$DEST" && pwd)
A=$DEST/.apt
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/debs"
# The machine's own Debian archive (deb822 or one-line sources), unless DEBIAN_MIRROR is set.
mirror=${DEBIAN_MIRROR:-$({ cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true; } |
  grep -oE 'https?://[^ ]+/debian/?( |$)' | head -1 | tr -d ' ' || true)}
[ -n "$mirror" ] || { echo "no Debian archive found in the apt sources; set DEBIAN_MIRROR" >&2; exit 2; }
echo "deb $mirror $SUITE main" > "$A/sources.list"
O=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
   -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o "APT::Sandbox::User=$(id -un)")
apt-get "${O[@]}" update -q >/dev/null
# neovim's full dependency closure from that suite (libc6 included).
mapfile -t pkgs < <(apt-cache "${O[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
        --no-breaks --no-replaces --no-enhances neovim | grep -E '^[a-z0-9]' | sort -u)
(cd "$A/debs" && apt-get "${O[@]}" download "${pkgs[@]}" >/dev/null)
for d in "$A"/debs/*.deb; do dpkg -x "$d" "$DEST"; done
# Point the binary at the suite's own loader + libs (DT_RPATH is searched transitively).
# Not an `ld.so --library-path nvim` wrapper: nvim >= 0.10 re-executes /proc/self/exe
# with --embed for its TUI, which would then be ld.so ("unrecognized option '--embed'").
apt_need patchelf
L="$DEST/usr/lib/x86_64-linux-gnu"
patchelf --set-interpreter "$L/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$L" "$DEST/usr/bin/nvim"
cat > "$DEST/nvim" <<W
#!/bin/sh
export VIMRUNTIME="$DEST/usr/share/nvim/runtime"
exec "$DEST/usr/bin/nvim" "\$@"
W
chmod +x "$DEST/nvim"
"$DEST/nvim" --version | head -1
