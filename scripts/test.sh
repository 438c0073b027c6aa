#!/usr/bin/env bash
# The test command: installs the Debian packages, then runs every CI leg and step and ends with
# "N passed, M failed" summed over all of them. Exit code 0 only if all pass.
#
#   torch     g++, -Dtorch=enabled -Donnx=enabled -Dpython=enabled, -Werror: build, every meson
#             test suite (includes the installed-binary check, the lint suite, the MPI tests, the
#             slow trainings, the torchvision ONNX exports, suite onnx_export, and the Python
#             module's suite python: pytest, whose cases count into the totals one by one, the
#             examples and the installed module)
#   tidy      clang-tidy (.clang-tidy) over the core sources (scripts/clang-tidy.sh), from the
#             compile_commands.json of a configure-only directory (clang++, -Dtorch=disabled
#             -Dmpi=enabled -Donnx=enabled -Dpython=disabled -Dwerror=true; nothing is built
#             there; python/ is the bindings, like cli/ not tidied). The flags carry -Werror, so
#             a clang warning in a core unit fails it too. A unit whose preprocessed text, flags
#             and .clang-tidy are those of an earlier clean pass is not tidied again
#             (TIDY_ALL=1 forces the full pass)
#   sanitize  the no-torch build: clang++ with ASan+UBSan (-fno-sanitize-recover=all) and
#             libFuzzer, -Dtorch=disabled -Dmpi=disabled (OpenMPI's own allocations at exit would
#             read as leaks) -Donnx=enabled -Dpython=disabled (an instrumented extension
#             cannot load into an uninstrumented interpreter), -Werror: every meson test suite
#             but lint and
#             onnx_export (the torch leg runs the exports) (unit, relational, golden,
#             smoke, slow, and the fuzz targets over their regression corpora), then
#             scripts/fuzz.sh fuzzes each target for FUZZ_SECONDS (10) from its corpus as one
#             more step: a short campaign per change; scripts/fuzz.sh by hand runs longer ones
#
# There is no separate no-torch release leg: one (clang++, -Dtorch=disabled, every suite but
# lint) repeated the sanitize leg without the sanitizers, at the price of a third full build.
# What only it covered stays covered: clang -Werror over the MPI executor (tidy leg), the MPI
# tests (torch leg, which builds with MPI), the slow suite without LibTorch (sanitize leg; every
# slow test needs LibTorch today).
#
# Compilers run through ccache (scripts/install-deps.sh installs it; CCACHE_MAXSIZE 5G,
# compressed, CCACHE_BASEDIR the checkout, CCACHE_NOHASHDIR so that a clone elsewhere hits too;
# CCACHE_DIR where ccache keeps it by default), so a
# rebuild after a small change or in a fresh directory compiles only what changed; each leg
# prints the cache's hits and misses over its build and its build and test times. A compiler
# given with a wrapper (CXX_TORCH="distcc g++") is used as given.
#
# Each leg builds in its own directory (build-test-torch, build-test-tidy, build-test-sanitize;
# BUILD_PREFIX overrides build-test). A directory configured with other options or another
# compiler is wiped and set up again; otherwise it is reconfigured. LEGS="torch tidy" runs a
# subset; JOBS (2) bounds build and test parallelism; CXX_TORCH (g++) and CXX_NOTORCH (clang++)
# name the compilers. Extra arguments go to every `meson test`.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
jobs="${JOBS:-2}"
prefix="${BUILD_PREFIX:-build-test}"
legs="${LEGS:-torch tidy sanitize}"
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

