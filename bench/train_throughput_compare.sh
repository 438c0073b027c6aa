#!/usr/bin/env bash
# Training throughput of dcnas (LibTorch C++) against Python PyTorch of the same version on the
# identical network: the graph dcnas times is exported as JSON and rebuilt op for op in Python
# (bench/torch_train_step.py). Both time the same step (forward to the logits, cross-entropy,
# backward, SGD momentum update) on the same batch with the same thread count.
#
# usage: bench/train_throughput_compare.sh [DCNAS_BIN] [MODEL] [BATCH] [THREADS] [REPEATS]
# defaults: build-torch/cli/dcnas efficientnet-b0 128 1 10; proxy scaling as `dcnas train --proxy`
# (32 px, 1 input channel, 10 classes, 1 removed downsampling, width x0.25).
# Needs python3-torch (apt-get install python3-torch); set PYTHON to use another interpreter.
# MALLOC=keep (default) or system chooses dcnas's malloc policy (`dcnas measure --malloc`); both
# sides report their minor page faults per step.
# With 1 thread both sides are timed by process CPU time (robust on a shared machine); set
# CLOCK=wall to time by wall clock (always the case with more threads).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dcnas=${1:-$here/../build-torch/cli/dcnas}
model=${2:-efficientnet-b0}
batch=${3:-128}
threads=${4:-1}
repeats=${5:-10}
clock_args=()
if [ "${CLOCK:-cpu}" = cpu ] && [ "$threads" = 1 ]; then clock_args=(--cpu-clock); fi
python=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

proxy=(--resolution 32 --in-channels 1 --num-classes 10 --removed-downsamples 1 --width-scale 0.25)
# Export the exact graph (one short untimed-quality run), then time both sides alternately so
# that load from other processes hits them alike.
"$dcnas" measure "$model" "${proxy[@]}" --batch "$batch" --repeats 1 --warmup 0 \
  --save-graphs "$tmp/graphs" --out "$tmp/export.csv" 2>/dev/null
graph=$(ls "$tmp"/graphs/*.json)

malloc=${MALLOC:-keep}
cpp=()
py=()
cpp_faults=()
py_faults=()
for round in 1 2 3; do
  "$dcnas" measure --graph "$graph" --mode train --threads "$threads" --repeats "$repeats" \
    --warmup 3 --malloc "$malloc" "${clock_args[@]}" --out "$tmp/cpp$round.csv" 2>/dev/null
  row=$("$python" -c 'import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1]["throughput_img_per_s"])' "$tmp/cpp$round.csv")
  cpp+=("$row")
  cpp_faults+=("$("$python" -c 'import csv,re,sys; n=list(csv.DictReader(open(sys.argv[1])))[-1]["notes"]; print(re.search(r"(\d+) minor page faults per run", n).group(1))' "$tmp/cpp$round.csv")")
  "$python" "$here/torch_train_step.py" "$graph" --threads "$threads" --repeats "$repeats" \
    --warmup 3 "${clock_args[@]}" >"$tmp/py$round.json"
  py+=("$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["images_per_s"])' "$tmp/py$round.json")")
  py_faults+=("$("$python" -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["minor_faults_per_step"]))' "$tmp/py$round.json")")
done

"$python" - "$model" "$batch" "$threads" "${cpp[*]}" "${py[*]}" "${clock_args[*]}" "$malloc" \
  "${cpp_faults[*]}" "${py_faults[*]}" <<'PY'
import statistics, sys
model, batch, threads = sys.argv[1:4]
cpp = [float(v) for v in sys.argv[4].split()]
py = [float(v) for v in sys.argv[5].split()]
malloc = sys.argv[7]
cpp_faults = [int(v) for v in sys.argv[8].split()]
py_faults = [int(v) for v in sys.argv[9].split()]
c, p = max(cpp), max(py)
import torch
clock = "process CPU time" if sys.argv[6] else "wall clock"
print(f"model {model} (proxy 32 px), batch {batch}, {threads} thread(s), torch {torch.__version__}, "
      f"timed by {clock}")
print(f"dcnas LibTorch C++ : {c:8.1f} images/s (best of rounds {', '.join(f'{v:.1f}' for v in cpp)}); "
      f"malloc {malloc}: {statistics.median(cpp_faults):.0f} minor page faults per step")
print(f"Python PyTorch     : {p:8.1f} images/s (best of rounds {', '.join(f'{v:.1f}' for v in py)}); "
      f"{statistics.median(py_faults):.0f} minor page faults per step")
print(f"ratio C++ / Python : {c / p:8.3f} (goal: >= 0.85)")
PY
