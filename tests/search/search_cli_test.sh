#!/usr/bin/env bash
# dcnas space / accuracy-data / surrogate on the shipped spaces and synthetic accuracy data:
# outputs parse, bad input exits 2 naming the file, line or key, refused files stay untouched.
set -u
dcnas="$1"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../cli/smoke_lib.sh"
spaces="$DCNAS_SOURCE_ROOT/data/search_spaces"
dc="$spaces/dc-accelerator.yaml"

for s in dc-accelerator mnasnet per-layer-example; do
  check "space show $s" 0 "$dcnas" space show "$spaces/$s.yaml"
  contains "space show $s: fingerprint" "$tmp/out" "fingerprint"
done
check "space sample json" 0 "$dcnas" space sample "$dc" -n 5 --seed 3 --format json
json_ok "space sample json parses" "$tmp/out"
enc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["encoding"])' "$tmp/out")
check "space decode" 0 "$dcnas" space decode "$dc" "$enc"
contains "decode names the stage ops" "$tmp/out" "stage 1:"
check "space decode: wrong length" 2 "$dcnas" space decode "$dc" "0.1_2"
contains "decode: names the space" "$tmp/err" "dc-accelerator"
check "space decode: index out of range" 2 "$dcnas" space decode "$dc" "${enc/#?/z}"
sed 's/^version: 1/version: 1\nbogus_key: 3/' "$dc" > "$tmp/bad.yaml"
check "space: unknown key" 2 "$dcnas" space show "$tmp/bad.yaml"
contains "unknown key named with file and line" "$tmp/err" "bad.yaml:[0-9][0-9]*: unknown key 'bogus_key'"
sed 's/kernel: \[3, 5, 7\]/kernel: []/' "$dc" > "$tmp/empty.yaml"
check "space: empty choice list" 2 "$dcnas" space show "$tmp/empty.yaml"
contains "empty choice list named" "$tmp/err" "key 'defaults.kernel': empty choice list"
check "space: missing file" 2 "$dcnas" space show "$tmp/none.yaml"

# Synthetic accuracy data: accuracy from a per-choice table, so a surrogate can learn it.
"$dcnas" space sample "$dc" -n 120 --seed 5 --format json > "$tmp/sample.json"
fp=$("$dcnas" space show "$dc" | head -1 | sed 's/.*fingerprint //')
python3 - "$tmp/sample.json" "$fp" > "$tmp/acc.csv" <<'PY'
import json, random, sys
rows = json.load(open(sys.argv[1])); fp = sys.argv[2]
cols = ("space,fingerprint,encoding,depth,width,resolution,proxy_resolution,proxy_width,"
        "removed_downsamples,epochs,train_images,batch,optimizer,learning_rate,seed,replicate,"
        "val_accuracy,test_accuracy,params,flops,proxy_params,train_time_s,blocks")
print(cols)
rng = random.Random(1); effect = {}
for i, r in enumerate(rows):
    digits = r["encoding"].replace("_", ".").split(".")
    acc = 85 + sum(effect.setdefault((j, d), rng.gauss(0, 0.6)) for j, d in enumerate(digits))
    print(f"dc-accelerator,{fp},{r['encoding']},1,1,1,32,0.25,1,2,5000,128,sgd,0,{i},0,"
          f"{acc:.3f},{acc:.3f},{r['params']},{r['flops']},1000,1.5,{' '.join(r['blocks'])}")
