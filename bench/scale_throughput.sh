#!/usr/bin/env bash
# `dcnas scale` on the simulator alone: the study's EfficientNet-X-B0 scalings (both modes,
# 180-point grids, 8 members each, 16 reference networks) with their trained accuracies from the
# shipped data/study/trained.jsonl (nothing trained), on tpu-v3 and v100. Prints the wall time
# and the networks simulated per second (grid points + members + references + base). Run it on
# idle cores: the figure is wall-clock.
#
# usage: bench/scale_throughput.sh [DCNAS_BIN] [REPEATS]   (defaults: build/cli/dcnas, 5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/..
dcnas=${1:-$root/build/cli/dcnas}
repeats=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
setup() {
  case "$1" in
    tpu-v3) echo "--accel tpu-v3 --stack xla-tpu --precision bf16 --calibration tpu-v3-xla-tpu-bf16" ;;
    v100) echo "--accel v100 --stack tensorrt --precision fp16" ;;
  esac
}
printf '%-10s %8s %10s %12s\n' setup networks "wall s" "networks/s"
for s in tpu-v3 v100; do
  best=""
  for _ in $(seq "$repeats"); do
    start=$(date +%s.%N)
    # shellcheck disable=SC2046
    "$dcnas" scale efficientnet-x-b0 --mode both --name x-b0 $(setup "$s") --batch 128 \
      --recipe r16_n5000_e6 --grid "d=1.0:2.0:0.25,w=1.0:1.3:0.1,r=1.0:1.4:0.05" \
      --train-members 2 --no-train --trained "$root/data/study/trained.jsonl" \
      --out "$tmp/$s" > /dev/null 2>&1
    end=$(date +%s.%N)
    t=$(python3 -c "print(f'{$end - $start:.3f}')")
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $t < $best else 1)"; then best=$t; fi
  done
  # Every grid point of both modes, 8 members of each family, the 16 references, the base twice.
  n=$(python3 - "$tmp/$s" <<'PY'
import json, os, sys
d = sys.argv[1]
grid = sum(sum(1 for _ in open(os.path.join(d, m, "grid.csv"))) - 1 for m in ("lacs", "flops"))
fam = json.load(open(os.path.join(d, "lacs", "family.json")))
refs = sum(len(r["points"]) for r in fam["references"])
print(grid + 2 * len(fam["members"]) + refs + 2)
PY
)
  printf '%-10s %8s %10s %12.0f\n' "$s" "$n" "$best" "$(python3 -c "print($n / $best)")"
done
