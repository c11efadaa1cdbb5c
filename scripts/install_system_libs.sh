#!/usr/bin/env bash
# System libraries Qt 6 needs on Debian/Ubuntu that pip cannot provide (offscreen and X11).
# Idempotent: installs only what is missing. Needs root or sudo; elsewhere it says what to do.
set -euo pipefail
PKGS="libegl1 libgl1 libglib2.0-0 libfontconfig1 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0
libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-randr0 libxcb-render-util0
libxcb-shape0 libxcb-xinerama0 libxcb-xfixes0 libxcb-xkb1"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "not a Debian-like system: install the Qt 6 runtime libraries with your package manager"
  exit 0
fi
missing=""
for p in $PKGS; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "Qt system libraries: all present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
