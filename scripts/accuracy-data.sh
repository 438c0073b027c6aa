#!/usr/bin/env bash
# Generates the shipped accuracy data of the dc-accelerator space (data/accuracy/README.md):
# 600 architectures sampled with seed 1, each trained once on the chosen proxy (16 px Fashion-MNIST,
# 5,000 training images, 2 epochs; proxy/README.md, "Choosing the proxy"). Runs for hours on two
# cores and resumes where it stopped: rerun it after an interruption.
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/accuracy-data.sh (no arguments; DCNAS=path/to/dcnas)" 0 "$@"
cd "$(dirname "$0")/.."
dcnas="${DCNAS:-build/cli/dcnas}"
out=data/accuracy/dc-accelerator-r16-n5000-e2.csv
resume=()
[ -f "$out" ] && resume=(--resume)
"$dcnas" accuracy-data generate --space data/search_spaces/dc-accelerator.yaml \
  --count "${COUNT:-600}" --seed 1 --replicates 1 \
  --proxy-resolution 16 --train-images 5000 --epochs 2 \
  --jobs "${JOBS:-2}" --out "$out" "${resume[@]}"
