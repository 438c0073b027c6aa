#!/usr/bin/env bash
# dcnas accuracy-data zero-cost on a miniature macro space (the accuracy_cli_test.sh miniature):
# one row per distinct network with finite scores and the settings, a resume after a torn last
# row (the same scores again), and refusals with exit 2 naming the file, network or setting: a
# missing accuracy CSV, an existing file without --resume, a network over the memory limit, a
# resume with another batch. Run only when dcnas is built with LibTorch.
set -u
dcnas="$1"
# shellcheck source=smoke_lib.sh
source "$(dirname "$0")/smoke_lib.sh"

cat >"$tmp/mini.yaml" <<'YAML'
format: dcnas-search-space
version: 1
name: mini-macro
network: {resolution: 64, stem_filters: 16, head_filters: 64, activation: relu}
defaults:
  se: 0
  activation: relu
  op:
    - {block: skip}
    - {block: mbconv, expand: 3, kernel: 3}
    - {block: mbconv, expand: 6, kernel: 5}
stages:
  - {stride: 2, filters: 16, repeats: 1, choices: {op: [{block: fused, expand: 1, kernel: 1}, {block: mbconv, expand: 3, kernel: 3}, {block: mbconv, expand: 6, kernel: 5}]}}
  - {stride: 1, filters: 16, repeats: 2, per_layer: true}
  - {stride: 2, filters: 32, repeats: 1, choices: {op: [{block: fused, expand: 1, kernel: 1}, {block: mbconv, expand: 3, kernel: 3}, {block: mbconv, expand: 6, kernel: 5}]}}
YAML
# A benchmark of 5 keys (4 networks: keys 0100 and 0010 are one network), imported as accuracy data.
python3 - "$tmp" <<'PY'
import json, sys
out = sys.argv[1]
acc = {"0000": 80.0, "0100": 82.0, "0010": 82.0, "1111": 84.0, "2202": 86.0}
bench = {k: {"test_acc": [a, a, a], "mean_acc": a, "std": 0.0, "params": 100000, "flops": 2000000}
         for k, a in acc.items()}
json.dump(bench, open(out + "/bench.json", "w"))
PY
check "import" 0 "$dcnas" accuracy-data import --format nas-bench-macro --space "$tmp/mini.yaml" \
  "$tmp/bench.json" --out "$tmp/acc.csv"

zc=(accuracy-data zero-cost --space "$tmp/mini.yaml" --data "$tmp/acc.csv"
  --proxy-resolution 16 --proxy-width 0.25 --removed-downsamples 1)
zc8=("${zc[@]}" --batch 8)
check "zero-cost" 0 "$dcnas" "${zc8[@]}" --out "$tmp/zc.csv"
contains "summary" "$tmp/err" "4 scored, 0 already done of 4 networks"
contains "progress" "$tmp/err" "\[4/4\]"
if [ "$(head -1 "$tmp/zc.csv")" = "encoding,synflow,naswot,grad_norm,snip,proxy_params,time_s,space,recipe,batch,seed" ]; then
  echo "ok   header"; else echo "FAIL header: $(head -1 "$tmp/zc.csv")"; fails=$((fails + 1)); fi
if python3 - "$tmp/zc.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, len(rows)
assert len({r["encoding"] for r in rows}) == 4
for r in rows:
    for k in ("synflow", "naswot", "grad_norm", "snip", "time_s"):
        assert math.isfinite(float(r[k])), (k, r[k])
    assert float(r["synflow"]) > 0 and float(r["grad_norm"]) > 0 and float(r["snip"]) > 0, r
    assert int(r["proxy_params"]) > 0
    assert (r["space"], r["recipe"], r["batch"], r["seed"]) == ("mini-macro", "r16_w0.25_rd1", "8", "0"), r
PY
then echo "ok   one row per network, finite scores, the settings"; else
  echo "FAIL rows of zc.csv"; fails=$((fails + 1)); fi

# A kill while writing the last row: a torn line. --resume cuts it and scores that network again,
# to the same scores (one thread, the same seed).
cp "$tmp/zc.csv" "$tmp/full.csv"
head -c -20 "$tmp/full.csv" >"$tmp/zc.csv"
check "resume after a torn row" 0 "$dcnas" "${zc8[@]}" --out "$tmp/zc.csv" --resume
contains "resume scores one" "$tmp/err" "1 scored, 3 already done of 4 networks"
if diff <(cut -d, -f1-6 "$tmp/full.csv") <(cut -d, -f1-6 "$tmp/zc.csv") >/dev/null; then
  echo "ok   resumed file equals the first run (scores deterministic)"; else
  echo "FAIL resumed file differs"; diff "$tmp/full.csv" "$tmp/zc.csv" | head -5; fails=$((fails + 1)); fi
