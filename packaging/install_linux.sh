#!/usr/bin/env bash
# Install the built folder for the current user (or PREFIX): the programs, the menu entry and
# the icons, the way a desktop expects them.
#   packaging/install_linux.sh              # into ~/.local (no root needed)
#   PREFIX=/opt/mvc packaging/install_linux.sh
# Uninstall: remove $PREFIX/lib/mvc-studio, $PREFIX/bin/{mvc-studio,mvc},
# $PREFIX/share/applications/mvc-studio.desktop and $PREFIX/share/icons/hicolor/*/apps/mvc-studio.png
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
DIST="$HERE/../dist/mvc-studio"
PREFIX="${PREFIX:-$HOME/.local}"
[ -x "$DIST/mvc-studio" ] || { echo "no build in $DIST: run packaging/build.sh first" >&2; exit 1; }

rm -rf "$PREFIX/lib/mvc-studio.new"
mkdir -p "$PREFIX/lib" "$PREFIX/bin" "$PREFIX/share/applications"
cp -a "$DIST" "$PREFIX/lib/mvc-studio.new"   # copy first, then swap: no half-installed app
rm -rf "$PREFIX/lib/mvc-studio"
mv "$PREFIX/lib/mvc-studio.new" "$PREFIX/lib/mvc-studio"
ln -sfn "$PREFIX/lib/mvc-studio/mvc-studio" "$PREFIX/bin/mvc-studio"
ln -sfn "$PREFIX/lib/mvc-studio/mvc" "$PREFIX/bin/mvc"
for png in "$HERE"/icons/mvc-studio-*.png; do
  size="${png##*-}"; size="${size%.png}"
  install -Dm644 "$png" "$PREFIX/share/icons/hicolor/${size}x${size}/apps/mvc-studio.png"
done
# Exec= with the full path: ~/.local/bin is not on every desktop session's PATH
sed -e "s|^Exec=mvc-studio|Exec=$PREFIX/bin/mvc-studio|" \
    -e "s|^TryExec=mvc-studio|TryExec=$PREFIX/bin/mvc-studio|" \
    "$HERE/mvc-studio.desktop" > "$PREFIX/share/applications/mvc-studio.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$PREFIX/share/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -qtf "$PREFIX/share/icons/hicolor" || true
echo "installed in $PREFIX: bin/mvc-studio, bin/mvc, the menu entry and the icons"
