# Shared helpers for the CLI smoke scripts (sourced): a scratch directory $tmp, a failure counter
# $fails, and checks that print "ok" or "FAIL" per step. End a script with `smoke_finish`.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {  # check NAME EXPECTED_RC COMMAND...
  local name="$1" expected="$2"
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  check_rc "$name" "$expected" $?
}
check_rc() {  # check_rc NAME EXPECTED_RC RC: the verdict on an exit code in hand, stderr in $tmp/err
  if [ "$3" -ne "$2" ]; then
    echo "FAIL $1: exit $3, expected $2"; sed 's/^/  /' "$tmp/err" | head -5
    fails=$((fails + 1))
  else
    echo "ok   $1"
  fi
}
contains() {  # contains NAME FILE PATTERN
  if grep -q -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: '$3' not in $2"; fails=$((fails + 1)); fi
}
json_ok() {  # json_ok NAME FILE
  if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$2" 2>/dev/null; then
    echo "ok   $1"; else echo "FAIL $1: not JSON"; fails=$((fails + 1)); fi
}
smoke_finish() {
  if [ "$fails" -ne 0 ]; then echo "$fails smoke checks failed"; exit 1; fi
  echo "all smoke checks passed"
}
