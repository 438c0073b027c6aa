#!/usr/bin/env bash
# accuracy-data generate --halving and accuracy-data halving: the rungs' files, promotions that
# `halving` recomputes from them, a resume that trains nothing more, the report against full
# training, and bad usage (exit 2, nothing written).
set -u
dcnas="$1"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../cli/smoke_lib.sh"
space="$DCNAS_SOURCE_ROOT/data/search_spaces/nas-bench-macro.yaml"
bench="$DCNAS_SOURCE_ROOT/data/benchmarks/nas-bench-macro/nas-bench-macro_cifar10.json"
check "import the benchmark" 0 "$dcnas" accuracy-data import --format nas-bench-macro "$bench" --space "$space" --out "$tmp/bench.csv"
opts=(--space "$space" --stratify-by "$tmp/bench.csv" --count 4 --seed 3 --train-images 1000
      --limit-eval 128 --proxy-resolution 16 --jobs 2)
check "generate --halving" 0 "$dcnas" accuracy-data generate "${opts[@]}" --epochs 2 --halving 2 --min-epochs 1 --out "$tmp/h.csv"
contains "rungs announced" "$tmp/err" "rung 2 of 2: 2 networks for 2 epoch(s)"
rows() { echo $(($(wc -l < "$1") - 1)); }
if [ "$(rows "$tmp/h.e1.csv")" -eq 4 ] && [ "$(rows "$tmp/h.csv")" -eq 2 ]; then
  echo "ok   4 networks at 1 epoch, 2 at 2 epochs"; else
  echo "FAIL rung rows: $(rows "$tmp/h.e1.csv") and $(rows "$tmp/h.csv")"; fails=$((fails + 1)); fi
# The promoted networks are the best half of the first rung by validation accuracy.
if python3 - "$tmp/h.e1.csv" "$tmp/h.csv" <<'PY'
import csv, sys
r1 = list(csv.DictReader(open(sys.argv[1])))
r2 = list(csv.DictReader(open(sys.argv[2])))
best = sorted(r1, key=lambda r: (-float(r["val_accuracy"]), r["encoding"]))[:2]
assert {r["encoding"] for r in best} == {r["encoding"] for r in r2}, (best, r2)
PY
then echo "ok   the best half was promoted"; else echo "FAIL promotion"; fails=$((fails + 1)); fi
cp "$tmp/h.csv" "$tmp/before.csv"
check "resume of a finished halving" 0 "$dcnas" accuracy-data generate "${opts[@]}" --epochs 2 --halving 2 --min-epochs 1 --out "$tmp/h.csv" --resume
contains "nothing trained again" "$tmp/err" "rung of 2 epoch(s): 0 trained, 2 already done"
check "no --resume on existing rungs" 2 "$dcnas" accuracy-data generate "${opts[@]}" --epochs 2 --halving 2 --min-epochs 1 --out "$tmp/h.csv"
contains "rung file named" "$tmp/err" "h.e1.csv: exists"
# Full training: every network for 2 epochs, resuming the top rung's file (the same seeds).
cp "$tmp/h.csv" "$tmp/full.csv"
check "full training reuses the top rung's runs" 0 "$dcnas" accuracy-data generate "${opts[@]}" --epochs 2 --out "$tmp/full.csv" --resume
contains "two runs reused" "$tmp/err" "2 already done"
check "halving report" 0 "$dcnas" accuracy-data halving --reference "$tmp/bench.csv" --space "$space" --eta 2 "$tmp/h.e1.csv" "$tmp/h.csv" --full "$tmp/full.csv" --json "$tmp/r.json"
contains "report names the rungs" "$tmp/out" "successive halving (eta 2) over 4 networks"
contains "report shares the top" "$tmp/out" "top 2 shared"
json_ok "report JSON" "$tmp/r.json"
check "full training of another recipe" 2 "$dcnas" accuracy-data halving --reference "$tmp/bench.csv" --space "$space" --eta 2 "$tmp/h.e1.csv" "$tmp/before.csv" --full "$tmp/h.e1.csv"
contains "full file's recipe named" "$tmp/err" "h.e1.csv: recipe"
check "one rung" 2 "$dcnas" accuracy-data halving --reference "$tmp/bench.csv" --space "$space" "$tmp/h.csv"
for bad in "--halving 1" "--halving 2 --min-epochs 2" "--min-epochs 1" "--halving 2 --scaling" "--halving 2 --label zc-naswot-a0.008-b7.6"; do
  # shellcheck disable=SC2086
  check "refused: $bad" 2 "$dcnas" accuracy-data generate "${opts[@]}" --epochs 2 $bad --out "$tmp/bad.csv"
done
if ls "$tmp"/bad* >/dev/null 2>&1; then echo "FAIL a refused run wrote a file"; fails=$((fails + 1)); else
  echo "ok   refused runs wrote nothing"; fi
smoke_finish
