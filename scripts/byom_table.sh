#!/usr/bin/env bash
# The README's "Bring your own model" table: eight torchvision models exported to ONNX by
# Debian's python3-torch (tests/models/export_torchvision.py), imported and simulated at batch
# 128 with the calibrated profiles (tpu-v3 xla-tpu bf16; v100 pytorch-eager fp16): parameters,
# GMACs, images/s and the time by bound (matrix / vector / memory, percent).
# Usage: scripts/byom_table.sh [BUILD_DIR]
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/byom_table.sh [BUILD_DIR]" 1 "$@"
cd "$(dirname "$0")/.."
build="${1:-build}"
dcnas="$build/cli/dcnas"
require_binary "$dcnas"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
names="resnet50 resnext50_32x4d efficientnet_b0 mobilenet_v3_large regnet_y_400mf convnext_tiny
vit_b_16 swin_t"
# shellcheck disable=SC2086
/usr/bin/python3 tests/models/export_torchvision.py "$tmp" $names > /dev/null 2>&1
echo "| imported | params | GMACs | tpu-v3 img/s | bound | v100 img/s | bound |"
echo "|---|---|---|---|---|---|---|"
for name in $names; do
  "$dcnas" models show --onnx "$tmp/$name.onnx" --format json --out "$tmp/$name.show.json"
  "$dcnas" sim --onnx "$tmp/$name.onnx" --batch 128 --accel tpu-v3 \
    --calibration tpu-v3-xla-tpu-bf16 --intervals none --format json --out "$tmp/$name.tpu.json"
  "$dcnas" sim --onnx "$tmp/$name.onnx" --batch 128 --accel v100 --stack pytorch-eager \
    --calibration v100-pytorch-eager-fp16 --intervals none --format json --out "$tmp/$name.gpu.json"
  /usr/bin/python3 - "$name" "$tmp" <<'EOF'
import json, sys
name, tmp = sys.argv[1:3]
t = json.load(open('%s/%s.show.json' % (tmp, name)))['totals']
cells = ['%.1f M' % (t['params'] / 1e6), '%.2f' % (t['macs'] / 1e9)]
for run in ('tpu', 'gpu'):
    d = json.load(open('%s/%s.%s.json' % (tmp, name, run)))
    b = d['time_by_bound']
    total = sum(b.values())
    split = ' / '.join('%d' % round(100 * b[k] / total) for k in ('matrix_ms', 'vector_ms', 'memory_ms'))
    cells += ['{:,}'.format(round(d['throughput_img_per_s'])), split]
print('| %s | %s |' % (name, ' | '.join(cells)))
EOF
done
