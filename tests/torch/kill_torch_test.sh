#!/usr/bin/env bash
# kill -9 of `dcnas measure` and `dcnas train` at chosen moments (DCNAS_KILL_AT,
# common/kill_point.h), including inside the checkpoint window, then --resume: nothing finished
# is lost, nothing is done twice, and a resumed training ends with the same weights' results as
# an uninterrupted one (metrics.jsonl and the test accuracy identical).
set -u
dcnas="$1"
# shellcheck source=../cli/smoke_lib.sh
source "$(dirname "$0")/../cli/smoke_lib.sh"

killed() {  # killed NAME POINT COMMAND...: runs COMMAND with the kill point, expects SIGKILL
  local name="$1" point="$2"
  shift 2
  { DCNAS_KILL_AT="$point" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; } 2>/dev/null
  if [ "$rc" -eq 137 ]; then echo "ok   $name: killed at $point"; else
    echo "FAIL $name: exit $rc at $point, expected 137 (SIGKILL)"; sed 's/^/  /' "$tmp/err" | head -3
    fails=$((fails + 1)); fi
}
keys() { cut -d, -f1,5,6,15 "$1"; }  # model, batch, resolution, threads: what a point is

# measure: 4 points; killed after the 2nd row, and inside the 3rd row's atomic write.
measure=(measure efficientnet-b0 efficientnet-x-b0 --resolution 32 --batch 1,2 --repeats 2 --warmup 1)
check "measure uninterrupted" 0 "$dcnas" "${measure[@]}" --out "$tmp/ref.csv"
for point in measure.row-written:2 file.before-rename:3; do
  rm -f "$tmp/m.csv"
  killed "measure" "$point" "$dcnas" "${measure[@]}" --out "$tmp/m.csv"
  rows=$(($(wc -l <"$tmp/m.csv") - 1))
  [ "$rows" -eq 2 ] && echo "ok   $point: 2 rows kept" || { echo "FAIL $point: $rows rows kept"; fails=$((fails + 1)); }
  check "measure --resume after $point" 0 "$dcnas" "${measure[@]}" --out "$tmp/m.csv" --resume
  contains "$point: only the rest timed" "$tmp/err" "measured 2 points (2 already in the file)"
  if [ "$(keys "$tmp/m.csv")" = "$(keys "$tmp/ref.csv")" ]; then echo "ok   $point: same points as uninterrupted"
  else echo "FAIL $point: points differ"; fails=$((fails + 1)); fi
  left=$(find "$tmp" -maxdepth 1 -name '.m.csv.tmp.*' | wc -l)
  [ "$left" -eq 0 ] && echo "ok   $point: no temporaries left" || { echo "FAIL $point: $left temporaries"; fails=$((fails + 1)); }
done

if [ ! -e /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
  echo "dataset-fashion-mnist not installed: training part skipped"
  smoke_finish
  exit 0
fi
train=(train --blocks r1_k3_s22_e1_i16_o8_se0.25 r1_k3_s22_e2_i8_o16 --resolution 16
  --dataset fashion-mnist --epochs 3 --batch 64 --limit-train 1024 --limit-eval 256 --threads 1)
check "train uninterrupted" 0 "$dcnas" "${train[@]}" --out "$tmp/ref-run"
result() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["epochs"], r["test_accuracy"], r["test_loss"])' "$1/result.json"; }
metrics() {  # per-epoch metrics without the timings
  python3 -c 'import json,sys
for l in open(sys.argv[1]): r=json.loads(l); print({k: v for k, v in r.items() if k not in ("epoch_time_s", "images_per_s")})' "$1/metrics.jsonl"
}
# Inside the checkpoint window of epoch 2 (its directory renamed, state.json not yet naming it),
# in state.json's own atomic write, after the commit before the old epoch is removed, and
# between two epochs' commits.
for point in train.epoch-dir-renamed:2 file.before-rename:3 train.state-written:1 \
  train.epoch-dir-renamed:3; do
  d="$tmp/run-${point//[:.]/-}"
  killed "train" "$point" "$dcnas" "${train[@]}" --out "$d"
  [ ! -e "$d/result.json" ] && echo "ok   $point: no result yet" || { echo "FAIL $point: result.json exists"; fails=$((fails + 1)); }
  check "train --resume after $point" 0 "$dcnas" "${train[@]}" --out "$d" --resume
  if [ "$(result "$d")" = "$(result "$tmp/ref-run")" ]; then echo "ok   $point: same result as uninterrupted"
  else echo "FAIL $point: result $(result "$d") vs $(result "$tmp/ref-run")"; fails=$((fails + 1)); fi
  if [ "$(metrics "$d")" = "$(metrics "$tmp/ref-run")" ]; then
    echo "ok   $point: same per-epoch metrics"; else echo "FAIL $point: metrics differ"; fails=$((fails + 1)); fi
  n=$(find "$d" -maxdepth 1 -name 'epoch-*' | wc -l)
  stray=$(find "$d" -name '*.tmp*' | wc -l)
  [ "$n" -eq 1 ] && [ "$stray" -eq 0 ] && echo "ok   $point: one checkpoint, no temporaries" ||
    { echo "FAIL $point: $n checkpoints, $stray temporaries: $(ls -a "$d")"; fails=$((fails + 1)); }
done
smoke_finish
