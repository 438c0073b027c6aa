#!/usr/bin/env bash
# The main job on the shipped default data: installs the Debian packages, builds dcnas, and prints
# the model-zoo summary of the EfficientNet, EfficientNet-X and ResNet-50 families.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
dcnas=build/cli/dcnas
out="${OUT_DIR:-out}"
mkdir -p "$out"
"$dcnas" models summary --family efficientnet,efficientnet-x,efficientnet-x-tpu,efficientnet-x-gpu --models resnet50 \
  | tee "$out/zoo-summary.txt"
echo "main job done: outputs in $out/"