# The compiler cache: settings, the wrapper, and its counters.
ccache=""
if command -v ccache >/dev/null 2>&1; then
  ccache=ccache
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
  [ -n "${CCACHE_COMPRESS:-}${CCACHE_NOCOMPRESS:-}" ] || export CCACHE_COMPRESS=1
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
  # Debug builds (the sanitize leg's -g) would otherwise hash the working directory, so a clone
  # in another folder (CI's fresh clone) would miss on every unit.
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
fi
cached() {  # COMPILER: the compiler through ccache (as given when it names a wrapper already)
  case "$1" in
    *" "*) echo "$1" ;;
    *) echo "${ccache:+ccache }$1" ;;
  esac
}
ccache_counts() {  # "HITS MISSES" of the cache so far
  [ -n "$ccache" ] || return 0
  ccache --print-stats 2>/dev/null | awk '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 }
    $1 == "cache_miss" { m += $2 } END { print h + 0, m + 0 }'
}
ccache_report() {  # NAME BEFORE: the cache's hits and misses since the counts BEFORE
  [ -n "$ccache" ] || return 0
  local h0 m0 h1 m1
  read -r h0 m0 <<<"$2"
  read -r h1 m1 <<<"$(ccache_counts)"
  local h=$((${h1:-0} - ${h0:-0})) m=$((${m1:-0} - ${m0:-0}))
  local rate=""
  [ $((h + m)) -gt 0 ] && rate=" ($((100 * h / (h + m)))% hits)"
  echo "== leg $1: ccache ${h} hits, ${m} misses${rate}"
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
  local t0=$SECONDS counts
  counts=$(ccache_counts)
  if ! setup "$dir" "$compiler" "${setup_args[@]}" || ! ninja -C "$dir" -j "$jobs"; then
    ccache_report "$name" "$counts"
    step_result "leg $name: build" 1
    return
  fi
  ccache_report "$name" "$counts"
  local t1=$SECONDS
  echo "== leg $name: built in $((t1 - t0)) s"
  local log
  log=$(mktemp)
  rm -f "$dir/pytest.xml"
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
  echo "== leg $name: ${ok:-0} passed, $bad failed; tests in $((SECONDS - t1)) s"
  passed=$((passed + ${ok:-0}))
  failed=$((failed + bad))
  # The pytest cases of suite python (one meson test) count one by one too.
  if [ -f "$dir/pytest.xml" ]; then
    local py_ok py_bad py_skip
    read -r py_ok py_bad py_skip < <(python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
s = root if root.tag == "testsuite" else root.find("testsuite")
n, f, e, k = (int(s.get(a, 0)) for a in ("tests", "failures", "errors", "skipped"))
print(n - f - e - k, f + e, k)' "$dir/pytest.xml" 2>/dev/null || echo "0 1 0")
    echo "== leg $name: pytest cases: $py_ok passed, $py_bad failed, $py_skip skipped"
    passed=$((passed + py_ok))
    failed=$((failed + py_bad))
  fi
}

if ! scripts/install-deps.sh; then
  echo "0 passed, 1 failed"
  exit 1
fi
[ -n "$ccache" ] || echo "== ccache not found: every leg compiles from scratch"
start=$SECONDS
for l in $legs; do
  leg_start=$SECONDS
  case "$l" in
    torch)
      leg torch "$prefix-torch" "$(cached "${CXX_TORCH:-g++}")" --buildtype=release \
        -Dwerror=true -Dtorch=enabled -Donnx=enabled -Dpython=enabled -- "$@"
      ;;
    tidy)
      # Configure only: clang-tidy needs the compile commands, not the objects.
      echo "== leg tidy: clang-tidy over the core, flags of $prefix-tidy"
      if setup "$prefix-tidy" "${CXX_NOTORCH:-clang++}" --buildtype=release -Dwerror=true \
        -Dtorch=disabled -Dmpi=enabled -Donnx=enabled -Dpython=disabled; then
        scripts/clang-tidy.sh "$prefix-tidy"
        step_result "clang-tidy" $?
      else
        step_result "clang-tidy: setup" 1
      fi
      ;;
    sanitize)
      # A finding stops the process at once; leak checking stays on.
      export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
      export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1"
      leg sanitize "$prefix-sanitize" "$(cached "${CXX_NOTORCH:-clang++}")" \
        --buildtype=debugoptimized -Dwerror=true -Dtorch=disabled -Dmpi=disabled -Donnx=enabled \
        -Dpython=disabled \
        -Dfuzz=enabled \
        -Db_sanitize=address,undefined -Db_lundef=false -Dcpp_args=-fno-sanitize-recover=all \
        -Dcpp_link_args=-fno-sanitize-recover=all -- --no-suite lint --no-suite onnx_export "$@"
      fuzz_seconds="${FUZZ_SECONDS:-10}"
      if [ -x "$prefix-sanitize/tests/fuzz/fuzz_graph_json" ]; then
        fuzz_start=$SECONDS
        scripts/fuzz.sh "$prefix-sanitize" "$fuzz_seconds"
        step_result "fuzz ($fuzz_seconds s per target, $((SECONDS - fuzz_start)) s in all)" $?
      else
        step_result "fuzz: no targets built" 1
      fi
      ;;
    *)
      echo "unknown leg $l (torch, tidy, sanitize)"
      failed=$((failed + 1))
      ;;
  esac
  echo "== leg $l: $((SECONDS - leg_start)) s"
done
[ -n "$ccache" ] && echo "== ccache: $(ccache -s 2>/dev/null | grep -i -m 1 'cache size')"
echo "== all legs: $((SECONDS - start)) s"
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