PY
check "accuracy-data stats" 0 "$dcnas" accuracy-data stats "$tmp/acc.csv" --space "$dc"
contains "stats counts the runs" "$tmp/out" "120"
awk -F, -v OFS=, 'NR == 3 { $17 = "nan" } { print }' "$tmp/acc.csv" > "$tmp/nan.csv"
check "accuracy-data: NaN accuracy" 2 "$dcnas" accuracy-data stats "$tmp/nan.csv"
contains "NaN named with line and column" "$tmp/err" "nan.csv:3: column '.*_accuracy'"
cut -d, -f1-5 "$tmp/acc.csv" > "$tmp/cols.csv"
check "accuracy-data: missing columns" 2 "$dcnas" accuracy-data stats "$tmp/cols.csv"
contains "missing column named" "$tmp/err" "missing column"
head -1 "$tmp/acc.csv" > "$tmp/header-only.csv"
check "accuracy-data: a header alone" 2 "$dcnas" accuracy-data stats "$tmp/header-only.csv"
contains "a header alone: no runs" "$tmp/err" "header-only.csv: no runs"
check "accuracy-data: --against a header alone" 2 "$dcnas" accuracy-data stats "$tmp/acc.csv" \
  --against "$tmp/header-only.csv"
check "accuracy-data: another space" 2 "$dcnas" accuracy-data stats "$tmp/acc.csv" --space "$spaces/mnasnet.yaml"
contains "another space: line named" "$tmp/err" "acc.csv:2: encoding of another space"
check "generate: no --space" 2 "$dcnas" accuracy-data generate --count 2 --out "$tmp/g.csv"
check "generate: --jobs 0" 2 "$dcnas" accuracy-data generate --space "$dc" --count 2 --jobs 0 --out "$tmp/g.csv"
check "generate: unknown optimizer" 2 "$dcnas" accuracy-data generate --space "$dc" --count 2 --optimizer adam --out "$tmp/g.csv"
check "generate: --lr nan" 2 "$dcnas" accuracy-data generate --space "$dc" --count 2 --lr nan --out "$tmp/g.csv"
if [ -e "$tmp/g.csv" ]; then echo "FAIL refused generate wrote a file"; fails=$((fails + 1)); else echo "ok   refused generate wrote nothing"; fi
check "generate: --count 0" 2 "$dcnas" accuracy-data generate --space "$dc" --count 0 --out "$tmp/g.csv"

if "$dcnas" --help | grep -q surrogate; then
  check "surrogate fit" 0 "$dcnas" surrogate fit --data "$tmp/acc.csv" --space "$dc" --out "$tmp/s.ubj" --members 2
  contains "fit reports tau" "$tmp/out" "Kendall tau"
  contains "fit reports the learning curve" "$tmp/out" "learning curve"
  json_ok "fit report parses" "$tmp/s.ubj.report.json"
  contains "parity chart written" "$tmp/s.ubj.parity.svg" "<svg"
  check "surrogate eval" 0 "$dcnas" surrogate eval --data "$tmp/acc.csv" --model "$tmp/s.ubj"
  check "surrogate predict" 0 "$dcnas" surrogate predict --model "$tmp/s.ubj" "$enc"
  contains "predict prints the encoding" "$tmp/out" "$enc"
  check "surrogate fit: another space" 2 "$dcnas" surrogate fit --data "$tmp/acc.csv" --space "$spaces/mnasnet.yaml" --out "$tmp/m.ubj"
  if [ -e "$tmp/m.ubj" ]; then echo "FAIL refused fit wrote a model"; fails=$((fails + 1)); else echo "ok   refused fit wrote nothing"; fi
  check "surrogate fit: bad extension" 2 "$dcnas" surrogate fit --data "$tmp/acc.csv" --space "$dc" --out "$tmp/s.bin" --no-learning-curve
  if ls "$tmp"/s.bin* > /dev/null 2>&1; then
    echo "FAIL bad extension left files: $(ls "$tmp"/s.bin*)"; fails=$((fails + 1))
  else
    echo "ok   bad extension refused before the fit, nothing written"
  fi
  check "surrogate predict: encoding of another space" 2 "$dcnas" surrogate predict --model "$tmp/s.ubj" "0_1"
  echo '{"format": "dcnas-surrogate", "version": 1}' > "$tmp/bad.json"
  check "surrogate: corrupt file" 2 "$dcnas" surrogate predict --model "$tmp/bad.json" "$enc"
  contains "corrupt file named" "$tmp/err" "bad.json"
fi
smoke_finish