check "resume with nothing left" 0 "$dcnas" "${zc8[@]}" --out "$tmp/zc.csv" --resume
contains "nothing to score" "$tmp/err" "0 scored, 4 already done"

check "an existing file without --resume" 2 "$dcnas" "${zc8[@]}" --out "$tmp/zc.csv"
contains "exists named" "$tmp/err" "zc.csv: exists"
check "resume with another batch" 2 "$dcnas" "${zc[@]}" --batch 4 --out "$tmp/zc.csv" --resume
contains "the setting named" "$tmp/err" "zc.csv:2: batch '8' differs from this run's '4' (--batch)"
check "missing accuracy CSV" 2 "$dcnas" accuracy-data zero-cost --space "$tmp/mini.yaml" \
  --data "$tmp/none.csv" --out "$tmp/none-zc.csv"
contains "missing file named" "$tmp/err" "none.csv"
check "a network over the memory limit" 2 "$dcnas" "${zc8[@]}" --out "$tmp/mem.csv" --max-memory-gib 1e-6
contains "network named" "$tmp/err" "zero-cost proxies of 'mini-macro:.*exceeds the limit"
if [ -e "$tmp/mem.csv" ] || [ -e "$tmp/none-zc.csv" ]; then echo "FAIL a refused run wrote its output"
  fails=$((fails + 1)); else echo "ok   refused runs wrote nothing"; fi
check "missing --data" 2 "$dcnas" accuracy-data zero-cost --space "$tmp/mini.yaml" --out "$tmp/x.csv"

# Zero-cost labels: the calibration refuses too few networks; a label generates rows that say so.
check "calibrate-score: too few networks" 2 "$dcnas" accuracy-data calibrate-score \
  --reference "$tmp/acc.csv" --space "$tmp/mini.yaml" --zero-cost "$tmp/zc.csv"
contains "count and file named" "$tmp/err" "zc.csv: 4 networks shared with .*acc.csv (a calibration needs at least 10)"
label=zc-naswot-a0.008-b7.6
gen=(accuracy-data generate --space "$tmp/mini.yaml" --count 2 --proxy-resolution 16
  --proxy-width 0.25 --removed-downsamples 1 --batch 8 --label "$label")
check "generate with a zero-cost label" 0 "$dcnas" "${gen[@]}" --out "$tmp/zl.csv"
contains "labelled rows" "$tmp/zl.csv" ",0,8,8,sgd,0,fashion-mnist,.*,trained,,$label$"
check "labelled rows read back" 0 "$dcnas" accuracy-data stats "$tmp/zl.csv"
contains "stats name the runs" "$tmp/out" "runs  *2"
check "a bad label" 2 "$dcnas" "${gen[@]/$label/zc-naswot-a0-b7}" --out "$tmp/bad-label.csv"
contains "label named" "$tmp/err" "--label: zero-cost label 'zc-naswot-a0-b7': a scale of 0"
check "trained rows refused beside labelled ones" 2 "$dcnas" accuracy-data generate \
  --space "$tmp/mini.yaml" --count 2 --proxy-resolution 16 --epochs 1 --train-images 1000 \
  --limit-eval 100 --out "$tmp/zl.csv" --resume
contains "recipes named" "$tmp/err" "zl.csv"
printf 'model,top1,resolution,source\nregnetx-200mf,68.9,224,a\nmobilenetv2-1.0,72.0,224,b\nmnasnet-b1,73.456,224,c\n' >"$tmp/top1.csv"
check "zoo with the label" 0 "$dcnas" accuracy-data zoo --published "$tmp/top1.csv" \
  --out "$tmp/zoo.csv" --label "$label" --batch 8 --json "$tmp/zoo.json"
contains "zoo tau" "$tmp/out" "Kendall tau against top-1 (3 models"
check "zoo resumes without scoring" 0 "$dcnas" accuracy-data zoo --published "$tmp/top1.csv" \
  --out "$tmp/zoo.csv" --label "$label" --batch 8
if grep -q "zoo models to label" "$tmp/err"; then echo "FAIL zoo rescored"; fails=$((fails + 1))
else echo "ok   nothing scored again"; fi
check "zoo: another recipe in the file" 2 "$dcnas" accuracy-data zoo --published "$tmp/top1.csv" \
  --out "$tmp/zoo.csv" --label zc-naswot-a0.009-b7.6 --batch 8
contains "line named" "$tmp/err" "zoo.csv:2: recipe .*one file per recipe and seed"
printf 'model,top1,resolution,source\nresnet-9000,1,224,x\n' >"$tmp/badtop1.csv"
check "zoo: unknown model" 2 "$dcnas" accuracy-data zoo --published "$tmp/badtop1.csv" \
  --out "$tmp/zoo2.csv" --label "$label"
contains "model named" "$tmp/err" "badtop1.csv:2: column 'model': 'resnet-9000' is not a zoo model"
smoke_finish
