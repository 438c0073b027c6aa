#!/usr/bin/env bash
# The test command: installs the Debian packages, builds dcnas with warnings as errors, runs every
# test suite (meson test), and ends with "N passed, M failed". Exit code 0 only if all pass.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
build_dir="${BUILD_DIR:-build-test}"
if [ ! -f "$build_dir/build.ninja" ]; then
  meson setup "$build_dir" --buildtype=release -Dwerror=true -Dtorch=enabled \
    || { echo "0 passed, 1 failed"; exit 1; }
fi
ninja -C "$build_dir" -j "${JOBS:-2}" || { echo "0 passed, 1 failed"; exit 1; }
log=$(mktemp)
meson test -C "$build_dir" --print-errorlogs --num-processes "${JOBS:-2}" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
count() { grep -E "^$1:" "$log" | tail -1 | awk '{print $NF}'; }
ok=$(count "Ok"); fail=$(count "Fail"); timeout=$(count "Timeout"); unexpected=$(count "Unexpected Pass")
failed=$(( ${fail:-0} + ${timeout:-0} + ${unexpected:-0} ))
rm -f "$log"
if [ -z "$ok" ]; then ok=0; failed=$((failed > 0 ? failed : 1)); fi
echo "${ok} passed, ${failed} failed"
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then exit 1; fi
