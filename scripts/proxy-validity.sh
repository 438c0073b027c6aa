#!/usr/bin/env bash
# Proxy validity against real labels (docs/proxy-validity.md): a stratified sample of
# NAS-Bench-Macro's networks (COUNT, default 150, over the benchmark's CIFAR-10 accuracy range)
# trained on candidate Fashion-MNIST proxy recipes, cheapest first. Every recipe appends to its
# own CSV in data/accuracy/proxy-validity/ with per-epoch validation curves; rerun to resume
# (a kill loses only the trainings in flight). `dcnas accuracy-data validity` turns the files into
# the table of Kendall tau against the benchmark, with bootstrap intervals and cost.
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/proxy-validity.sh (no arguments; DCNAS, JOBS, COUNT from the environment)" 0 "$@"
cd "$(dirname "$0")/.."
dcnas="${DCNAS:-build/cli/dcnas}"
space=data/search_spaces/nas-bench-macro.yaml
out=data/accuracy/proxy-validity
work="${WORK:-build/proxy-validity}"
jobs="${JOBS:-2}"
count="${COUNT:-150}"
mkdir -p "$out" "$work"
reference="$work/nas-bench-macro.csv"
nas_bench_macro_labels "$dcnas" "$reference"
run() {  # name, options... (--resume: a file that is not there yet is started)
  local name=$1; shift
  "$dcnas" accuracy-data generate --space "$space" --stratify-by "$reference" --count "$count" \
    --seed 0 --jobs "$jobs" --out "$out/$name.csv" --resume "$@"
}
# The zero-cost label (scripts/zero-cost-label.sh): NASWOT of the untrained 16 px proxy network on
# one batch of 64 images, calibrated to percent on the benchmark; two initialisations per network.
calibration=data/accuracy/zero-cost/naswot-calibration.json
if [ -f "$calibration" ]; then
  label=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["label"])' \
    "$calibration")
  run zc-naswot-r16-w0.25-rd1-b64 --replicates 2 --label "$label" --proxy-resolution 16 \
    --proxy-width 0.25 --removed-downsamples 1 --batch 64
fi
# The shipped proxy's recipe (16 px, width 0.25, one downsample removed, 5,000 images, 2 epochs),
# twice: its seed-to-seed agreement on this sample.
run r16-w0.25-rd1-n5000-e2 --replicates 2 --proxy-resolution 16 --proxy-width 0.25 \
  --removed-downsamples 1 --train-images 5000 --epochs 2
# Resolution alone: Fashion-MNIST's native 28 px, no downsample removed, otherwise the same.
run r28-w0.25-rd0-n5000-e2 --proxy-resolution 28 --proxy-width 0.25 --removed-downsamples 0 \
  --train-images 5000 --epochs 2
# Multi-fidelity: successive halving (eta 3) of the 28 px recipe from 1 to 3 epochs (all networks
# for 1 epoch in r28-...-e3.e1.csv, the best third for 3 in r28-...-e3.csv), then the networks it
# dropped for 3 epochs too (full training, for comparison: the same seeds, so the top rung's runs
# are reused), and `accuracy-data halving` over the files (cost, agreement).
r28=(--proxy-resolution 28 --proxy-width 0.25 --removed-downsamples 0 --train-images 5000)
run r28-w0.25-rd0-n5000-e3 "${r28[@]}" --epochs 3 --halving 3 --min-epochs 1
run r28-w0.25-rd0-n5000-e3 "${r28[@]}" --epochs 3
for eta in 2 3; do
  "$dcnas" accuracy-data halving --reference "$reference" --space "$space" --eta "$eta" \
    "$out/r28-w0.25-rd0-n5000-e3.e1.csv" "$out/r28-w0.25-rd0-n5000-e3.csv" \
    --full "$out/r28-w0.25-rd0-n5000-e3.csv" --json "$out/halving-e1-e3-eta$eta.json"
done
# Three rungs (1, 2, 3 epochs) from the same seeds: the 2-epoch rows above are that rung.
"$dcnas" accuracy-data halving --reference "$reference" --space "$space" --eta 2 \
  "$out/r28-w0.25-rd0-n5000-e3.e1.csv" "$out/r28-w0.25-rd0-n5000-e2.csv" \
  "$out/r28-w0.25-rd0-n5000-e3.csv" --full "$out/r28-w0.25-rd0-n5000-e3.csv" \
  --json "$out/halving-e1-e2-e3-eta2.json"
# All 60,000 training images (less the 5,000 validation images) at 28 px, one epoch: 11x the
# images of the 2-epoch recipe above for 5.5x its steps.
run r28-w0.25-rd0-n55000-e1 --proxy-resolution 28 --proxy-width 0.25 --removed-downsamples 0 \
  --train-images 55000 --epochs 1
# Training length alone: 16 px, 4x the optimisation steps (twice the images, twice the epochs;
# the curve gives the validation accuracy after 1, 2 and 3 epochs as well).
run r16-w0.25-rd1-n10000-e4 --proxy-resolution 16 --proxy-width 0.25 --removed-downsamples 1 \
  --train-images 10000 --epochs 4
# All 60,000 training images (less the 5,000 validation images), one epoch, at 16 px.
run r16-w0.25-rd1-n55000-e1 --proxy-resolution 16 --proxy-width 0.25 --removed-downsamples 1 \
  --train-images 55000 --epochs 1
# 28 px with 4x the steps, then all the images for 3 epochs.
run r28-w0.25-rd0-n10000-e4 --proxy-resolution 28 --proxy-width 0.25 --removed-downsamples 0 \
  --train-images 10000 --epochs 4
run r28-w0.25-rd0-n55000-e3 --proxy-resolution 28 --proxy-width 0.25 --removed-downsamples 0 \
  --train-images 55000 --epochs 3
