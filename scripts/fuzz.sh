#!/usr/bin/env bash
# Fuzzes every tests/fuzz target with libFuzzer for a bounded time and reports executions.
#
#   scripts/fuzz.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET...]
#
# BUILD_DIR must be configured with CXX=clang++ -Dfuzz=enabled (and, as CI does,
# -Db_sanitize=address,undefined). Each target starts from its regression corpus
# (tests/fuzz/corpus/TARGET) and the shipped files it parses, in a scratch copy, and runs for
# SECONDS (default 300: a campaign by hand; CI's sanitize leg runs 10 s per target, FUZZ_SECONDS
# in scripts/test.sh); JOBS (2) targets run side by side. A finding (crash, abort, leak, hang
# past 10 s, over 4 GiB) is saved to out/fuzz/findings/TARGET-*: fix it, then add the file to
# tests/fuzz/corpus/TARGET so the 'fuzz' test suite replays it from then on. Prints one line per
# target (executions, executions per second, corpus size) and exits non-zero on any finding.
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:?usage: scripts/fuzz.sh BUILD_DIR [SECONDS] [TARGET...]}"
seconds="${2:-300}"
shift $(($# >= 2 ? 2 : $#))
jobs="${JOBS:-2}"
root=$PWD
all=(graph_json block_string accelerator_yaml stack_yaml calibration_yaml set_override
  measurement_csv space_yaml accuracy_csv journal_replay surrogate_file)
targets=("${@:-${all[@]}}")
[ "$#" -eq 0 ] && targets=("${all[@]}")
shipped() {  # the shipped inputs of a target
  case "$1" in
    accelerator_yaml | set_override) echo "$root/data/accelerators" ;;
    stack_yaml) echo "$root/data/stacks" ;;
    calibration_yaml) echo "$root/data/calibrated" ;;
    measurement_csv) echo "$root/data/measurements" ;;
    space_yaml) echo "$root/data/search_spaces" ;;
    accuracy_csv) echo "$root/data/accuracy" ;;
  esac
}
out="$root/out/fuzz"
mkdir -p "$out/findings" "$out/logs"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export DCNAS_DATA_DIR="$root/data"

run_target() {
  local t="$1" exe="$build/tests/fuzz/fuzz_$1"
  if [ ! -x "$exe" ]; then
    echo "$t: no $exe (configure $build with CXX=clang++ -Dfuzz=enabled)" >"$out/logs/$t.result"
    return 1
  fi
  local corpus="$scratch/$t"
  mkdir -p "$corpus"
  cp "$root/tests/fuzz/corpus/$t/"* "$corpus/" 2>/dev/null
  local dir
  dir=$(shipped "$t")
  if [ -n "$dir" ]; then
    find "$dir" -maxdepth 1 -type f \( -name '*.yaml' -o -name '*.csv' \) -size -64k \
      -exec cp {} "$corpus/" \;
  fi
  # -max_len: the biggest seed decides how long inputs may grow (64 KiB at least).
  local max_len
  max_len=$(find "$corpus" -type f -printf '%s\n' | sort -n | tail -1)
  [ "${max_len:-0}" -lt 65536 ] && max_len=65536
  "$exe" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$out/findings/$t-" \
    >"$out/logs/$t.log" 2>&1
  local rc=$?
  local execs rate size
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/logs/$t.log" | awk '{print $2}')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$out/logs/$t.log" | awk '{print $2}')
  size=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    printf '%-18s ok       %6s s %12s execs %8s exec/s %6s corpus\n' "$t" "$seconds" \
      "${execs:-?}" "${rate:-?}" "$size" >"$out/logs/$t.result"
  else
    printf '%-18s FINDING  exit %s after %s execs; input and log: %s\n' "$t" "$rc" \
      "${execs:-?}" "$(ls "$out/findings/$t-"* 2>/dev/null | head -1) $out/logs/$t.log" \
      >"$out/logs/$t.result"
    grep -m 3 -E 'ERROR|SUMMARY|fuzz:' "$out/logs/$t.log" >>"$out/logs/$t.result"
    return 1
  fi
}

pids=()
for t in "${targets[@]}"; do
  run_target "$t" &
  pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
for t in "${targets[@]}"; do cat "$out/logs/$t.result"; done
echo "fuzz: ${#targets[@]} targets, $failed with findings"
[ "$failed" -eq 0 ]
