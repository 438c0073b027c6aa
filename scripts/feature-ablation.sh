#!/usr/bin/env bash
# The surrogate's feature ablation (docs/proxy-validity.md, "Features"): the learning curve
# (`dcnas surrogate curve`, 10 seeds per size) of every feature set on two data sets with their own
# labels: NAS-Bench-Macro's real CIFAR-10 labels (3,969 networks; sizes 25 .. 1,000) and the
# shipped Fashion-MNIST proxy data of dc-accelerator (600 architectures; sizes 25 .. 500, the rest
# predicted). With ZERO_COST_BENCH / ZERO_COST_PROXY (tables of `dcnas accuracy-data zero-cost`)
# the sets with zero-cost features too. Writes build/feature-ablation/DATA/SETS/curve.*, then the
# summary table (scripts/feature_ablation.py).
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/feature-ablation.sh (no arguments; DCNAS, SEEDS, ZERO_COST_BENCH, ZERO_COST_PROXY from the environment)" 0 "$@"
cd "$(dirname "$0")/.."
dcnas="${DCNAS:-build/cli/dcnas}"
seeds="${SEEDS:-10}"
work=build/feature-ablation
mkdir -p "$work"
bench="$work/nas-bench-macro.csv"
nas_bench_macro_labels "$dcnas" "$bench"
sets=(onehot counts graph onehot,counts counts,graph onehot,counts,graph)
curve() {  # name, space, sizes, zero-cost table, data...
  local name=$1 space=$2 sizes=$3 zc=$4; shift 4
  local all=("${sets[@]}")
  [ -n "$zc" ] && all+=(zero-cost counts,zero-cost onehot,counts,zero-cost onehot,counts,graph,zero-cost)
  for s in "${all[@]}"; do
    local out="$work/$name/$s"
    [ -f "$out/curve.json" ] && continue
    local z=()
    [[ "$s" == *zero-cost* ]] && z=(--zero-cost "$zc")
    "$dcnas" surrogate curve --data "$@" --space "$space" --sizes "$sizes" --seeds "$seeds" \
      --features "$s" "${z[@]}" --out "$out" >/dev/null
    echo "$name $s done"
  done
}
curve nas-bench-macro data/search_spaces/nas-bench-macro.yaml 25,50,100,200,1000 \
  "${ZERO_COST_BENCH:-}" "$bench"
curve dc-accelerator data/search_spaces/dc-accelerator.yaml 25,50,100,200,500 \
  "${ZERO_COST_PROXY:-}" data/accuracy/dc-accelerator-r16-n5000-e2.csv \
  data/accuracy/proxy-study/r16-n5000-e2.csv
/usr/bin/python3 scripts/feature_ablation.py "$work"
