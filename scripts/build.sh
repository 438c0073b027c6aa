#!/usr/bin/env bash
# Configures and builds dcnas in ./build (override with BUILD_DIR). Extra arguments go to
# `meson setup`, e.g. -Dtorch=disabled for a build without LibTorch; given for an existing build
# directory, they reconfigure it.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
if [ ! -f "$build_dir/build.ninja" ]; then
  meson setup "$build_dir" --buildtype=release "$@"
elif [ "$#" -gt 0 ]; then
  meson setup --reconfigure "$build_dir" "$@"
fi
ninja -C "$build_dir" -j "${JOBS:-2}"
