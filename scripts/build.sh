#!/usr/bin/env bash
# Configures and builds dcnas in ./build (override with BUILD_DIR). Extra arguments go to
# `meson setup`, e.g. -Dtorch=disabled for a build without LibTorch; given for an existing build
# directory, they reconfigure it. TARGETS (meson target names, e.g. TARGETS=dcnas) builds only
# those; by default everything, tests and benchmarks included.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
if [ ! -f "$build_dir/build.ninja" ]; then
  meson setup "$build_dir" --buildtype=release "$@"
elif [ "$#" -gt 0 ]; then
  meson setup --reconfigure "$build_dir" "$@"
fi
# shellcheck disable=SC2086
meson compile -C "$build_dir" -j "${JOBS:-2}" ${TARGETS:-}
