#!/usr/bin/env bash
# dcnas scale: bad input exits 2 naming the option, file or grid; with LibTorch, a small real
# scaling (both modes) writes its family directory, and a rerun from its trained-accuracy file
# (--no-train) reproduces it; the shipped study's accuracies serve the shipped study's settings
# in any build.
set -u
dcnas="$1"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../cli/smoke_lib.sh"
root="$DCNAS_SOURCE_ROOT"

check "scale --help" 0 "$dcnas" scale --help
contains "help explains the budget rule" "$tmp/out" "2^phi +- tolerance"
x="efficientnet-x-b0"
check "no base" 2 "$dcnas" scale --out "$tmp/f"
contains "no base: says which" "$tmp/err" "exactly one base"
check "two bases" 2 "$dcnas" scale "$x" --blocks r1_k3_s11_e1_i32_o16 --out "$tmp/f"
check "not a block network" 2 "$dcnas" scale resnet-50 --out "$tmp/f"
contains "not a block network: named" "$tmp/err" "'resnet-50' is not a block network"
check "unknown model suggests" 2 "$dcnas" scale efficientnet-x-b9 --out "$tmp/f"
contains "did you mean" "$tmp/err" "did you mean"
check "--graph refused" 2 "$dcnas" scale --graph "$tmp/g.json" --out "$tmp/f"
contains "--graph: says why" "$tmp/err" "cannot be compound-scaled"
check "bad block string" 2 "$dcnas" scale --blocks "r1_k3_s11_e1_i32_o16,q9" --out "$tmp/f"
contains "bad block string named" "$tmp/err" "'q9'"
check "non-positive coefficient" 2 "$dcnas" scale "$x" --grid "d=-1:2:0.1" --out "$tmp/f"
contains "non-positive coefficient named" "$tmp/err" "d=-1:2:0.1.*above 0"
check "unknown grid axis" 2 "$dcnas" scale "$x" --grid "depth=1:2:0.5,k=3" --out "$tmp/f"
contains "unknown axis named" "$tmp/err" "unknown axis 'k'"
# --references none in the budget refusals: the reference families are scored (with LibTorch,
# trained) before the grid, and they are not what these checks are about.
check "grid cannot meet the budget" 2 "$dcnas" scale "$x" --grid "d=1:1.1:0.1,w=1,r=1" \
  --references none --out "$tmp/f"
contains "budget failure names the grid and the nearest point" "$tmp/err" \
  "grid d=1/1.1,w=1,r=1: no point meets the lacs budget 2x.*nearest"
check "flops budget failure" 2 "$dcnas" scale "$x" --mode flops --grid "d=3,w=2,r=2" \
  --references none --out "$tmp/f"
contains "flops budget failure named" "$tmp/err" "no point meets the flops budget"
check "empty grid" 2 "$dcnas" scale "$x" --grid '' --out "$tmp/f"
contains "empty grid named" "$tmp/err" "--grid '': empty"
check "grid axis twice" 2 "$dcnas" scale "$x" --grid "d=1:2:0.5,d=1.5" --out "$tmp/f"
contains "axis given twice named" "$tmp/err" "axis 'd' given twice"
check "unknown mode" 2 "$dcnas" scale "$x" --mode fast --out "$tmp/f"
contains "unknown mode lists the valid ones" "$tmp/err" "lacs, flops, both"
check "tolerance 0" 2 "$dcnas" scale "$x" --tolerance 0 --out "$tmp/f"
check "tolerance nan" 2 "$dcnas" scale "$x" --tolerance nan --out "$tmp/f"
check "phi 0" 2 "$dcnas" scale "$x" --phi 0 --out "$tmp/f"
check "train-members above members" 2 "$dcnas" scale "$x" --members 2 --train-members 3 --out "$tmp/f"
check "bad resolution multiple" 2 "$dcnas" scale "$x" --resolution-multiple 7 --out "$tmp/f"
check "unknown accelerator" 2 "$dcnas" scale "$x" --accel tpu-v9 --out "$tmp/f"
check "missing run dir" 2 "$dcnas" scale --run "$tmp/none" --out "$tmp/f"
contains "missing run named" "$tmp/err" "summary.json: missing"
check "no --out" 2 "$dcnas" scale "$x"
check "abbreviated option refused" 2 "$dcnas" scale "$x" --mod flops --out "$tmp/f"
contains "abbreviation: unrecognised" "$tmp/err" "unrecognised option '--mod'"
printf '{"key":"a","val_accuracy":1,"test_accuracy":1,"train_time_s":1,"proxy_params":1}\nnot json\n{}\n' \
  > "$tmp/bad.jsonl"
