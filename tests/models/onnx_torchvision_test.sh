#!/usr/bin/env bash
# ONNX import of eight torchvision models exported by Debian's python3-torch/torchvision/onnx:
# parameters exactly torchvision's own count, MACs (batch 1, 224 px) torchvision's published
# figures, the batch taken from --batch, and the imported EfficientNet-B0 simulating exactly as
# the zoo's on tpu-v3 and v100.
set -uo pipefail
dcnas="$1"
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../cli/smoke_lib.sh
source "$here/../cli/smoke_lib.sh"
py=/usr/bin/python3
if ! "$py" -c "import torch, torchvision, onnx" 2>"$tmp/err"; then
  echo "FAIL: /usr/bin/python3 lacks torch, torchvision or onnx (scripts/install-deps.sh installs"
  echo "      python3-torch python3-torchvision python3-onnx)"; cat "$tmp/err"; exit 1
fi
# name, torchvision's parameter count, GMACs at batch 1 (torchvision's model tables)
models="resnet50:25557032:4.089 resnext50_32x4d:25028904:4.230 efficientnet_b0:5288548:0.386
mobilenet_v3_large:5483032:0.217 regnet_y_400mf:4344144:0.402 convnext_tiny:28589128:4.456
vit_b_16:86567656:17.564 swin_t:28288354:4.491"
names=$(for m in $models; do echo -n "${m%%:*} "; done)
# shellcheck disable=SC2086
"$py" "$here/export_torchvision.py" "$tmp" $names >"$tmp/exported" 2>"$tmp/export.err" || {
  echo "FAIL export"; tail -20 "$tmp/export.err"; exit 1; }
for m in $models; do
  IFS=: read -r name params gmacs <<<"$m"
  # torchvision's own count, printed by the exporter, must be the table's.
  contains "$name: torchvision counts $params" "$tmp/exported" "^$name $params$"
  check "$name: import" 0 "$dcnas" import "$tmp/$name.onnx" --out "$tmp/$name.json"
  got=$("$py" - "$tmp/$name.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
print(g["info"]["batch"], g["info"]["num_classes"])
PY
)
  [ "$got" = "1 1000" ] && echo "ok   $name: batch 1, 1000 classes" || {
    echo "FAIL $name: batch/classes '$got'"; fails=$((fails + 1)); }
  "$dcnas" models show --graph "$tmp/$name.json" --format json >"$tmp/$name.show.json" 2>"$tmp/err"
  read -r p mac <<<"$("$py" -c "
import json, sys
t = json.load(open(sys.argv[1]))['totals']
print(t['params'], '%.3f' % (t['macs'] / 1e9))" "$tmp/$name.show.json")"
  [ "$p" = "$params" ] && echo "ok   $name: $p params" || {
    echo "FAIL $name: $p params, torchvision has $params"; fails=$((fails + 1)); }
  [ "$mac" = "$gmacs" ] && echo "ok   $name: $mac GMACs" || {
    echo "FAIL $name: $mac GMACs, torchvision has $gmacs"; fails=$((fails + 1)); }
done
# The batch axis is dynamic in these exports: --batch 8 gives 8 x the MACs.
check "vit --batch 8" 0 "$dcnas" models show --onnx "$tmp/vit_b_16.onnx" --batch 8 --format json \
  --out "$tmp/vit8.json"
if "$py" -c "
import json, sys
one, eight = (json.load(open(f))['totals'] for f in sys.argv[1:3])
sys.exit(0 if eight['macs'] == 8 * one['macs'] and eight['params'] == one['params'] else 1)" \
  "$tmp/vit_b_16.show.json" "$tmp/vit8.json"; then
  echo "ok   vit --batch 8: 8 x the MACs, the same parameters"
else
  echo "FAIL vit --batch 8 MACs"; fails=$((fails + 1))
fi
# The imported EfficientNet-B0 and the zoo's are the same network: the same latency.
for accel in tpu-v3 v100; do
  for b in 1 128; do
    "$dcnas" sim --onnx "$tmp/efficientnet_b0.onnx" --accel "$accel" --batch "$b" --format json \
      --out "$tmp/a.json"
    "$dcnas" sim efficientnet-b0 --accel "$accel" --batch "$b" --format json --out "$tmp/z.json"
    if "$py" -c "
import json, sys
a, z = (json.load(open(f))['latency_ms'] for f in sys.argv[1:3])
sys.exit(0 if abs(a - z) <= 0.01 * z else 1)" "$tmp/a.json" "$tmp/z.json"; then
      echo "ok   efficientnet_b0 vs zoo on $accel b$b (within 1%)"
    else
      echo "FAIL efficientnet_b0 vs zoo on $accel b$b"; fails=$((fails + 1))
    fi
  done
done
# Imported files as models by their stem: compare, roofline, calibrate rows, measure.
check "compare: a stem that is a zoo name" 2 "$dcnas" compare --onnx "$tmp/resnet50.onnx" \
  --pairs resnet50:resnet50 --accel tpu-v3
contains "compare names the clash" "$tmp/err" "'resnet50' is a model already"
check "compare --onnx" 0 "$dcnas" compare --onnx "$tmp/vit_b_16.onnx" --pairs vit-b-16:vit_b_16 \
  --accel tpu-v3 --batch 8
contains "compare pairs the import with the zoo" "$tmp/out" "vit-b-16:vit_b_16"
check "roofline --onnx" 0 "$dcnas" roofline --onnx "$tmp/swin_t.onnx" --models swin_t,swin-t \
  --accel tpu-v3 --batch 8
contains "roofline lists the import" "$tmp/out" "^swin_t "
src="${DCNAS_SOURCE_ROOT:?}/data/measurements/timm_transformers.csv"
{ head -1 "$src"; grep "^swin-t,rtx-3090" "$src" | sed 's/^swin-t,/swin_t,/'; } >"$tmp/rows.csv"
check "calibrate --onnx: rows naming the file" 0 "$dcnas" calibrate --onnx "$tmp/swin_t.onnx" \
  --accel rtx-3090 --stack pytorch-eager --precision fp16 --measurements "$tmp/rows.csv" \
  --regime large_batch --evaluate rtx-3090-pytorch-eager-fp16
contains "calibrate evaluated the imported row" "$tmp/out" "swin_t b1024 r224"
check "measure --onnx" 0 "$dcnas" measure --onnx "$tmp/swin_t.onnx" --batch 1 --repeats 1 \
  --warmup 0 --out "$tmp/m.csv"
contains "measure's model column is the stem" "$tmp/m.csv" "^swin_t,host-cpu"
smoke_finish
