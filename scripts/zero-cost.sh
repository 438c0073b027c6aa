#!/usr/bin/env bash
# Zero-cost scores (synflow, NASWOT, grad-norm, snip at initialisation) of every network of the two
# data sets of the feature ablation (scripts/feature-ablation.sh): NAS-Bench-Macro's 3,969 networks
# and the shipped dc-accelerator proxy data's 600 architectures, each on the 16 px, width 0.25
# proxy network with one batch of 64 Fashion-MNIST images. Resumable: rerun to continue.
# Writes data/accuracy/zero-cost/*.csv.
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/zero-cost.sh (no arguments; DCNAS from the environment)" 0 "$@"
cd "$(dirname "$0")/.."
dcnas="${DCNAS:-build/cli/dcnas}"
out=data/accuracy/zero-cost
work=build/feature-ablation
mkdir -p "$out" "$work"
bench="$work/nas-bench-macro.csv"
nas_bench_macro_labels "$dcnas" "$bench"
score() {  # space, out, data
  local space=$1 file=$2 data=$3
  local resume=()
  [ -f "$file" ] && resume=(--resume)
  "$dcnas" accuracy-data zero-cost --space "$space" --data "$data" --out "$file" \
    --proxy-resolution 16 --proxy-width 0.25 --removed-downsamples 1 "${resume[@]}"
}
# The 150 networks of the proxy-validity sample first (a stratified sample: unbiased figures
# early), then the other data set, then every network of the benchmark.
score data/search_spaces/nas-bench-macro.yaml "$out/nas-bench-macro-r16-w0.25-rd1.csv" \
  data/accuracy/proxy-validity/r16-w0.25-rd1-n5000-e2.csv
# The shipped proxy data: both files of its recipe, as the surrogate is fitted to them.
cat data/accuracy/dc-accelerator-r16-n5000-e2.csv > "$work/dc-accelerator.csv"
tail -n +2 data/accuracy/proxy-study/r16-n5000-e2.csv >> "$work/dc-accelerator.csv"
score data/search_spaces/dc-accelerator.yaml "$out/dc-accelerator-r16-w0.25-rd1.csv" \
  "$work/dc-accelerator.csv"
score data/search_spaces/nas-bench-macro.yaml "$out/nas-bench-macro-r16-w0.25-rd1.csv" "$bench"