check "malformed trained file" 2 "$dcnas" scale "$x" --trained "$tmp/bad.jsonl" --out "$tmp/f"
contains "malformed trained file: file and line" "$tmp/err" "bad.jsonl:2: not JSON"
# A trained-accuracy file edited by hand: one key with two results, a key Add never writes, a
# member name twice in one line. Each is refused naming the file, the line and the key.
line='{"key":"k1","label":"a","val_accuracy":70,"test_accuracy":69,"train_time_s":1,"proxy_params":5}'
printf '%s\n%s\n' "$line" "${line/\"val_accuracy\":70/\"val_accuracy\":75}" > "$tmp/twice.jsonl"
check "trained file: one key, two results" 2 "$dcnas" scale "$x" --trained "$tmp/twice.jsonl" --out "$tmp/f"
contains "one key, two results: file, line and key" "$tmp/err" \
  'twice.jsonl:2: key "k1" was stored on line 1 with other results (val_accuracy 70'
printf '%s\n%s\n' "$line" "${line/\"key\":\"k1\"/\"key\":\"k2\",\"note\":1}" > "$tmp/unknown.jsonl"
check "trained file: unknown key" 2 "$dcnas" scale "$x" --trained "$tmp/unknown.jsonl" --out "$tmp/f"
contains "unknown key: file, line and key" "$tmp/err" 'unknown.jsonl:2: unknown key "note"'
printf '%s\n' "${line/\"label\"/\"val_accuracy\":99,\"label\"}" > "$tmp/member.jsonl"
check "trained file: a member name twice" 2 "$dcnas" scale "$x" --trained "$tmp/member.jsonl" --out "$tmp/f"
contains "member twice: file, line and key" "$tmp/err" 'member.jsonl:1: key "val_accuracy" given twice'
printf '%s\n%s\n' "$line" "$line" > "$tmp/same.jsonl"
check "trained file: one key, the same result twice" 2 "$dcnas" scale "$x" --trained "$tmp/same.jsonl" \
  --no-train --out "$tmp/f"
contains "the same result twice is read (the run stops for the untrained grid)" "$tmp/err" \
  "have no trained accuracy"
check "nothing trained and --no-train" 2 "$dcnas" scale "$x" --no-train --out "$tmp/f"
contains "missing accuracies counted" "$tmp/err" "have no trained accuracy"
[ ! -e "$tmp/f/family.json" ] && echo "ok   refused runs write no family" ||
  { echo "FAIL a refused run wrote a family"; fails=$((fails + 1)); }

# The shipped study's trained accuracies (data/study/) serve its settings without training.
study_args=(--accel tpu-v3 --stack xla-tpu --precision bf16 --calibration tpu-v3-xla-tpu-bf16
  --batch 128 --recipe r16_n5000_e6 --grid "d=1.0:2.0:0.25,w=1.0:1.3:0.1,r=1.0:1.4:0.05"
  --train-members 2 --no-train --trained "$root/data/study/trained.jsonl")
before=$(sha256sum "$root/data/study/trained.jsonl")
check "shipped study: x-b0 on tpu-v3, both modes" 0 "$dcnas" scale "$x" --mode both --name x-b0 \
  "${study_args[@]}" --out "$tmp/study"
contains "comparison: geomean speedup" "$tmp/study/comparison.txt" "geomean latency speedup"
contains "the accuracy columns' recipe named" "$tmp/study/lacs/family.txt" "accuracy: trained with recipe r16_"
json_ok "family.json parses" "$tmp/study/lacs/family.json"
json_ok "comparison.json parses" "$tmp/study/comparison.json"
for f in lacs/family.csv lacs/grid.csv lacs/family.svg lacs/family-latency.svg \
  lacs/family-published.svg flops/family.txt \
  lacs/members/x-b0-lacs-b7.json lacs/members/x-b0-lacs-b7.txt; do
  [ -s "$tmp/study/$f" ] && echo "ok   wrote $f" || { echo "FAIL no $f"; fails=$((fails + 1)); }
done
# References carry their published ImageNet top-1 (EfficientNet's; X's is not published), on
# their own chart, apart from the proxy accuracy.
if python3 -c '
import json, sys
refs = {p["model"]: p["published_top1"] for r in json.load(open(sys.argv[1]))["references"]
        for p in r["points"]}
sys.exit(0 if refs["efficientnet-b0"] == 77.1 and refs["efficientnet-b4"] == 82.9
         and refs["efficientnet-x-b0"] is None else 1)' "$tmp/study/lacs/family.json"; then
  echo "ok   references carry published top-1"
