#!/usr/bin/env bash
# The main job on the shipped default data: installs the Debian packages, builds dcnas, and runs
# the EfficientNet vs EfficientNet-X study: the zoo summary, the simulated comparison on TPUv3
# (XLA, bf16) and V100 (TensorRT, fp16) with default and calibrated parameters, and the roofline
# chart (the paper's Figure 2). Tables print to the terminal; tables and charts go to out/.
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/run-main.sh (no arguments; BUILD_DIR, OUT_DIR from the environment)" 0 "$@"
cd "$(dirname "$0")/.."
scripts/install-deps.sh
TARGETS=dcnas scripts/build.sh  # the CLI alone: the tests and benchmarks are not run here
dcnas="${BUILD_DIR:-build}/cli/dcnas"
out="${OUT_DIR:-out}"
mkdir -p "$out"
section() { printf '\n=== %s ===\n' "$1"; }

section "Model zoo: EfficientNet, EfficientNet-X and ResNet-50 (native resolution, batch 1)"
"$dcnas" models summary --family efficientnet,efficientnet-x,efficientnet-x-tpu,efficientnet-x-gpu \
  --models resnet50 | tee "$out/zoo-summary.txt"

section "EfficientNet vs EfficientNet-X-TPU on tpu-v3 (xla-tpu, bf16, batch 128; paper: 1.56x geomean)"
"$dcnas" compare --family efficientnet,efficientnet-x-tpu --accel tpu-v3 --batch 128 \
  --out "$out/compare-tpu-v3.svg" | tee "$out/compare-tpu-v3.txt"

section "EfficientNet vs EfficientNet-X-GPU on v100 (tensorrt, fp16, batch 128; paper: 1.91x geomean)"
"$dcnas" compare --family efficientnet,efficientnet-x-gpu --accel v100 --stack tensorrt \
  --precision fp16 --batch 128 --out "$out/compare-v100.svg" | tee "$out/compare-v100.txt"

section "Same on tpu-v3 with the calibrated profile tpu-v3-xla-tpu-bf16"
"$dcnas" compare --family efficientnet,efficientnet-x-tpu --accel tpu-v3 --batch 128 \
  --calibration tpu-v3-xla-tpu-bf16 | tee "$out/compare-tpu-v3-calibrated.txt"

section "Same on v100 with the calibrated profile v100-pytorch-eager-fp16"
"$dcnas" compare --family efficientnet,efficientnet-x-gpu --accel v100 --stack pytorch-eager \
  --precision fp16 --batch 128 --calibration v100-pytorch-eager-fp16 \
  | tee "$out/compare-v100-calibrated.txt"

section "Roofline (paper Figure 2): tpu-v3 and v100, batch 128"
"$dcnas" roofline --accel tpu-v3,v100 --batch 128 \
  --models efficientnet-b0,efficientnet-b1,efficientnet-b2,efficientnet-b3,efficientnet-b4,efficientnet-b5,efficientnet-b6,efficientnet-b7,efficientnet-x-tpu-b0,efficientnet-x-tpu-b3,efficientnet-x-tpu-b7,resnet50,resnest50,regnety-4.0gf \
  --out "$out/roofline.svg" | tee "$out/roofline.txt"

section "Search spaces: the datacenter space (EfficientNet-X) and the MnasNet space"
"$dcnas" space show data/search_spaces/dc-accelerator.yaml | tee "$out/space-dc-accelerator.txt"
"$dcnas" space show data/search_spaces/mnasnet.yaml | tee "$out/space-mnasnet.txt"

section "Label noise of the accuracy proxy (seed-to-seed Kendall tau, data/accuracy/)"
for f in data/accuracy/proxy-study/*.csv; do
  echo "-- $f"
  "$dcnas" accuracy-data stats "$f" --space data/search_spaces/dc-accelerator.yaml
done | tee "$out/proxy-study.txt"
for short in r16 r32; do  # proxy validity: the short proxy against its 4x longer training
  long="data/accuracy/proxy-study/$short-n5000-e8.csv"
  [ -f "$long" ] || continue
  echo "-- $short-n5000-e2 against $long"
  "$dcnas" accuracy-data stats "data/accuracy/proxy-study/$short-n5000-e2.csv" --against "$long" \
    | grep -E "shared|against"
done | tee -a "$out/proxy-study.txt"

if [ -f data/surrogates/dc-accelerator-naswot.ubj ] && "$dcnas" --help | grep -q surrogate; then
  section "Architecture search on tpu-v3 against the shipped surrogate (data/surrogates/, 5,000 evaluations)"
  b0=$("$dcnas" sim --model efficientnet-b0 --accel tpu-v3 --batch 128 --format json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["latency_ms"])')
  echo "target T = EfficientNet-B0's simulated latency, $b0 ms"
  rm -rf "$out/search-tpu-v3"
  "$dcnas" search --space data/search_spaces/dc-accelerator.yaml --strategy evolution \
    --accel tpu-v3 --batch 128 --target-ms "$b0" --accuracy surrogate:data/surrogates/dc-accelerator-naswot.ubj \
    --budget 5000 --seed 0 --out "$out/search-tpu-v3" | tee "$out/search-tpu-v3.txt"
  sed -n '/ops per stage/,/^$/p' "$out/search-tpu-v3/best.txt"
fi

if [ -s data/study/trained.jsonl ]; then
  section "The study: searched and published bases scaled by LACS and by FLOPs (scripts/run-study.sh --quick)"
  DCNAS="$dcnas" OUT="$out/study" scripts/run-study.sh --quick
  sed -n '/^## 5\./,/^## Files/p' "$out/study/index.md"
fi

echo
echo "main job done: tables and charts (roofline.svg, roofline-flops-latency.svg, compare-*.svg, search-tpu-v3/pareto.svg, study/index.md) in $out/"
