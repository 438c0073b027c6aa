#!/usr/bin/env bash
# Checks that every C++ source file is formatted per .clang-format. Skipped (exit 77) when
# clang-format is not installed. One clang-format process checks all files.
set -u
root="${DCNAS_SOURCE_ROOT:?}"
command -v clang-format >/dev/null 2>&1 || { echo "clang-format not installed: skipped"; exit 77; }
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cc' '*.h')
else
  mapfile -t files < <(find common models sim calibrate study space exec proxy surrogate search lacs cli tests bench \
    -name '*.cc' -o -name '*.h')
fi
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
mapfile -t bad < <(clang-format --dry-run --Werror "${existing[@]}" 2>&1 \
  | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
for f in "${bad[@]}"; do echo "not formatted: $f (run: clang-format -i $f)"; done
echo "${#existing[@]} files checked, ${#bad[@]} not formatted"
[ "${#bad[@]}" -eq 0 ]
