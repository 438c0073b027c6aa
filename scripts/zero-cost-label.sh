#!/usr/bin/env bash
# The shipped accuracy label, chosen by its validity against real labels (docs/proxy-validity.md):
# NASWOT of the untrained proxy network (16 px, width 0.25, one downsample removed, one batch of
# 64 Fashion-MNIST images), calibrated to percent against NAS-Bench-Macro's CIFAR-10 labels.
#  1. the calibration: NASWOT of the benchmark's 3,969 networks (scripts/zero-cost.sh) fitted to
#     their mean accuracy -> data/accuracy/zero-cost/naswot-calibration.json;
#  2. the label of COUNT (default 1,000) dc-accelerator architectures, two initialisations each
#     -> data/accuracy/dc-accelerator-zc-naswot.csv (resumable: rerun to continue);
#  3. the surrogate fitted to it -> data/surrogates/dc-accelerator-naswot.ubj (+ report, chart);
#  4. the zoo labelled with it against published ImageNet top-1 -> data/accuracy/zoo/zc-naswot.*
#     (the old trained label's zoo run: `dcnas accuracy-data zoo --epochs 2 --train-images 5000
#     --out data/accuracy/zoo/r16-w0.25-rd1-n5000-e2.csv ...`, about an hour).
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/zero-cost-label.sh (no arguments; DCNAS, JOBS, COUNT from the environment)" 0 "$@"
cd "$(dirname "$0")/.."
dcnas="${DCNAS:-build/cli/dcnas}"
jobs="${JOBS:-2}"
count="${COUNT:-1000}"
bench=build/feature-ablation/nas-bench-macro.csv
nas_bench_macro_labels "$dcnas" "$bench"
calibration=data/accuracy/zero-cost/naswot-calibration.json
"$dcnas" accuracy-data calibrate-score --reference "$bench" \
  --space data/search_spaces/nas-bench-macro.yaml \
  --zero-cost data/accuracy/zero-cost/nas-bench-macro-r16-w0.25-rd1.csv --score naswot \
  --json "$calibration"
label=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["label"])' \
  "$calibration")
out=data/accuracy/dc-accelerator-zc-naswot.csv
resume=()
[ -f "$out" ] && resume=(--resume)
"$dcnas" accuracy-data generate --space data/search_spaces/dc-accelerator.yaml --count "$count" \
  --seed 1 --replicates 2 --label "$label" --proxy-resolution 16 --proxy-width 0.25 \
  --removed-downsamples 1 --batch 64 --jobs "$jobs" --out "$out" "${resume[@]}"
"$dcnas" accuracy-data stats "$out"
"$dcnas" surrogate fit --data "$out" --space data/search_spaces/dc-accelerator.yaml \
  --out data/surrogates/dc-accelerator-naswot.ubj --seed 0
# The zoo's own 41 models (the table's rows before timm's; those are judged in docs/imagenet-labels.md).
zoo_table="${TMPDIR:-/tmp}/published-zoo-$$.csv"
trap 'rm -f "$zoo_table"' EXIT
grep -v '^timm:' data/accuracy/published-imagenet.csv > "$zoo_table"
"$dcnas" accuracy-data zoo --published "$zoo_table" \
  --out data/accuracy/zoo/zc-naswot.csv --label "$label" --batch 64 --jobs "$jobs" \
  --json data/accuracy/zoo/zc-naswot.json
