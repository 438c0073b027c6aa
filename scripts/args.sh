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
