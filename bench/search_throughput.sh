#!/usr/bin/env bash
# End-to-end search throughput: candidates per second of `dcnas search` (decode, build the
# full-size graph, simulate it with a warm cost cache, featurize, predict with the surrogate,
# journal) with regularized evolution on the dc-accelerator space, tpu-v3 at batch 128.
# Rows: one candidate per round on one thread, 64 per round on one and on two threads (the two
# give the same search, checked here). Run it on idle cores: the figure is wall-clock.
#
# usage: bench/search_throughput.sh [DCNAS_BIN] [SURROGATE] [BUDGET]
# defaults: build/cli/dcnas data/surrogates/dc-accelerator.ubj 50000; MIN_TAU (0.25) is the
# surrogate quality floor.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/..
dcnas=${1:-$root/build/cli/dcnas}
surrogate=${2:-$root/data/surrogates/dc-accelerator.ubj}
budget=${3:-50000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # name, options...
  local name=$1; shift
  "$dcnas" search --space "$root/data/search_spaces/dc-accelerator.yaml" --strategy evolution \
    --accel tpu-v3 --batch 128 --target-ms 15 --accuracy "surrogate:$surrogate" \
    --budget "$budget" --seed 1 --references none --min-surrogate-tau "${MIN_TAU:-0.25}" \
    --out "$tmp/$name" "$@" 2>/dev/null |
    sed -n 's/.* \([0-9]*\) candidates\/s$/\1/p'
}
printf '%-32s %s\n' "configuration" "candidates/s"
printf '%-32s %s\n' "in flight 1, 1 thread" "$(run a --in-flight 1 --threads 1)"
printf '%-32s %s\n' "in flight 64, 1 thread" "$(run b --in-flight 64 --threads 1)"
printf '%-32s %s\n' "in flight 64, 2 threads" "$(run c --in-flight 64 --threads 2)"
if cmp -s "$tmp/b/journal.jsonl" "$tmp/c/journal.jsonl"; then
  echo "1 and 2 threads: identical journals"
else
  echo "1 and 2 threads: journals DIFFER" >&2
  exit 1
fi