else
  echo "FAIL references' published top-1"; fails=$((fails + 1))
fi
contains "published axis titled" "$tmp/study/lacs/family-published.svg" "published ImageNet top-1 (%)"
check "member graph loads in dcnas sim" 0 "$dcnas" sim --graph "$tmp/study/lacs/members/x-b0-lacs-b2.json" \
  --accel tpu-v3
[ "$before" = "$(sha256sum "$root/data/study/trained.jsonl")" ] && echo "ok   --no-train leaves the file as it was" ||
  { echo "FAIL --no-train changed the trained file"; fails=$((fails + 1)); }

if "$dcnas" --help | grep -q "^  train "; then
  # A small real scaling: 8 grid points, a 1-epoch proxy on 1,000 images, 200 evaluation images.
  small=(--grid "d=1:1.5:0.5,w=1:1.1:0.1,r=1:1.2:0.2" --tolerance 0.3 --recipe r16_n1000_e1
    --limit-eval 200 --members 2 --train-members 1 --jobs 2)
  check "small real scaling, both modes" 0 "$dcnas" scale "$x" --mode both "${small[@]}" --out "$tmp/real"
  contains "trained on the proxy" "$tmp/err" "to train (r16"
  # A zero-cost label is not a training: the family's table says so and gives one column.
  zc=("${small[@]}")
  zc[5]=r16_b32_zc-naswot-a0.008-b7.6  # the value of small's --recipe
  check "scaling on a zero-cost label" 0 "$dcnas" scale "$x" --mode lacs "${zc[@]}" --out "$tmp/zc"
  contains "label named" "$tmp/zc/family.txt" "accuracy: zero-cost label of recipe r16_"
  contains "label column" "$tmp/zc/family.txt" "label %"
  json_ok "real family.json parses" "$tmp/real/flops/family.json"
  lines=$(wc -l < "$tmp/real/trained.jsonl")
  check "rerun from the trained file, nothing trained" 0 "$dcnas" scale "$x" --mode both "${small[@]}" \
    --no-train --trained "$tmp/real/trained.jsonl" --out "$tmp/again"
  cmp -s "$tmp/real/lacs/family.csv" "$tmp/again/lacs/family.csv" &&
    cmp -s "$tmp/real/comparison.txt" "$tmp/again/comparison.txt" &&
    echo "ok   the rerun reproduces the family and the comparison" ||
    { echo "FAIL the rerun differs"; fails=$((fails + 1)); }
  [ "$lines" = "$(wc -l < "$tmp/real/trained.jsonl")" ] && echo "ok   the rerun appended nothing" ||
    { echo "FAIL the rerun appended"; fails=$((fails + 1)); }
  # Resume: a run that reuses the file trains only what it lacks (a wider grid).
  check "wider grid trains only the new networks" 0 "$dcnas" scale "$x" --mode lacs \
    --grid "d=1:2:0.5,w=1:1.1:0.1,r=1:1.2:0.2" --tolerance 0.3 --recipe r16_n1000_e1 --limit-eval 200 \
    --members 2 --train-members 1 --jobs 2 --trained "$tmp/real/trained.jsonl" --references none \
    --out "$tmp/wider"
  contains "reused what it had" "$tmp/err" "already in"
  # kill -9 once the first training is written: the rerun trains only the rest, nothing twice.
  kill_args=(--mode lacs --grid "d=1:2:0.5,w=1:1.2:0.1,r=1:1.2:0.2" --tolerance 0.3
    --recipe r16_n1000_e1 --limit-eval 200 --members 1 --train-members 0 --jobs 1
    --references none --trained "$tmp/kill.jsonl" --out "$tmp/killed")
  "$dcnas" scale "$x" "${kill_args[@]}" > /dev/null 2> "$tmp/kill.err" &
  pid=$!
  for _ in $(seq 600); do
    [ -s "$tmp/kill.jsonl" ] && break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  first=$(wc -l < "$tmp/kill.jsonl")
  check "rerun after kill -9" 0 "$dcnas" scale "$x" "${kill_args[@]}"
  total=$(wc -l < "$tmp/kill.jsonl")
  unique=$(python3 -c 'import json,sys; print(len({json.loads(l)["key"] for l in open(sys.argv[1])}))' \
    "$tmp/kill.jsonl")
  [ "$first" -ge 1 ] && [ "$total" = "$unique" ] && [ "$total" -gt "$first" ] &&
    echo "ok   kill -9 lost nothing finished and trained nothing twice ($first, then $total)" ||
    { echo "FAIL kill -9: $first lines before, $total after, $unique distinct"; fails=$((fails + 1)); }
fi
smoke_finish
