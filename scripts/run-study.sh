#!/usr/bin/env bash
# The end-to-end study: architecture search on tpu-v3 and v100, each winner and EfficientNet-X-B0
# scaled into families by latency-aware compound scaling (LACS) and by accuracy-only (FLOPs)
# compound scaling, the coefficients found at phi = 1 against a direct search at phi = 2, and one
# report, out/study/index.md (+ SVG charts), with the paper's claims beside what dcnas found.
#
# usage: scripts/run-study.sh [--quick]
#   full:    runs scripts/search-study.sh (SKIP_SEARCH=1 keeps the shipped data/search-study),
#            then the scalings, labelling with the recipe every network that
#            data/study/trained.jsonl lacks and appending it there (a killed run resumes).
#   --quick: the shipped searches and trained accuracies (data/search-study, data/study), nothing
#            trained (dcnas scale --no-train), a few minutes; the main job runs this.
#   Environment: DCNAS, OUT (default out/study), JOBS, RECIPE (the proxy recipe key), SKIP_SEARCH.
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
  -h | --help) print_header; exit 0 ;;
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: scripts/run-study.sh [--quick]" >&2; exit 2 ;;
esac
dcnas="${DCNAS:-build/cli/dcnas}"
out="${OUT:-out/study}"
jobs="${JOBS:-2}"
store=data/study/trained.jsonl
mkdir -p "$out"
train=()
if [ "$quick" = 1 ]; then
  cp "$store" "$out/trained.jsonl"  # read, never written: data/ stays as shipped
  store="$out/trained.jsonl"
  train=(--no-train)
elif [ "${SKIP_SEARCH:-0}" != 1 ]; then
  scripts/search-study.sh
fi

setup_args() {  # the setups of scripts/search-study.sh
  case "$1" in
    tpu-v3) echo "--accel tpu-v3 --stack xla-tpu --precision bf16 --calibration tpu-v3-xla-tpu-bf16" ;;
    v100) echo "--accel v100 --stack tensorrt --precision fp16" ;;
  esac
}
scale() {  # NAME SETUP ARGS...: one `dcnas scale` into $out/NAME
  local name=$1 setup=$2
  shift 2
  echo "== $name"
  rm -rf "${out:?}/$name"
  # shellcheck disable=SC2046
  "$dcnas" scale "$@" $(setup_args "$setup") --batch 128 --recipe "$recipe" \
    --grid "${grid:-$phi1_grid}" --train-members "${train_members:-1}" --trained "$store" --jobs "$jobs" "${train[@]}" --out "$out/$name" | tee "$out/$name.txt"
}

space=data/search_spaces/dc-accelerator.yaml
# The proxy label: the shipped one, NASWOT of the untrained 16 px proxy network calibrated on
# NAS-Bench-Macro (docs/proxy-validity.md; its recipe key in
# data/accuracy/zero-cost/naswot-calibration.json). RECIPE overrides it, e.g. r16_n5000_e6 for the
# Fashion-MNIST training the study used before (16 px, 5,000 images, 6 epochs), whose results are
# in data/study/trained.jsonl too.
recipe="${RECIPE:-$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["recipe"])' \
  data/accuracy/zero-cost/naswot-calibration.json)}"
phi1_grid="d=1.0:2.0:0.25,w=1.0:1.3:0.1,r=1.0:1.4:0.05"
# Re-scaling the published base (the released x-tpu / x-gpu tuples are the paper's answer).
# Members and references up to B2 trained (the searched bases' up to B1).
train_members=2 scale x-b0-tpu-v3 tpu-v3 efficientnet-x-b0 --mode both --name x-b0
train_members=2 scale x-b0-v100 v100 efficientnet-x-b0 --mode both --name x-b0
# The searched winners (seed 0 of scripts/search-study.sh), each on its own accelerator.
scale searched-tpu-v3 tpu-v3 --run data/search-study/tpu-v3-dc-accelerator-s0 --space "$space" \
  --mode both --name searched-tpu-v3
scale searched-v100 v100 --run data/search-study/v100-dc-accelerator-s0 --space "$space" \
  --mode both --name searched-v100

# Coefficients at phi = 1 against a direct search at phi = 2 (tuples of step 2, budget 4x): a
# grid around the phi = 1 result squared, +-15% in depth, +-10% in width, resolution free.
phi2_grid=$(python3 - "$out/x-b0-tpu-v3/lacs/family.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["per_step"]
d, w = c["depth"] ** 2, c["width"] ** 2
print("d=" + "/".join(f"{d * f:.3f}" for f in (0.85, 1.0, 1.15)) + ",w=" +
      "/".join(f"{w * f:.3f}" for f in (0.9, 1.0, 1.1)) + ",r=1.0:2.0:0.05")
PY
)
grid=$phi2_grid train_members=0 scale x-b0-tpu-v3-phi2 tpu-v3 efficientnet-x-b0 --mode lacs \
  --phi 2 --members 2 --references none --name x-b0-phi2

# The zoo on published ImageNet top-1 (the paper's accuracy-latency chart) and EfficientNet-X against
# RegNetY, ResNeSt and EfficientNet at equal accuracy (dcnas compare --at-equal-accuracy). X's own
# top-1 is not published in data/accuracy/published-imagenet.csv: X-Bk is given EfficientNet-Bk's.
for kind in tpu gpu; do
  { cat data/accuracy/published-imagenet.csv
    grep '^efficientnet-b' data/accuracy/published-imagenet.csv |
      sed "s/^efficientnet-b\([0-9]\),\([^,]*\),\([^,]*\),.*/efficientnet-x-$kind-b\1,\2,\3,in1k,,assumed: EfficientNet-B\1's,/"
  } > "$out/published-x-$kind.csv"
done
for setup in tpu-v3 v100; do
  kind=$([ "$setup" = tpu-v3 ] && echo tpu || echo gpu)
  echo "== accuracy-latency $setup"
  # shellcheck disable=SC2046
  "$dcnas" compare --family "efficientnet,efficientnet-x-$kind,regnety,resnest,resnet,mobilenet" \
    $(setup_args "$setup") --batch 128 --at-equal-accuracy --published "$out/published-x-$kind.csv" \
    --out "$out/accuracy-latency-$setup.svg" > /dev/null
  for base in regnety resnest efficientnet; do
    # shellcheck disable=SC2046
    "$dcnas" compare --family "$base,efficientnet-x-$kind" $(setup_args "$setup") --batch 128 \
      --at-equal-accuracy --published "$out/published-x-$kind.csv" --format json \
      > "$out/equal-accuracy-$setup-$base.json"
  done
done

python3 scripts/study_report.py "$out"
echo "study done: $out/index.md"
