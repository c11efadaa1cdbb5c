#!/usr/bin/env bash
# Build the one-folder app: dist/mvc-studio/{mvc-studio,mvc,_internal/}.
# Needs the packaging extra: python -m pip install -e ".[packaging]"
# Runs under `nice` (a build takes a few minutes of both cores); extra arguments go to
# PyInstaller, e.g. `packaging/build.sh --log-level INFO`.
set -euo pipefail
cd "$(dirname "$0")/.."
exec nice -n 10 python -m PyInstaller --noconfirm --clean --log-level WARN \
  --workpath build/pyinstaller --distpath dist "$@" packaging/mvc_studio.spec
