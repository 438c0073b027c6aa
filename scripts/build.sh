#!/usr/bin/env bash
# Configures (once) and builds dcnas in ./build (override with BUILD_DIR). Extra arguments go to
# `meson setup`, e.g. -Dtorch=disabled for a build without LibTorch.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
if [ ! -f "$build_dir/build.ninja" ]; then
  meson setup "$build_dir" --buildtype=release "$@"
fi
ninja -C "$build_dir" -j "${JOBS:-2}"
