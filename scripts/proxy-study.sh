#!/usr/bin/env bash
# Chooses the accuracy proxy by measurement (proxy/README.md, "Choosing the proxy"): the same 30
# architectures of the dc-accelerator space, trained with two seeds under three short proxy
# settings, and once under 4x longer trainings (of the cheapest setting first). Resumable: rerun
# it after an interruption.
# Outputs data/accuracy/proxy-study/*.csv; `dcnas accuracy-data stats` turns them into the tables.
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/proxy-study.sh (no arguments; DCNAS, JOBS from the environment)" 0 "$@"
cd "$(dirname "$0")/.."
dcnas="${DCNAS:-build/cli/dcnas}"
space=data/search_spaces/dc-accelerator.yaml
out=data/accuracy/proxy-study
jobs="${JOBS:-2}"
mkdir -p "$out"
run() {  # name, options...
  local name=$1; shift
  local resume=()
  [ -f "$out/$name.csv" ] && resume=(--resume)
  "$dcnas" accuracy-data generate --space "$space" --count 30 --seed 9 --jobs "$jobs" \
    --out "$out/$name.csv" "${resume[@]}" "$@"
}
run r32-n5000-e2 --replicates 2 --proxy-resolution 32 --train-images 5000 --epochs 2
run r16-n5000-e2 --replicates 2 --proxy-resolution 16 --train-images 5000 --epochs 2
run r16-n5000-e8 --replicates 1 --proxy-resolution 16 --train-images 5000 --epochs 8
run r24-n5000-e2 --replicates 2 --proxy-resolution 24 --train-images 5000 --epochs 2
run r32-n5000-e8 --replicates 1 --proxy-resolution 32 --train-images 5000 --epochs 8
