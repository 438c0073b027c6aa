# shellcheck shell=bash
# Argument handling shared by the long-running scripts (sourced; bash).
#
# print_header: prints the calling script's header comment (its lines after the shebang up to
# the first line that is not a comment), without the leading "# ".
print_header() {
  sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
}

# script_args USAGE MAX_ARGS ARG...: with -h or --help, prints the calling script's header
# comment and exits 0; with an option or more than MAX_ARGS arguments, prints "usage: USAGE" to
# stderr and exits 2; so a mistyped call stops before any work.
script_args() {
  local usage="$1" max="$2"
  shift 2
  case "${1:-}" in
    -h | --help) print_header; exit 0 ;;
    -*) echo "usage: $usage" >&2; exit 2 ;;
  esac
  if [ "$#" -gt "$max" ]; then echo "usage: $usage" >&2; exit 2; fi
}

# require_binary PATH: exits 2 naming PATH when it is not an executable (the dcnas of BUILD_DIR).
require_binary() {
  if [ ! -x "$1" ]; then
    echo "$0: $1 not found (build first: scripts/build.sh; or give BUILD_DIR)" >&2
    exit 2
  fi
}

# nas_bench_macro_labels DCNAS OUT: NAS-Bench-Macro's CIFAR-10 labels as accuracy data of the
# shipped nas-bench-macro space, imported into OUT (its folder made) unless OUT is there already.
nas_bench_macro_labels() {
  local dcnas="$1" out="$2"
  [ -f "$out" ] && return 0
  mkdir -p "$(dirname "$out")"
  "$dcnas" accuracy-data import --format nas-bench-macro \
    data/benchmarks/nas-bench-macro/nas-bench-macro_cifar10.json \
    --space data/search_spaces/nas-bench-macro.yaml --out "$out"
}
