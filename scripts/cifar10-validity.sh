#!/usr/bin/env bash
# A short real-image training chosen by its validity (issue: real images): the stratified sample of
# NAS-Bench-Macro's networks (COUNT, default 150; the proxy-validity page's sample) trained on
# CIFAR-10 itself, read from the JPEG folder (train/<class>/, test/<class>/: the 50,000 / 10,000
# images of the public archive; the validation images carved from train/), on candidate recipes,
# cheapest first. NAS-Bench-Macro's labels are 50-epoch CIFAR-10 trainings of the same networks,
# so each recipe is judged against the long training on the same data. Every recipe appends to
# its own CSV in data/accuracy/cifar10-validity/ with per-epoch validation curves; rerun to resume
# (a kill loses only the trainings in flight; the sample is in a shuffled order, so a file cut
# short after any number of networks still spans the accuracy range). Ends with the table and the
# validity-cost curve (validity.txt, .csv, .json, .svg).
#
# Usage: scripts/cifar10-validity.sh CIFAR10_JPEG_DIR   (JOBS, COUNT, DCNAS from the environment)
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/cifar10-validity.sh CIFAR10_JPEG_DIR (JOBS, COUNT, DCNAS from the environment)" 1 "$@"
[ "$#" -eq 1 ] || { echo "usage: scripts/cifar10-validity.sh CIFAR10_JPEG_DIR" >&2; exit 2; }
data="$1"
[ -d "$data/train" ] && [ -d "$data/test" ] || {
  echo "scripts/cifar10-validity.sh: $data: needs train/ and test/ (CIFAR-10 as JPEG files)" >&2
  exit 2
}
cd "$(dirname "$0")/.."
dcnas="${DCNAS:-build/cli/dcnas}"
require_binary "$dcnas"
space=data/search_spaces/nas-bench-macro.yaml
out=data/accuracy/cifar10-validity
work="${WORK:-build/proxy-validity}"
jobs="${JOBS:-1}"
count="${COUNT:-150}"
mkdir -p "$out" "$work/cache"
# The decoded images (a 0.7 GB tensor file) stay in the work directory, not beside the results.
export DCNAS_CACHE_DIR="$work/cache"
reference="$work/nas-bench-macro.csv"
nas_bench_macro_labels "$dcnas" "$reference"
run() {  # name, options...
  local name=$1; shift
  "$dcnas" accuracy-data generate --space "$space" --stratify-by "$reference" --count "$count" \
    --seed 0 --jobs "$jobs" --dataset "imagefolder:$data" --out "$out/$name.csv" \
    --resume "$@"
}
# 16 px, width 0.25, 5,000 training images, 2 epochs: the shipped proxy's shape on real images.
run r16-w0.25-n5000-e2 --proxy-resolution 16 --proxy-width 0.25 --removed-downsamples 0 \
  --train-images 5000 --epochs 2
# 32 px (CIFAR's own), width 0.25, 10,000 images, 2 epochs.
run r32-w0.25-n10000-e2 --proxy-resolution 32 --proxy-width 0.25 --removed-downsamples 0 \
  --train-images 10000 --epochs 2
# The same 5,000 images for 8 epochs (the per-epoch curve gives epochs 1-7 under that schedule).
run r16-w0.25-n5000-e8 --proxy-resolution 16 --proxy-width 0.25 --removed-downsamples 0 \
  --train-images 5000 --epochs 8
# All 45,000 training images once (on Fashion-MNIST the data set's size mattered most).
run r16-w0.25-n45000-e1 --proxy-resolution 16 --proxy-width 0.25 --removed-downsamples 0 \
  --train-images 45000 --epochs 1
run r32-w0.25-n45000-e1 --proxy-resolution 32 --proxy-width 0.25 --removed-downsamples 0 \
  --train-images 45000 --epochs 1
# The table and the validity-cost curve.
"$dcnas" accuracy-data validity --reference "$reference" --space "$space" "$out"/r*.csv \
  --zero-cost data/accuracy/zero-cost/nas-bench-macro-r16-w0.25-rd1.csv \
  --csv "$out/validity.csv" --json "$out/validity.json" --svg "$out/validity.svg" \
  | tee "$out/validity.txt"
