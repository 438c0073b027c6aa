#!/usr/bin/env bash
# The long-running scripts answer --help with their header and exit 0, and refuse an argument
# they do not take with exit 2, before they start any work (each check is bounded by a timeout,
# so a script that ignored its arguments and ran would fail here, not hang). The Python report
# scripts refuse a missing directory with exit 2 and a message instead of a traceback.
set -u
# shellcheck source=smoke_lib.sh
source "$(dirname "$0")/smoke_lib.sh"
root="${DCNAS_SOURCE_ROOT:?}"

for s in accuracy-data proxy-study search-study install-deps run-main run-study transfer_study \
  calibrate_profiles imagenet-search imagenet-families imagenet-lacs cifar10-validity; do
  script="$root/scripts/$s.sh"
  first=$(sed -n 2p "$script" | sed 's/^# \{0,1\}//')
  check "$s --help" 0 timeout 20 bash "$script" --help
  contains "$s --help prints its header" "$tmp/out" "$first"
  check "$s -h" 0 timeout 20 bash "$script" -h
  check "$s --bogus" 2 timeout 20 bash "$script" --bogus
  contains "$s --bogus prints its usage" "$tmp/err" "usage: scripts/$s.sh"
done
check "transfer_study.sh without a build" 2 timeout 20 bash "$root/scripts/transfer_study.sh" "$tmp/no-build"
contains "transfer_study.sh names the missing binary" "$tmp/err" "$tmp/no-build/cli/dcnas not found"

check "import_timm_mbconv_latency.py, no such source" 2 python3 "$root/scripts/import_timm_mbconv_latency.py" "$tmp/nope.csv"
contains "import_timm_mbconv_latency.py names it" "$tmp/err" "$tmp/nope.csv: no such file"
check "timm_published.py --help" 0 python3 "$root/scripts/timm_published.py" --help
check "timm_published.py, two outputs" 2 python3 "$root/scripts/timm_published.py" a b
check "operator_pairs.py, no such report" 2 python3 "$root/scripts/operator_pairs.py" "$tmp/nope.json"
contains "operator_pairs.py names it" "$tmp/err" "$tmp/nope.json: no such report"
check "study_report.py --help" 0 python3 "$root/scripts/study_report.py" --help
contains "study_report.py --help prints its usage" "$tmp/out" "usage: study_report.py STUDY_DIR"
check "study_report.py, no such directory" 2 python3 "$root/scripts/study_report.py" "$tmp/nope"
contains "study_report.py names it" "$tmp/err" "$tmp/nope: not a directory"
check "import_measurements.py, no such source" 2 python3 "$root/scripts/import_measurements.py" \
  "$tmp/nope" "$tmp/data"
contains "import_measurements.py names the missing table" "$tmp/err" \
  "$tmp/nope: no all_measurements_long.csv"
if [ -e "$tmp/data" ]; then echo "FAIL import_measurements.py wrote $tmp/data"; fails=$((fails + 1)); fi

# transfer_study.py --prior-sweep: the weights' tables side by side, read back by value.
sweep="$tmp/sweep"
mkdir -p "$sweep/prior/w-0.1" "$sweep/prior/w-0.03"
echo "a b" > "$sweep/pairs.txt"
check "transfer_study.py --prior-sweep without prior/" 2 python3 "$root/scripts/transfer_study.py" \
  "$sweep" --prior-sweep
contains "transfer_study.py names the missing sweep" "$tmp/err" "$sweep/prior: no w-"
table() {  # MEDAPE_FIT MEDAPE_OWN TAU_FIT -> a transfer_table.tsv of one direction a -> b
  printf '# header\ndirection\tpredictor\tmedAPE\tspeedup_tau\n'
  printf 'a -> b\tdefaults\t7.5\t0.600\na -> b\tfit on a\t%s\t%s\n' "$1" "$3"
  printf 'a -> b\town fit on b, in-sample\t%s\t0.700\n' "$2"
}
table 9.0 2.0 0.500 > "$sweep/transfer_table.tsv"
table 6.0 3.0 0.550 > "$sweep/prior/w-0.1/transfer_table.tsv"
table 8.5 2.5 0.520 > "$sweep/prior/w-0.03/transfer_table.tsv"
check "transfer_study.py --prior-sweep" 0 python3 "$root/scripts/transfer_study.py" "$sweep" --prior-sweep
contains "the sweep's fit row, weights in order, defaults last" "$sweep/prior/prior_sweep.tsv" \
  "$(printf 'a -> b\tfit on A\t9.0\t8.5\t6.0\t7.5\t0.500\t0.520\t0.550\t0.600')"
contains "the sweep's own-fit row" "$sweep/prior/prior_sweep.tsv" \
  "$(printf 'a -> b\town fit on b, in-sample\t2.0\t2.5\t3.0\t7.5')"
contains "the sweep counts the directions within 8 %" "$sweep/prior/prior_sweep.tsv" \
  "w 0.001: 0, w 0.03: 0, w 0.1: 1, w inf: 1"
smoke_finish
