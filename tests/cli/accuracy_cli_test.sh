#!/usr/bin/env bash
# dcnas accuracy-data import | stats and surrogate fit | curve on a generated miniature of
# NAS-Bench-Macro (never the benchmark itself): the import's rows, recipe and source, its refusals
# (exit 2 naming the file, key and value, nothing written), both accuracy forms (full and plain
# encoding,accuracy) in fit, stats and search --accuracy table:, --holdout, and the curve's files.
set -u
dcnas="$1"
# shellcheck source=smoke_lib.sh
source "$(dirname "$0")/smoke_lib.sh"

# A miniature macro space: two downsampling layers around a stage of two layers that may vanish.
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
# 81 keys, 63 networks; keys of one network (x01y and x10y) carry equal values.
python3 - "$tmp" <<'PY'
import json, math, random, sys
out = sys.argv[1]
rng = random.Random(3)
bench, net = {}, {}
for k in range(81):
    d = [k // 27, (k // 9) % 3, (k // 3) % 3, k % 3]
    mid = sorted(d[1:3], key=lambda v: v == 0)  # skips move to the stage's end
    canon = (d[0], mid[0], mid[1], d[3])
    if canon not in net:
        base = 80 + 2 * d[0] + 1.5 * sum(1 for v in mid if v) + 0.7 * d[3] + rng.gauss(0, 0.4)
        acc = [round(base + rng.gauss(0, 0.3), 4) for _ in range(3)]
        m = sum(acc) / 3
        net[canon] = {"test_acc": acc, "mean_acc": m,
                      "std": math.sqrt(sum((a - m) ** 2 for a in acc) / 3),
                      "params": 100000 + 1000 * k, "flops": 2000000}
    bench["".join(map(str, d))] = net[canon]
json.dump(bench, open(out + "/bench.json", "w"))
b = dict(bench); b["0000"] = dict(b["0000"], test_acc=[float("nan")] * 3)
json.dump(b, open(out + "/nan.json", "w"))   # Python writes NaN, which is not JSON
b = dict(bench); b["0100"] = dict(b["0100"], mean_acc=12.5)
json.dump(b, open(out + "/mean.json", "w"))
b = dict(bench); b["0100"] = dict(b["0010"], params=1)
json.dump(b, open(out + "/dup.json", "w"))
b = dict(bench); b["00003"] = b["0000"]
json.dump(b, open(out + "/key.json", "w"))
PY
imp=(accuracy-data import --format nas-bench-macro --space "$tmp/mini.yaml")
check "import" 0 "$dcnas" "${imp[@]}" "$tmp/bench.json" --out "$tmp/imp.csv"
contains "import counts keys and networks" "$tmp/out" "81 keys: 63 networks"
contains "import names the recipe" "$tmp/out" "r32_w1_rd0_e50_n50000_b256_sgd_lr0_data-cifar10"
contains "import compares params" "$tmp/out" "of 63 networks' trained-network parameter counts differ"
if [ "$(wc -l <"$tmp/imp.csv")" -eq $((1 + 63 * 3)) ]; then echo "ok   one row per replicate"; else
  echo "FAIL rows: $(wc -l <"$tmp/imp.csv")"; fails=$((fails + 1)); fi
contains "rows carry the dataset and the source" "$tmp/imp.csv" ",cifar10,.*,nas-bench-macro:[0-9a-f]\{64\},,$"
check "import --help lists the formats" 0 "$dcnas" accuracy-data import --help
contains "formats listed" "$tmp/out" "nas-bench-macro: NAS-Bench-Macro"
check "import: NaN" 2 "$dcnas" "${imp[@]}" "$tmp/nan.json" --out "$tmp/bad.csv"
contains "NaN: file and key named" "$tmp/err" "nan.json: byte [0-9]* (in key '0000')"
check "import: mean disagrees" 2 "$dcnas" "${imp[@]}" "$tmp/mean.json" --out "$tmp/bad.csv"
contains "mean: key and value named" "$tmp/err" "mean.json: key '0100': .*mean_acc 12.5"
check "import: one network, two values" 2 "$dcnas" "${imp[@]}" "$tmp/dup.json" --out "$tmp/bad.csv"
contains "both keys named" "$tmp/err" "keys '0010' and '0100' are one network"
check "import: a key outside the space" 2 "$dcnas" "${imp[@]}" "$tmp/key.json" --out "$tmp/bad.csv"
contains "key named" "$tmp/err" "key '00003': 5 digits"
check "import: unknown format" 2 "$dcnas" accuracy-data import --format nas-bench-201 "$tmp/bench.json" --space "$tmp/mini.yaml" --out "$tmp/bad.csv"
contains "formats offered" "$tmp/err" "(nas-bench-macro)"
if [ -e "$tmp/bad.csv" ]; then echo "FAIL a refused import wrote its output"; fails=$((fails + 1)); else
  echo "ok   refused imports wrote nothing"; fi

check "stats on the import" 0 "$dcnas" accuracy-data stats "$tmp/imp.csv" --space "$tmp/mini.yaml"
contains "stats: all replicate pairs" "$tmp/out" "3 / 3"
contains "stats: intra-class correlation" "$tmp/out" "intra-class correlation, test / validation *[01]\.[0-9]* / n/a"
# The plain form: one row per replicate, from the import.
python3 - "$tmp/imp.csv" >"$tmp/plain.csv" <<'PY'
import csv, sys
print("encoding,accuracy")
for r in csv.DictReader(open(sys.argv[1])): print(f"{r['encoding']},{r['test_accuracy']}")
PY
check "stats on the plain form" 0 "$dcnas" accuracy-data stats "$tmp/plain.csv" --space "$tmp/mini.yaml"
contains "plain: replicates found" "$tmp/out" "architectures with 2+ replicates  *63"

if "$dcnas" --help | grep -q surrogate; then
  check "fit: the default holdout leaves too few to test" 2 "$dcnas" surrogate fit --data "$tmp/imp.csv" --space "$tmp/mini.yaml" --out "$tmp/s.ubj"
  contains "holdout refusal says why" "$tmp/err" "leave .* to test; a test set needs at least 10"
  check "fit --holdout 0" 0 "$dcnas" surrogate fit --data "$tmp/imp.csv" --space "$tmp/mini.yaml" --out "$tmp/s.ubj" --holdout 0 --members 2
  contains "fit on all 63" "$tmp/out" "train 63, valid 0, test 0"
  contains "label is the test accuracy" "$tmp/out" "label: mean test_accuracy"
  json_ok "report parses" "$tmp/s.ubj.report.json"
  check "fit --holdout 0.4 on the plain form" 0 "$dcnas" surrogate fit --data "$tmp/plain.csv" --space "$tmp/mini.yaml" --out "$tmp/p.ubj" --holdout 0.4 --members 2 --no-learning-curve
  contains "plain fit reports tau" "$tmp/out" "Kendall tau"
  check "fit --holdout nan" 2 "$dcnas" surrogate fit --data "$tmp/imp.csv" --space "$tmp/mini.yaml" --out "$tmp/x.ubj" --holdout nan
  contains "holdout named" "$tmp/err" "\-\-holdout 'nan'"
  check "fit: plain and full together" 2 "$dcnas" surrogate fit --data "$tmp/imp.csv" "$tmp/plain.csv" --space "$tmp/mini.yaml" --out "$tmp/x.ubj" --holdout 0
  contains "recipes named" "$tmp/err" "recipe unrecorded"
  check "predict with it" 0 "$dcnas" surrogate predict --model "$tmp/s.ubj" 1_1_2_0
  check "curve" 0 "$dcnas" surrogate curve --data "$tmp/imp.csv" --space "$tmp/mini.yaml" --sizes 20,40 --seeds 3 --members 2 --out "$tmp/curve"
  contains "curve table" "$tmp/out" "label ceiling"
  for f in curve.csv curve.txt curve.svg curve.json; do
    if [ -s "$tmp/curve/$f" ]; then echo "ok   curve wrote $f"; else echo "FAIL curve: no $f"; fails=$((fails + 1)); fi
  done
  json_ok "curve json parses" "$tmp/curve/curve.json"
  check "curve: a size that leaves too few" 2 "$dcnas" surrogate curve --data "$tmp/imp.csv" --space "$tmp/mini.yaml" --sizes 60 --seeds 1 --out "$tmp/c2"
  contains "size named" "$tmp/err" "size 60"
  check "curve: bad sizes" 2 "$dcnas" surrogate curve --data "$tmp/imp.csv" --space "$tmp/mini.yaml" --sizes 20,x --out "$tmp/c2"

  # The ImageNet surrogate on the zoo's published table (the primary rows of 41 zoo models and 78
  # timm architectures, several families): the
  # leave-one-family-out report, its file for imagenet-predict and a search, and its refusals.
  root="${DCNAS_SOURCE_ROOT:?}"
  check "surrogate imagenet" 0 "$dcnas" surrogate imagenet --published "$root/data/accuracy/published-imagenet.csv" \
    --out "$tmp/imagenet.ubj" --json "$tmp/imagenet.json" --draws 50 --space "$root/data/search_spaces/dc-accelerator.yaml" --samples 20
  contains "imagenet: families held out" "$tmp/out" "leave one family out (119 networks"
  contains "imagenet: the space's extrapolation" "$tmp/out" "of 20 sampled networks have a feature outside"
  json_ok "imagenet report parses" "$tmp/imagenet.json"
  check "imagenet-predict zoo models" 0 "$dcnas" surrogate imagenet-predict --model "$tmp/imagenet.ubj" efficientnet-b0 timm:mobilenetv2_100
  contains "imagenet-predict: a row per model" "$tmp/out" "timm:mobilenetv2_100"
  check "imagenet-predict: a search-space surrogate is refused" 2 "$dcnas" surrogate imagenet-predict --model "$tmp/s.ubj" efficientnet-b0
  contains "imagenet-predict names the kind" "$tmp/err" "not an ImageNet surrogate"
  check "imagenet: no table" 2 "$dcnas" surrogate imagenet --published "$tmp/none.csv"
  check "imagenet: a bad extension" 2 "$dcnas" surrogate imagenet --published "$root/data/accuracy/published-imagenet.csv" --out "$tmp/x.bin"
  check "search --accuracy imagenet:" 0 "$dcnas" search --space "$root/data/search_spaces/dc-accelerator.yaml" \
    --accuracy "imagenet:$tmp/imagenet.ubj" --latency none --budget 20 --out "$tmp/imagenet-search"
  check "search --accuracy imagenet: below the tau floor" 2 "$dcnas" search --space "$root/data/search_spaces/dc-accelerator.yaml" \
    --accuracy "imagenet:$tmp/imagenet.ubj" --min-surrogate-tau 0.99 --latency none --budget 20 --out "$tmp/imagenet-search2"
  contains "tau floor named" "$tmp/err" "leave-one-family-out tau"
  check "scale --accuracy imagenet:" 0 "$dcnas" scale efficientnet-x-b0 --accel tpu-v3 --mode both \
    --accuracy "imagenet:$tmp/imagenet.ubj" --train-members 3 --members 3 --out "$tmp/imagenet-lacs"
  contains "scale: the accuracies say predicted" "$tmp/out" "geomean speedup at equal predicted ImageNet accuracy"
  check "scale --accuracy: another kind" 2 "$dcnas" scale efficientnet-x-b0 --accel tpu-v3 \
    --accuracy "surrogate:$tmp/s.ubj" --out "$tmp/imagenet-lacs2"
  contains "scale --accuracy names the valid kind" "$tmp/err" "valid: imagenet:FILE"
fi

# Proxy validity: a made-up proxy of two seeds with curves on 30 of the networks, against the import.
python3 - "$tmp" <<'PY'
import csv, random, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/imp.csv")))
rng = random.Random(5)
nets = sorted({r["encoding"] for r in rows})[:30]
truth = {n: sum(float(r["test_accuracy"]) for r in rows if r["encoding"] == n) for n in nets}
cols = list(rows[0].keys())
def write(name, mutate=None):
    with open(d + "/" + name, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for i, n in enumerate(nets):
            for rep in (0, 1):
                r = dict(next(x for x in rows if x["encoding"] == n))
                acc = truth[n] / 3 - 15 + rng.gauss(0, 0.2)
                r.update(proxy_resolution="16", proxy_width="0.25", removed_downsamples="1",
                         epochs="2", train_images="5000", batch="128", dataset="fashion-mnist",
                         replicate=str(rep), seed=str(100 + rep), val_accuracy=f"{acc:.2f}",
                         test_accuracy=f"{acc - 1:.2f}", train_time_s="10", source="trained",
                         val_curve=f"{acc - 20:.2f};{acc:.2f}")
                if mutate: mutate(i, r)
                w.writerow(r)
write("proxy.csv")
write("mixed.csv", lambda i, r: r.update(epochs="3", val_curve="") if i == 3 else None)
PY
va=(accuracy-data validity --reference "$tmp/imp.csv" --space "$tmp/mini.yaml")
check "validity" 0 "$dcnas" "${va[@]}" "$tmp/proxy.csv" --draws 200 --csv "$tmp/v.csv" --json "$tmp/v.json"
contains "validity: the curve's epoch" "$tmp/out" "val after epoch 1/2, 1 seed  *30"
contains "validity: two seeds averaged" "$tmp/out" "mean of 2 seeds"
contains "validity: baselines" "$tmp/out" "free (full-size flops)"
contains "validity: the proxy's seed noise" "$tmp/out" "seed noise of r16_w0.25_rd1_e2_n5000"
contains "validity: the final label ranks like the truth" "$tmp/out" "epochs 2/2, mean of 2 seeds  *30  *0\.[5-9]"
json_ok "validity json parses" "$tmp/v.json"
contains "validity csv" "$tmp/v.csv" "^file,recipe,epochs,of_epochs,seeds,networks,tau,tau_lo,tau_hi,cost_s,mean_accuracy"
check "validity: a candidate of two recipes" 2 "$dcnas" "${va[@]}" "$tmp/mixed.csv"
contains "validity: the mixed file named" "$tmp/err" "mixed.csv:[0-9]*: .*recipe"
check "validity: no reference" 2 "$dcnas" accuracy-data validity --space "$tmp/mini.yaml" "$tmp/proxy.csv"
check "validity: --draws 0" 2 "$dcnas" "${va[@]}" "$tmp/proxy.csv" --draws 0
check "validity: --level 1" 2 "$dcnas" "${va[@]}" "$tmp/proxy.csv" --level 1
check "validity: --target" 2 "$dcnas" "${va[@]}" "$tmp/proxy.csv" --target accuracy
contains "validity: the target named" "$tmp/err" "'accuracy'"
check "validity: the reference as a candidate of itself" 0 "$dcnas" "${va[@]}" "$tmp/imp.csv" --target test_accuracy --draws 50
check "stats: the label's ceiling" 0 "$dcnas" accuracy-data stats "$tmp/proxy.csv" --space "$tmp/mini.yaml"
contains "stats: ceiling of 1 seed" "$tmp/out" "ceiling against a label of 1 seed, validation"
contains "stats: ceiling of the mean of 2" "$tmp/out" "ceiling against a label of the mean of 2 seeds, validation"
# Zero-cost tables against the reference: scores made up from the params, on all networks.
python3 - "$tmp" <<'PY'
import csv, sys
d = sys.argv[1]
seen = {}
for r in csv.DictReader(open(d + "/imp.csv")):
    seen.setdefault(r["encoding"], int(r["params"]))
with open(d + "/zc.csv", "w") as f:
    f.write("encoding,synflow,naswot,grad_norm,snip,proxy_params,time_s\n")
    for e, p in seen.items():
        f.write(f"{e},{p * 1e6},{300 + p / 1000},{p / 1e4},{p / 1e5},{p},0.25\n")
open(d + "/zc-bad.csv", "w").write("encoding,synflow,naswot\n")
PY
check "validity --zero-cost alone" 0 "$dcnas" "${va[@]}" --zero-cost "$tmp/zc.csv" --draws 50
contains "validity: zero-cost section" "$tmp/out" "zero-cost scores of .*zc.csv against the reference (63 networks)"
contains "validity: naswot row with its cost" "$tmp/out" "^naswot .* 0.250"
check "validity --zero-cost with a candidate" 0 "$dcnas" "${va[@]}" "$tmp/proxy.csv" --zero-cost "$tmp/zc.csv" --draws 50
contains "validity: zero-cost on the candidate's networks" "$tmp/out" "zero-cost scores of .*zc.csv against the reference (30 networks)"
check "validity: a zero-cost table without its columns" 2 "$dcnas" "${va[@]}" --zero-cost "$tmp/zc-bad.csv"
contains "validity: the bad table named" "$tmp/err" "zc-bad.csv:1: missing column 'grad_norm'"
if "$dcnas" --help | grep -q surrogate; then
  sc=(surrogate curve --data "$tmp/imp.csv" --space "$tmp/mini.yaml" --sizes 20 --seeds 2 --members 1)
  check "curve --features onehot,graph" 0 "$dcnas" "${sc[@]}" --features onehot,graph --out "$tmp/cg"
  contains "curve names its features" "$tmp/out" "features onehot,graph"
  check "curve with zero-cost features" 0 "$dcnas" "${sc[@]}" --features counts,zero-cost --zero-cost "$tmp/zc.csv" --out "$tmp/cz"
  check "curve: zero-cost set without a table" 2 "$dcnas" "${sc[@]}" --features zero-cost --out "$tmp/cx"
  contains "curve: the table asked for" "$tmp/err" "needs --zero-cost FILE"
  check "curve: an unknown feature set" 2 "$dcnas" "${sc[@]}" --features onehot,depth --out "$tmp/cx"
  contains "curve: the set named" "$tmp/err" "unknown feature set 'depth'"
  check "fit with zero-cost features" 0 "$dcnas" surrogate fit --data "$tmp/imp.csv" --space "$tmp/mini.yaml" --holdout 0 --members 1 --no-learning-curve --features counts,zero-cost --zero-cost "$tmp/zc.csv" --out "$tmp/zc.ubj"
  check "predict with a zero-cost surrogate" 2 "$dcnas" surrogate predict --model "$tmp/zc.ubj" 1_1_2_0
  contains "predict: why not" "$tmp/err" "zc.ubj: fitted with zero-cost features"
fi
if "$dcnas" accuracy-data generate --help | grep -q stratify-by; then
  check "generate --stratify-by: more strata than networks" 2 "$dcnas" accuracy-data generate --space "$tmp/mini.yaml" --stratify-by "$tmp/imp.csv" --count 64 --out "$tmp/g.csv"
  contains "stratify: the file and counts named" "$tmp/err" "imp.csv: 63 networks, cannot draw 64"
  check "generate --stratify-by with --scaling" 2 "$dcnas" accuracy-data generate --space "$tmp/mini.yaml" --stratify-by "$tmp/imp.csv" --count 6 --scaling --out "$tmp/g.csv"
  if [ -e "$tmp/g.csv" ]; then echo "FAIL a refused generation wrote its output"; fails=$((fails + 1)); else
    echo "ok   refused generations wrote nothing"; fi
fi

# The search takes both forms as its accuracy table.
for t in imp plain; do
  check "search --accuracy table: ($t)" 0 "$dcnas" search --space "$tmp/mini.yaml" --accel tpu-v3 --target-ms 15 --accuracy "table:$tmp/$t.csv" --strategy random --budget 20 --references none --out "$tmp/search-$t"
done
smoke_finish
