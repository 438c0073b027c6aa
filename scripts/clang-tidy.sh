#!/usr/bin/env bash
# clang-tidy (the repository's .clang-tidy, every finding an error) over the core library sources:
# every unit of the build's compile_commands.json in the source tree but the CLI (cli/), the
# LibTorch units (models/torch/), the tests and the benchmarks.
#
#   scripts/clang-tidy.sh [--all] BUILD_DIR
#
# BUILD_DIR is a configured build with compile_commands.json (a clang build is best, g++-only
# flags confuse clang-tidy; configuring is enough, nothing needs to be built). JOBS (2) files run
# in parallel. Findings print as clang-tidy writes them and the exit status is non-zero.
#
# Only what changed is tidied again: a unit is skipped when an earlier pass found it clean with
# the same key, the sha256 of its preprocessed text (so a change to any header it includes
# counts), the raw text of the checkout's files among them (comments, NOLINT), its compile flags,
# the .clang-tidy files above it and clang-tidy's version, every path relative to the checkout
# (a fresh clone elsewhere reuses the keys). Clean keys are kept as empty files in
# ${DCNAS_TIDY_CACHE:-${XDG_CACHE_HOME:-~/.cache}/dcnas-tidy} (unused for 30 days: removed);
# units with findings are never stored, so they are checked on every run. --all (or TIDY_ALL=1)
# tidies every unit, and records the clean ones.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
usage="usage: scripts/clang-tidy.sh [--all] BUILD_DIR"
all="${TIDY_ALL:-0}"
case "${1:-}" in
  -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
  --all) all=1; shift ;;
esac
build_dir="${1:?$usage}"
db="$build_dir/compile_commands.json"
[ -f "$db" ] || { echo "clang-tidy: $db not found (configure $build_dir first)"; exit 1; }
command -v clang-tidy >/dev/null 2>&1 || { echo "clang-tidy: not installed"; exit 1; }
cache="${DCNAS_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dcnas-tidy}"
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache=""
tidy_args=(--quiet "--warnings-as-errors=*")
start=$SECONDS
# One line per core unit: "PATH KEY", KEY "-" where the unit could not be preprocessed (it is
# tidied, and clang-tidy reports why).
mapfile -t units < <(python3 - "$db" "${JOBS:-2}" "$(clang-tidy --version)" "${tidy_args[*]}" <<'PY'
import concurrent.futures, hashlib, json, os, re, shlex, subprocess, sys
db, jobs, version, tidy_args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
root = os.getcwd()
excluded = re.compile(r'(cli|models/torch|tests|bench)/')
units = {}
for entry in json.load(open(db)):
    path = os.path.normpath(os.path.join(entry['directory'], entry['file']))
    rel = os.path.relpath(path, root)
    build = os.path.relpath(entry['directory'], root)
    if rel.startswith('..') or excluded.match(rel) or rel.startswith(build + os.sep):
        continue
    units.setdefault(rel, entry)


def flags(entry):
    """The compile command without a compiler wrapper and without its outputs."""
    args = entry.get('arguments') or shlex.split(entry['command'])
    while args and os.path.basename(args[0]) in ('ccache', 'sccache', 'distcc'):
        args = args[1:]
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ('-o', '-MF', '-MQ', '-MT'):
            skip = True
        elif a not in ('-c', '-MD', '-MMD'):
            out.append(a)
    return out


def configs(rel):
    """The .clang-tidy files that apply to a unit: its folder's and every one above it."""
    found, d = [], os.path.dirname(os.path.join(root, rel))
    while True:
        f = os.path.join(d, '.clang-tidy')
        if os.path.isfile(f):
            found.append(f)
        if d == root or os.path.dirname(d) == d:
            return found
        d = os.path.dirname(d)


def key(rel):
    entry = units[rel]
    args = flags(entry)
    pre = subprocess.run(args + ['-E'], cwd=entry['directory'], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    if pre.returncode != 0:
        return '-'
    h = hashlib.sha256()
    # Paths enter the key relative to the checkout, so a clone in another folder (CI's fresh
    # clone) finds the keys an earlier clone recorded.
    here = os.path.relpath(entry['directory'], root)
    flags_text = '\0'.join(a.replace(root, '<checkout>') for a in args)
    for part in ['dcnas-tidy 2', version, tidy_args, here, flags_text]:
        h.update(part.encode() + b'\0')
    for f in configs(rel):
        h.update(os.path.relpath(f, root).encode() + b'\0' + open(f, 'rb').read() + b'\0')
    h.update(pre.stdout)
    # The checkout's own files as written: comments (NOLINT) are not in the preprocessed text.
    for f in sorted(set(re.findall(rb'^# \d+ "([^"<]+)"', pre.stdout, re.M))):
        p = os.path.normpath(os.path.join(entry['directory'], f.decode(errors='replace')))
        if p.startswith(root + os.sep) and os.path.isfile(p):
            h.update(os.path.relpath(p, root).encode() + b'\0' + open(p, 'rb').read() + b'\0')
    return h.hexdigest()


with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
    for rel, k in zip(sorted(units), pool.map(key, sorted(units))):
        print(rel, k)
PY
)
[ "${#units[@]}" -gt 0 ] || { echo "clang-tidy: no core sources in $db"; exit 1; }
todo=()
for u in "${units[@]}"; do
  k="${u##* }"
  if [ "$all" != 1 ] && [ -n "$cache" ] && [ "$k" != - ] && [ -e "$cache/$k" ]; then
    touch "$cache/$k"
  else
    todo+=("${u% *}" "$k")
  fi
done
keyed=$((SECONDS - start))
status=0
if [ "${#todo[@]}" -gt 0 ]; then
  log=$(mktemp)
  # Each file: clang-tidy ARGS... FILE, then KEY recorded when it was clean.
  # shellcheck disable=SC2016
  printf '%s\n' "${todo[@]}" | TIDY_BUILD="$build_dir" TIDY_CACHE="$cache" xargs -d '\n' \
    -P "${JOBS:-2}" -n 2 bash -c 'file="${*: -2:1}" key="${*: -1}"
      clang-tidy -p "$TIDY_BUILD" "${@:1:$#-2}" "$file" || exit
      if [ -n "$TIDY_CACHE" ] && [ "$key" != - ]; then touch "$TIDY_CACHE/$key" 2>/dev/null; fi
      exit 0' tidy-one "${tidy_args[@]}" >"$log" 2>&1
  status=$?
  grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Use -system-headers' \
    "$log"
  rm -f "$log"
fi
[ -n "$cache" ] && find "$cache" -type f -mtime +30 -delete 2>/dev/null
checked=$((${#todo[@]} / 2))
echo "clang-tidy: ${#units[@]} files, $((${#units[@]} - checked)) unchanged since a clean pass" \
  "($keyed s to tell), $checked tidied, in $((SECONDS - start)) s," \
  "$([ "$status" -eq 0 ] && echo clean || echo findings above)"
exit "$status"
