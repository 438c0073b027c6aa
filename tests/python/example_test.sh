#!/usr/bin/env bash
# Runs one of examples/*.py from a scratch folder into OUT_DIR and checks it wrote its outputs:
#   example_test.sh PYTHON EXAMPLE.py OUT_DIR
set -u
python="$1"
example="$2"
out="$3"
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1
"$python" "$example" "$out" >"$out/stdout.txt" 2>"$out/stderr.txt"
status=$?
cat "$out/stdout.txt" "$out/stderr.txt"
if [ "$status" -ne 0 ]; then
  echo "FAIL $(basename "$example") exited $status"
  exit 1
fi
case "$(basename "$example")" in
  whatif_sweep.py) want=whatif_sweep.csv ;;
  custom_accuracy_evolution.py) want=evolution.csv ;;
  surrogate_from_csv.py) want=surrogate.ubj ;;
  *) echo "FAIL unknown example $example"; exit 1 ;;
esac
if [ ! -s "$out/$want" ]; then
  echo "FAIL $(basename "$example") wrote no $want"
  exit 1
fi
echo "ok   $(basename "$example") wrote $want"
