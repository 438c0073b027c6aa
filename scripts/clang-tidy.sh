#!/usr/bin/env bash
# clang-tidy (the repository's .clang-tidy, every finding an error) over the core library sources:
# common, models, sim, calibrate, study, search (with search/surrogate) and lacs; not the LibTorch
# units (models/torch) or the tests.
# Usage: scripts/clang-tidy.sh BUILD_DIR   (a configured build with compile_commands.json; a
# clang build is best, g++-only flags confuse clang-tidy). JOBS (2) files run in parallel.
set -uo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:?usage: scripts/clang-tidy.sh BUILD_DIR}"
db="$build_dir/compile_commands.json"
[ -f "$db" ] || { echo "clang-tidy: $db not found (configure $build_dir first)"; exit 1; }
command -v clang-tidy >/dev/null 2>&1 || { echo "clang-tidy: not installed"; exit 1; }
mapfile -t files < <(python3 - "$db" <<'EOF'
import json, os, re, sys
root = os.getcwd()
seen = set()
for entry in json.load(open(sys.argv[1])):
    path = os.path.relpath(os.path.join(entry['directory'], entry['file']), root)
    if re.match(r'(common|models|sim|calibrate|study|search|lacs)/', path) and not path.startswith(
            'models/torch/'):
        seen.add(path)
print('\n'.join(sorted(seen)))
EOF
)
[ "${#files[@]}" -gt 0 ] || { echo "clang-tidy: no core sources in $db"; exit 1; }
start=$SECONDS
log=$(mktemp)
printf '%s\n' "${files[@]}" | xargs -P "${JOBS:-2}" -n 1 \
  clang-tidy -p "$build_dir" --quiet --warnings-as-errors='*' >"$log" 2>&1
status=$?
grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Use -system-headers' \
  "$log"
rm -f "$log"
echo "clang-tidy: ${#files[@]} files in $((SECONDS - start)) s, $([ "$status" -eq 0 ] && echo clean || echo findings above)"
exit "$status"
