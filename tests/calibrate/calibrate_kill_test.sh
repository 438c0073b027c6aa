#!/usr/bin/env bash
# kill -9 of `dcnas calibrate` at each moment of writing its output set (profile, chart,
# residuals; DCNAS_KILL_AT, common/kill_point.h): the profile is always a whole file, a set cut
# short leaves a marker that `dcnas sim` refuses by name, and the rerun writes the same set as an
# uninterrupted run, with no temporaries left behind.
set -u
dcnas="$1"
root="${DCNAS_SOURCE_ROOT:-$(dirname "$0")/../..}"
m="$root/data/measurements"
# shellcheck source=../cli/smoke_lib.sh
source "$(dirname "$0")/../cli/smoke_lib.sh"

# --no-cv: the output set is what is tested, and the cross-validation adds nothing to it but time.
fit=(calibrate --accel rtx-4090 --stack pytorch-eager --precision fp16 --no-cv
  --measurements "$m/timm_rtx4090.csv" --where "stack_version=PyTorch 2.4.0 (cu124)" layout=NCHW)
outputs() { echo --out "$1/p.yaml" --chart "$1/p.svg" --residuals "$1/r.csv"; }
mkdir -p "$tmp/ref"
# shellcheck disable=SC2046
check "uninterrupted fit" 0 "$dcnas" "${fit[@]}" $(outputs "$tmp/ref")
sim=(sim resnet50 --accel rtx-4090 --stack pytorch-eager)

# An older set in place (another fit, fewer fields), then kills at each rename and before any.
mkdir -p "$tmp/old"
# shellcheck disable=SC2046
check "older set" 0 "$dcnas" "${fit[@]}" --fit matrix_efficiency,memory_efficiency $(outputs "$tmp/old")
for point in file.before-rename file-set.renamed:1 file-set.renamed:2 file-set.renamed:3; do
  d="$tmp/k-${point//[:.]/-}"
  cp -r "$tmp/old" "$d"
  # shellcheck disable=SC2046
  { DCNAS_KILL_AT="$point" "$dcnas" "${fit[@]}" $(outputs "$d") >/dev/null 2>&1; rc=$?; } 2>/dev/null
  if [ "$rc" -eq 137 ]; then echo "ok   killed at $point"; else
    echo "FAIL killed at $point: exit $rc, expected 137 (SIGKILL)"; fails=$((fails + 1)); fi
  # The profile is one of the two whole files, never a mixture.
  if cmp -s "$d/p.yaml" "$tmp/old/p.yaml" || cmp -s "$d/p.yaml" "$tmp/ref/p.yaml"; then
    echo "ok   $point: profile whole"; else echo "FAIL $point: profile is neither set's"
    fails=$((fails + 1)); fi
  if [ "${point%%:*}" = "file-set.renamed" ]; then
    contains "$point: marker lists the set" "$d/p.yaml.incomplete" "p.svg"
    check "$point: sim refuses the profile" 2 "$dcnas" "${sim[@]}" --calibration "$d/p.yaml"
    contains "$point: refusal names the marker" "$tmp/err" "p.yaml.incomplete"
  else
    # Killed before any rename: the old set is intact and usable; temporaries are left.
    check "$point: old profile still loads" 0 "$dcnas" "${sim[@]}" --calibration "$d/p.yaml"
  fi
  # shellcheck disable=SC2046
  check "$point: rerun" 0 "$dcnas" "${fit[@]}" $(outputs "$d")
  for f in p.yaml p.svg r.csv; do
    if cmp -s "$d/$f" "$tmp/ref/$f"; then echo "ok   $point: $f as uninterrupted"; else
      echo "FAIL $point: $f differs from the uninterrupted run"; fails=$((fails + 1)); fi
  done
  left=$(find "$d" -name '*.tmp.*' -o -name '*.incomplete' | wc -l)
  if [ "$left" -eq 0 ]; then echo "ok   $point: no temporaries or marker left"; else
    echo "FAIL $point: $left temporaries or markers left: $(ls -a "$d")"; fails=$((fails + 1)); fi
  check "$point: sim loads the new profile" 0 "$dcnas" "${sim[@]}" --calibration "$d/p.yaml"
done
check "--out with --evaluate refused before fitting" 2 "$dcnas" "${fit[@]}" --evaluate "$tmp/ref/p.yaml" --out "$tmp/x.yaml"
check "one path for two outputs refused" 2 "$dcnas" "${fit[@]}" --out "$tmp/x.yaml" --chart "$tmp/x.yaml"
[ ! -e "$tmp/x.yaml" ] && echo "ok   nothing written" || { echo "FAIL x.yaml written"; fails=$((fails + 1)); }
smoke_finish
