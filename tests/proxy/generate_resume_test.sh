#!/usr/bin/env bash
# accuracy-data generate: a kill -9 loses at most the runs in flight, --resume finishes the plan,
# and the result equals an uninterrupted run (training time aside); a torn last row is repaired;
# bad usage exits 2 without touching the file.
set -u
dcnas="$1"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../cli/smoke_lib.sh"
space="$DCNAS_SOURCE_ROOT/data/search_spaces/dc-accelerator.yaml"
opts=(--space "$space" --count 3 --seed 4 --epochs 1 --train-images 1000 --limit-eval 256
      --proxy-resolution 16 --jobs 1)
strip() {  # rows without the train_time_s column (22), sorted
  python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]; i = h.index("train_time_s")
for r in sorted(rows[1:]):
    print(",".join(r[:i] + r[i+1:]))
PY
}

check "uninterrupted run" 0 "$dcnas" accuracy-data generate "${opts[@]}" --out "$tmp/ref.csv"
"$dcnas" accuracy-data generate "${opts[@]}" --out "$tmp/k.csv" 2>"$tmp/k.err" &
pid=$!
for _ in $(seq 1 600); do
  [ -f "$tmp/k.csv" ] && [ "$(wc -l < "$tmp/k.csv")" -ge 2 ] && break
  sleep 0.2
done
kill -9 "$pid"; wait "$pid" 2>/dev/null
sleep 0.5
rows=$(($(wc -l < "$tmp/k.csv") - 1))
if [ "$rows" -ge 1 ] && [ "$rows" -lt 3 ]; then echo "ok   killed after $rows row(s)"; else
  echo "FAIL killed run has $rows rows"; fails=$((fails + 1)); fi
if pgrep -f "$tmp/k.csv" >/dev/null; then echo "FAIL workers outlived the killed parent";
  fails=$((fails + 1)); else echo "ok   no worker outlived the parent"; fi
printf 'dc-accelerator,%s,0.1' "torn" >> "$tmp/k.csv"   # a write cut by the kill
check "no --resume on an existing file" 2 "$dcnas" accuracy-data generate "${opts[@]}" --out "$tmp/k.csv"
check "resume" 0 "$dcnas" accuracy-data generate "${opts[@]}" --out "$tmp/k.csv" --resume
contains "resume trained only the missing runs" "$tmp/err" "already in"
if [ "$(strip "$tmp/ref.csv")" == "$(strip "$tmp/k.csv")" ]; then
  echo "ok   killed + resumed equals uninterrupted"; else
  echo "FAIL killed + resumed differs"; diff <(strip "$tmp/ref.csv") <(strip "$tmp/k.csv") | head;
  fails=$((fails + 1)); fi
check "stats reads it" 0 "$dcnas" accuracy-data stats "$tmp/k.csv" --space "$space"
check "resume of a finished plan" 0 "$dcnas" accuracy-data generate "${opts[@]}" --out "$tmp/k.csv" --resume
cp "$tmp/k.csv" "$tmp/before.csv"
check "another space's data refused" 2 "$dcnas" accuracy-data generate "${opts[@]/dc-accelerator/mnasnet}" --out "$tmp/k.csv" --resume
contains "names the line" "$tmp/err" "k.csv:2"
if cmp -s "$tmp/k.csv" "$tmp/before.csv"; then echo "ok   refused file untouched"; else
  echo "FAIL refused file changed"; fails=$((fails + 1)); fi
smoke_finish
