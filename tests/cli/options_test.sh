#!/usr/bin/env bash
# Every numeric option of every command refuses NaN, infinities and values outside its range with
# exit 2 naming the option; unsigned options refuse a minus sign. The ranges are the table in
# cli/cli.cc (OptionRanges); each command's --help says which of them it has.
set -u
dcnas="$1"
# shellcheck source=smoke_lib.sh
source "$(dirname "$0")/smoke_lib.sh"
root="${DCNAS_SOURCE_ROOT:?}"

# name lo hi, from the table
sed -n '/kRanges = {/,/^  };/p' "$root/cli/cli.cc" |
  sed -nE 's/^ *\{"([a-z-]+)", ([-0-9.e<() ]+), ([-0-9.e<()kU64 ]+)\},.*/\1 \2 \3/p' >"$tmp/ranges"
[ "$(wc -l <"$tmp/ranges")" -ge 40 ] || { echo "FAIL range table not read: $(wc -l <"$tmp/ranges") rows"; exit 1; }

commands=("models list" "models summary" "models show" "models export" "sim" "roofline" "sweep"
  "compare" "calibrate" "space show" "space sample" "space decode" "accuracy-data stats"
  "accuracy-data import" "search"
  "search compare" "search protocol" "scale")
"$dcnas" --help | grep -q "^  surrogate" && commands+=("surrogate fit" "surrogate eval" "surrogate predict" "surrogate curve")
"$dcnas" --help | grep -q "^  train" &&
  commands+=("measure" "train" "accuracy-data generate" "accuracy-data zero-cost" "search finalists")

