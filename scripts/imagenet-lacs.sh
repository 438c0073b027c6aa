#!/usr/bin/env bash
# LACS against accuracy-only (FLOPs) compound scaling at equal predicted ImageNet accuracy
# (docs/imagenet-labels.md, "Verdicts"): EfficientNet-X-B0 scaled on tpu-v3 and v100 with every
# grid point and member scored by the ImageNet surrogate (data/surrogates/imagenet-mbconv-in1k.ubj)
# instead of the proxy label, members b0..b7 all scored. The family directories go to $WORK; the
# command's report and comparison.json per setup to data/study/imagenet-lacs/.
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/imagenet-lacs.sh [BUILD_DIR]" 1 "$@"
cd "$(dirname "$0")/.."
dcnas="${1:-build}/cli/dcnas"
require_binary "$dcnas"
out=data/study/imagenet-lacs
work="${WORK:-/tmp/dcnas-imagenet-lacs}"
mkdir -p "$out" "$work"
for setup in tpu-v3 v100; do
  case "$setup" in
    tpu-v3) args=(--accel tpu-v3 --stack xla-tpu --precision bf16 --calibration tpu-v3-xla-tpu-bf16) ;;
    v100) args=(--accel v100 --stack tensorrt --precision fp16) ;;
  esac
  rm -rf "${work:?}/x-b0-$setup"
  "$dcnas" scale efficientnet-x-b0 --mode both --name x-b0 "${args[@]}" --batch 128 \
    --accuracy imagenet:data/surrogates/imagenet-mbconv-in1k.ubj --train-members 7 \
    --out "$work/x-b0-$setup" > "$out/x-b0-$setup.txt"
  cp "$work/x-b0-$setup/comparison.json" "$out/x-b0-$setup.comparison.json"
  grep -E "^geomean" "$out/x-b0-$setup.txt" | sed "s/^/$setup: /"
done
