#!/usr/bin/env bash
# Smoke test of `dcnas measure` and `dcnas train`: a few timed points, and one epoch of training
# on a 2,048-image subset of Fashion-MNIST (seconds).
set -euo pipefail
dcnas="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$dcnas" measure efficientnet-b0 efficientnet-x-b0 --resolution 32 --batch 1,2 --repeats 2 \
  --warmup 1 --out "$tmp/m.csv"
head -1 "$tmp/m.csv" | grep -qx \
  'model,device,stack,precision,batch_size,image_size,latency_ms,latency_spread_ms,throughput_img_per_s,repeats,regime,source_id,source_ref,cpu_model,threads,notes'
[ "$(wc -l < "$tmp/m.csv")" -eq 5 ]
grep -q '^efficientnet-x-b0,host-cpu,libtorch-cpu,fp32,2,32,' "$tmp/m.csv"

# --resume keeps the earlier points and times only the new batch size.
cp "$tmp/m.csv" "$tmp/before.csv"
"$dcnas" measure efficientnet-b0 efficientnet-x-b0 --resolution 32 --batch 1,2,3 --repeats 2 \
  --warmup 1 --out "$tmp/m.csv" --resume 2> "$tmp/resume.txt"
grep -q 'measured 2 points (4 already in the file)' "$tmp/resume.txt"
[ "$(wc -l < "$tmp/m.csv")" -eq 7 ]
[ "$(head -5 "$tmp/m.csv")" = "$(cat "$tmp/before.csv")" ]
printf 'model,latency_ms\nx,1\n' > "$tmp/other.csv"
set +e
"$dcnas" measure efficientnet-b0 --out "$tmp/other.csv" --resume 2> "$tmp/err.txt"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q 'other.csv: --resume needs a file written by' "$tmp/err.txt"
[ "$(cat "$tmp/other.csv")" = "$(printf 'model,latency_ms\nx,1')" ]

# Bad usage exits with 2.
set +e
"$dcnas" measure no-such-model --out "$tmp/x.csv" 2>/dev/null; rc=$?
set -e
[ "$rc" -eq 2 ]

# A graph of its input op alone: nothing to measure, named with the file.
printf '{"format": "dcnas-graph", "version": 1, "ops": [{"id": 0, "kind": "input", "shape": [1, 8, 8, 3]}]}' > "$tmp/input-only.json"
set +e
"$dcnas" measure --graph "$tmp/input-only.json" --out "$tmp/x.csv" 2> "$tmp/err.txt"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q 'input-only.json: the graph has only its input op: nothing to measure' "$tmp/err.txt"

# Out-of-range training options exit 2 naming the option, before any data is read.
for bad in "--lr -1" "--lr nan" "--lr inf" "--weight-decay inf" "--weight-decay nan" \
  "--limit-train -1" "--limit-eval -5" "--warmup-epochs inf" "--threads 0"; do
  set +e
  # shellcheck disable=SC2086
  "$dcnas" train --blocks r1_k3_s22_e1_i16_o8 --epochs 1 $bad --out "$tmp/bad-run" 2> "$tmp/err.txt"
  rc=$?
  set -e
  opt=${bad%% *}
  [ "$rc" -eq 2 ] && grep -q -- "$opt" "$tmp/err.txt" ||
    { echo "train $bad: exit $rc, expected 2 naming $opt"; cat "$tmp/err.txt"; exit 1; }
done
[ ! -e "$tmp/bad-run/result.json" ]

if [ ! -e /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
  echo "dataset-fashion-mnist not installed: training part skipped"
  exit 0
fi
"$dcnas" train --blocks r1_k3_s22_e1_i16_o8_se0.25 r1_k3_s22_e2_i8_o16 --resolution 16 \
  --dataset fashion-mnist --epochs 1 --batch 64 --limit-train 2048 --limit-eval 512 \
  --out "$tmp/run" > "$tmp/train.txt"
grep -q 'test accuracy' "$tmp/train.txt"
python3 - "$tmp/run" <<'PY'
import json, sys
run = sys.argv[1]
result = json.load(open(run + "/result.json"))
assert result["epochs"] == 1 and result["test_images"] == 512, result
assert 0.2 < result["test_accuracy"] <= 1.0, result
lines = [json.loads(l) for l in open(run + "/metrics.jsonl")]
assert len(lines) == 1 and lines[0]["epoch"] == 1, lines
PY
echo "cli torch smoke test passed"
