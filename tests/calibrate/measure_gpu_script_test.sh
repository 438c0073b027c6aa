#!/usr/bin/env bash
# scripts/measure_timm_gpu.py without a GPU (--list): the points it would time, in order (those the
# RTX 3090 table shares first), the resume (points already in OUT are skipped), and bad input
# refused with exit 2 naming the file, with OUT left as it was.
set -u
root="${DCNAS_SOURCE_ROOT:-$(dirname "$0")/../..}"
script="$root/scripts/measure_timm_gpu.py"
m="$root/data/measurements"
# shellcheck source=../cli/smoke_lib.sh
source "$(dirname "$0")/../cli/smoke_lib.sh"
run() { python3 "$script" --device-name h200 --points "$m/timm_rtx4090.csv" --pair "$m/timm_rtx3090.csv" "$@"; }

check "fresh list" 0 run --out "$tmp/new.csv" --list
cp "$tmp/out" "$tmp/all"
points=$(python3 - "$m/timm_rtx4090.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r['stack_version'] == 'PyTorch 2.4.0 (cu124)' and r['layout'] == 'NCHW']
print(len({(r['source_model'], r['batch_size'], r['image_size']) for r in rows}))
PY
)
[ "$(wc -l < "$tmp/all")" -eq "$points" ] && echo "ok   every point listed once ($points)" \
  || { echo "FAIL $(wc -l < "$tmp/all") points listed, $points expected"; fails=$((fails + 1)); }
[ ! -e "$tmp/new.csv" ] && echo "ok   --list writes nothing" || { echo "FAIL --list wrote OUT"; fails=$((fails + 1)); }
# The shared points come first: the first listed is in the 3090 table, the last is not.
shared() {  # shared LISTED_LINE: the point is one of the 3090 table's PyTorch 2.4.0 NCHW rows
  local s b i
  IFS=, read -r s b i _ <<< "$1"
  grep -q "^[^,]*,[^,]*,[^,]*,[^,]*,$b,$i,.*,$s,.*PyTorch 2.4.0 (cu124),NCHW" "$m/timm_rtx3090.csv"
}
shared "$(head -1 "$tmp/all")" && echo "ok   first point shared with the 3090" \
  || { echo "FAIL first point $(head -1 "$tmp/all") not in the 3090 table"; fails=$((fails + 1)); }
shared "$(tail -1 "$tmp/all")" && { echo "FAIL last point $(tail -1 "$tmp/all") shared"; fails=$((fails + 1)); } \
  || echo "ok   last point not shared"

# Resume: the shipped H200 file's points are skipped.
cp "$m/own_h200.csv" "$tmp/part.csv"
check "list after the shipped runs" 0 run --out "$tmp/part.csv" --list
done_rows=$(($(wc -l < "$m/own_h200.csv") - 1))
[ "$(wc -l < "$tmp/out")" -eq $((points - done_rows)) ] && echo "ok   $done_rows measured points skipped" \
  || { echo "FAIL $(wc -l < "$tmp/out") left, $((points - done_rows)) expected"; fails=$((fails + 1)); }
check "limit" 0 run --out "$tmp/part.csv" --list --limit 3
[ "$(wc -l < "$tmp/out")" -eq 3 ] && echo "ok   --limit 3" || { echo "FAIL --limit"; fails=$((fails + 1)); }

# Bad input: exit 2, the file named, OUT unchanged.
printf 'model,latency\nx,1\n' > "$tmp/bad.csv"
cp "$tmp/bad.csv" "$tmp/bad.orig"
check "foreign OUT refused" 2 run --out "$tmp/bad.csv" --list
contains "names OUT" "$tmp/err" "bad.csv: header differs"
cmp -s "$tmp/bad.csv" "$tmp/bad.orig" && echo "ok   OUT untouched" || { echo "FAIL OUT changed"; fails=$((fails + 1)); }
{ head -1 "$m/own_h200.csv"; echo "resnet50,h200,pytorch-eager,fp16,many"; } > "$tmp/cut.csv"
check "malformed row refused" 2 run --out "$tmp/cut.csv" --list
contains "names the line" "$tmp/err" "cut.csv:2"
check "missing points file" 2 run --out "$tmp/x.csv" --points "$tmp/none.csv" --list
contains "names the points file" "$tmp/err" "none.csv"
check "points file of another schema" 2 run --out "$tmp/x.csv" --points "$tmp/bad.orig" --list
contains "names the column" "$tmp/err" 'no column "source_model"'
check "no timed iterations refused" 2 run --out "$tmp/x.csv" --iters 0 --list
smoke_finish