tested=0
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086
  "$dcnas" $c --help >"$tmp/help" 2>"$tmp/err" || { echo "FAIL $c --help: $(head -2 "$tmp/err")"; fails=$((fails + 1)); continue; }
  while read -r name lo hi; do
    grep -qE -- "--$name arg" "$tmp/help" || continue
    case "$hi" in *"<<"*) hi=$(( ${hi//[()]/} )) ;; esac
    # NaN in every command that has the option (Parse applies the table everywhere); the other
    # values once per option name (its range is the same in every command).
    values=(nan)
    first=0
    grep -qx -- "$name" "$tmp/seen" 2>/dev/null || { first=1; values+=(inf -inf 1e300); echo "$name" >>"$tmp/seen"; }
    for v in "${values[@]}"; do
      # shellcheck disable=SC2086
      check "$c --$name $v" 2 "$dcnas" $c "--$name" "$v"
      contains "$c --$name $v: named" "$tmp/err" "--$name"
    done
    if [ "$first" -eq 1 ] && [ "$hi" != "kU64" ]; then
      above=$(python3 -c "import sys; print(repr(float(sys.argv[1]) * 2 + 1))" "$hi")
      # shellcheck disable=SC2086
      check "$c --$name $above (above $hi)" 2 "$dcnas" $c "--$name" "$above"
    fi
    tested=$((tested + 1))
  done <"$tmp/ranges"
done
# Below the range: integer options whose lower bound is 0 or more.
check "search --seed -1 (unsigned)" 2 "$dcnas" search --seed -1
contains "seed sign named" "$tmp/err" "must not be negative"
check "space sample --seed -1" 2 "$dcnas" space sample --seed -1
check "calibrate --k-folds 1" 2 "$dcnas" calibrate --k-folds 1
contains "k-folds range" "$tmp/err" "out of range \[2,"
check "calibrate --regularization -1" 2 "$dcnas" calibrate --regularization -1
check "sim --batch 0" 2 "$dcnas" sim efficientnet-b0 --batch 0
check "models show --width 0" 2 "$dcnas" models show --blocks r1_k3_s11_e1_i32_o16 --width 0
check "scale --tolerance -0.1" 2 "$dcnas" scale efficientnet-b0 --tolerance -0.1
long=$(python3 -c "print('x' * 300)")
check "a file name too long for the system" 2 "$dcnas" models export efficientnet-b0 --out "$tmp/$long/g.json"
contains "names the path" "$tmp/err" "File name too long"
check "an accelerator name too long" 2 "$dcnas" sim efficientnet-b0 --accel "$long"
# Messages stay a line: a 100 kB value is quoted by a bounded prefix and its size; bytes that are
# not UTF-8 are escaped; a value far out of range is printed as given.
big=$(head -c 100000 /dev/zero | tr '\0' x)
check "a 100 kB block string" 2 "$dcnas" sim --blocks "r1_k3_s11_e1_i32_o16_$big" --accel tpu-v3
contains "block string quoted by its size" "$tmp/err" "bytes) token"
if [ "$(wc -c <"$tmp/err")" -lt 1200 ]; then echo "ok   100 kB block string: short message"; else
  echo "FAIL 100 kB block string: $(wc -c <"$tmp/err") bytes of message"; fails=$((fails + 1)); fi
check "a 100 kB grid" 2 "$dcnas" scale --model efficientnet-x-b0 --accel tpu-v3 --grid "$big" --out "$tmp/x"
if [ "$(wc -c <"$tmp/err")" -lt 1200 ]; then echo "ok   100 kB grid: short message"; else
  echo "FAIL 100 kB grid: $(wc -c <"$tmp/err") bytes of message"; fails=$((fails + 1)); fi
check "a 100 kB encoding" 2 "$dcnas" space decode "$root/data/search_spaces/dc-accelerator.yaml" "$big"
if [ "$(wc -c <"$tmp/err")" -lt 1200 ]; then echo "ok   100 kB encoding: short message"; else
  echo "FAIL 100 kB encoding: $(wc -c <"$tmp/err") bytes of message"; fails=$((fails + 1)); fi
check "a 100 kB accuracy spec" 2 "$dcnas" search --space "$root/data/search_spaces/dc-accelerator.yaml" --target-ms 1 --accuracy "$big" --budget 1 --out "$tmp/x"
if [ "$(wc -c <"$tmp/err")" -lt 1500 ]; then echo "ok   100 kB accuracy spec: short message"; else
  echo "FAIL 100 kB accuracy spec: $(wc -c <"$tmp/err") bytes of message"; fails=$((fails + 1)); fi
sed 's/^name: tpu-v3/name: "tpu\xff"/' "$root/data/accelerators/tpu-v3.yaml" >"$tmp/badname.yaml"
check "an accelerator name that is not UTF-8" 2 "$dcnas" sim efficientnet-b0 --accel "$tmp/badname.yaml"
contains "the key and the escaped byte named" "$tmp/err" "key 'name': not UTF-8: 'tpu.xff'"
check "an unknown accelerator name with odd bytes" 2 "$dcnas" sim efficientnet-b0 --accel "$(printf 'tpu\xff\x01')"
contains "odd bytes escaped" "$tmp/err" "unknown accelerator 'tpu.xff.x01'"
check "calibrate --regularization 1e308" 2 "$dcnas" calibrate --regularization 1e308
contains "the value as given" "$tmp/err" "regularization 1e+308: out of range"
# Long work reports progress (every 5 s; DCNAS_PROGRESS_S=0: after every step, to see the lines).
DCNAS_PROGRESS_S=0 check "a sweep with progress" 0 "$dcnas" sweep efficientnet-b0 --accel tpu-v3 --set hbm.bandwidth_gbps=450,900,1800 --format csv
contains "sweep progress" "$tmp/err" "sweep: 2 of 3 variants"
contains "sweep end" "$tmp/err" "sweep: 3 variants simulated"
DCNAS_PROGRESS_S=0 check "a LACS grid with progress (scored, then no accuracy to rank by)" 2 "$dcnas" scale efficientnet-x-b0 --accel tpu-v3 --mode lacs --no-train --grid "d=1:1.2:0.1,w=1:1.1:0.1,r=1:1.1:0.1" --members 1 --train-members 0 --references none --out "$tmp/lacs-progress"
contains "grid progress" "$tmp/err" "scoring the grid: 12 of 12 points"
check "in-range value still works" 0 "$dcnas" models show efficientnet-b0 --batch 2 --resolution 224
echo "numeric options tested: $tested"
[ "$tested" -ge 50 ] || { echo "FAIL too few options tested"; fails=$((fails + 1)); }
smoke_finish
