#!/usr/bin/env bash
# The test command: installs the Debian packages, then runs every CI leg and step and ends with
# "N passed, M failed" summed over all of them. Exit code 0 only if all pass.
#
#   torch     g++, -Dtorch=enabled, -Werror: build, every meson test suite (includes the
#             installed-binary check and the lint suite)
#   notorch   clang++, -Dtorch=disabled, -Werror: build, every meson test suite but lint (the
#             sources are the same)
#   tidy      clang-tidy (.clang-tidy) over the core sources (scripts/clang-tidy.sh)
#   sanitize  clang++ with ASan+UBSan (-fno-sanitize-recover=all) and libFuzzer, -Dtorch=disabled
#             -Dmpi=disabled (OpenMPI's own allocations at exit would read as leaks):
#             every meson test suite but lint and slow (unit, relational, golden, smoke, and the
#             fuzz targets over their regression corpora), then scripts/fuzz.sh fuzzes each
#             target for FUZZ_SECONDS (60) as one more step
#
# Each leg builds in its own directory (build-test-torch, build-test-notorch; BUILD_PREFIX
# overrides build-test). A directory configured with other options or another compiler is wiped
# and set up again; otherwise it is reconfigured. LEGS="torch tidy" runs a subset; JOBS (2)
# bounds build and test parallelism. Extra arguments go to every `meson test`.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs="${JOBS:-2}"
prefix="${BUILD_PREFIX:-build-test}"
legs="${LEGS:-torch notorch tidy sanitize}"
passed=0
failed=0

step_result() {  # NAME STATUS: one CI step that counts as one test
  if [ "$2" -eq 0 ]; then
    passed=$((passed + 1))
    echo "== $1: ok"
  else
    failed=$((failed + 1))
    echo "== $1: FAILED"
  fi
}

# setup DIR CXX ARGS...: a build directory configured exactly with CXX and ARGS.
setup() {
  local dir="$1" compiler="$2"
  shift 2
  local want="CXX=${compiler} $*"
  if [ -f "$dir/build.ninja" ] && [ "$(cat "$dir/.dcnas-setup" 2>/dev/null)" = "$want" ]; then
    CXX="$compiler" meson setup --reconfigure "$dir" "$@" >/dev/null || return 1
  else
    [ -e "$dir" ] && echo "== $dir: set up with other options or broken; wiping it"
    rm -rf "$dir"
    CXX="$compiler" meson setup "$dir" "$@" || return 1
  fi
  echo "$want" >"$dir/.dcnas-setup"
}

# leg NAME DIR CXX SETUP_ARGS... -- TEST_ARGS...: build and run every meson test suite.
leg() {
  local name="$1" dir="$2" compiler="$3"
  shift 3
  local setup_args=()
  while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
    setup_args+=("$1")
    shift
  done
  [ "$#" -gt 0 ] && shift
  echo "== leg $name: $compiler ${setup_args[*]} in $dir"
  if ! setup "$dir" "$compiler" "${setup_args[@]}" || ! ninja -C "$dir" -j "$jobs"; then
    step_result "leg $name: build" 1
    return
  fi
  local log
  log=$(mktemp)
  meson test -C "$dir" --print-errorlogs --num-processes "$jobs" "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  count() { grep -E "^$1:" "$log" | tail -1 | awk '{print $NF}'; }
  local ok fail timeout unexpected
  ok=$(count "Ok")
  fail=$(count "Fail")
  timeout=$(count "Timeout")
  unexpected=$(count "Unexpected Pass")
  rm -f "$log"
  local bad=$((${fail:-0} + ${timeout:-0} + ${unexpected:-0}))
  if [ -z "$ok" ] || { [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; }; then bad=$((bad + 1)); fi
  echo "== leg $name: ${ok:-0} passed, $bad failed"
  passed=$((passed + ${ok:-0}))
  failed=$((failed + bad))
}

if ! scripts/install-deps.sh; then
  echo "0 passed, 1 failed"
  exit 1
fi
start=$SECONDS
for l in $legs; do
  case "$l" in
    torch)
      leg torch "$prefix-torch" "${CXX_TORCH:-g++}" --buildtype=release -Dwerror=true \
        -Dtorch=enabled -- "$@"
      ;;
    notorch)
      leg notorch "$prefix-notorch" "${CXX_NOTORCH:-clang++}" --buildtype=release \
        -Dwerror=true -Dtorch=disabled -- --no-suite lint "$@"
      ;;
    tidy)
      # Uses the clang leg's compile_commands.json (configured here if that leg did not run).
      if setup "$prefix-notorch" "${CXX_NOTORCH:-clang++}" --buildtype=release -Dwerror=true \
        -Dtorch=disabled; then
        scripts/clang-tidy.sh "$prefix-notorch"
        step_result "clang-tidy" $?
      else
        step_result "clang-tidy: setup" 1
      fi
      ;;
    sanitize)
      # A finding stops the process at once; leak checking stays on.
      export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
      export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1"
      leg sanitize "$prefix-sanitize" "${CXX_NOTORCH:-clang++}" --buildtype=debugoptimized \
        -Dwerror=true -Dtorch=disabled -Dmpi=disabled -Dfuzz=enabled -Db_sanitize=address,undefined \
        -Db_lundef=false -Dcpp_args=-fno-sanitize-recover=all \
        -Dcpp_link_args=-fno-sanitize-recover=all -- --no-suite lint --no-suite slow "$@"
      if [ -x "$prefix-sanitize/tests/fuzz/fuzz_graph_json" ]; then
        scripts/fuzz.sh "$prefix-sanitize" "${FUZZ_SECONDS:-60}"
        step_result "fuzz (${FUZZ_SECONDS:-60} s per target)" $?
      else
        step_result "fuzz: no targets built" 1
      fi
      ;;
    *)
      echo "unknown leg $l (torch, notorch, tidy, sanitize)"
      failed=$((failed + 1))
      ;;
  esac
done
echo "== all legs: $((SECONDS - start)) s"
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
