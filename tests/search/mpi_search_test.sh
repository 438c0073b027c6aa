#!/usr/bin/env bash
# dcnas search on MPI (mpirun -np 3: a master and two workers simulating the candidates) on one
# machine: the journal and the outputs equal the in-process search's byte for byte; a worker
# killed with -9 aborts the job with the journal intact, and mpirun ... --resume ends with the
# same journal as the uninterrupted search; misuse exits 2.
set -u
dcnas="$1"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../cli/smoke_lib.sh"
command -v mpirun >/dev/null || { echo "no mpirun: skipped"; exit 0; }
"$dcnas" --help | grep -q "^  surrogate" || { echo "no XGBoost surrogate: skipped"; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
root="$DCNAS_SOURCE_ROOT"
opts=(--space "$root/data/search_spaces/dc-accelerator.yaml" --accel tpu-v3 --target-ms 15
  --accuracy "surrogate:$root/data/surrogates/dc-accelerator.ubj" --min-surrogate-tau 0.3
  --strategy evolution --in-flight 8 --seed 3 --references none)

check "in-process search" 0 "$dcnas" search "${opts[@]}" --budget 400 --out "$tmp/ref"
check "mpirun -np 3 search" 0 mpirun -np 3 "$dcnas" search "${opts[@]}" --budget 400 --executor mpi --out "$tmp/mpi"
for f in journal.jsonl pareto.csv best.txt summary.json; do
  if cmp -s "$tmp/ref/$f" "$tmp/mpi/$f"; then echo "ok   $f identical"; else
    echo "FAIL $f differs"; fails=$((fails + 1)); fi
done
check "mpirun without --executor mpi" 2 mpirun -np 2 "$dcnas" search "${opts[@]}" --budget 10 --out "$tmp/x"
contains "names the problem" "$tmp/err" "without --executor mpi"
[ "$(grep -c 'without --executor mpi' "$tmp/err")" -eq 1 ] && echo "ok   one rank reports" ||
  { echo "FAIL every rank reported the error"; fails=$((fails + 1)); }
check "--executor mpi with one rank" 2 "$dcnas" search "${opts[@]}" --budget 10 --executor mpi --out "$tmp/y"
check "--threads with --executor mpi" 2 mpirun -np 2 "$dcnas" search "${opts[@]}" --budget 10 --executor mpi --threads 2 --out "$tmp/z"

# kill -9 of a worker rank once the journal grows: the job aborts, --resume completes it.
budget=30000
check "in-process long search" 0 "$dcnas" search "${opts[@]}" --budget $budget --out "$tmp/ref-long"
mpirun -np 3 "$dcnas" search "${opts[@]}" --budget $budget --executor mpi --out "$tmp/k" >"$tmp/k.out" 2>&1 &
job=$!
for _ in $(seq 1 600); do
  [ -f "$tmp/k/journal.jsonl" ] && [ "$(wc -l <"$tmp/k/journal.jsonl")" -ge 200 ] && break
  sleep 0.05
done
worker=""
for pid in $(pgrep -f "search.*$tmp/k\$"); do
  tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=2" && worker=$pid
done
if [ -n "$worker" ]; then
  kill -9 "$worker"
  echo "ok   killed worker rank 2 after $(wc -l <"$tmp/k/journal.jsonl") journal lines"
else
  echo "FAIL no worker rank 2 found to kill (the search may have ended first)"; fails=$((fails + 1))
fi
wait "$job"
rc=$?
[ "$rc" -ne 0 ] && echo "ok   the job aborted (exit $rc)" || { echo "FAIL the job ended with 0"; fails=$((fails + 1)); }
check "mpirun --resume" 0 mpirun -np 3 "$dcnas" search "${opts[@]}" --budget $budget --executor mpi --out "$tmp/k" --resume
contains "resume replays the journal" "$tmp/out" "replayed from the journal"
if cmp -s "$tmp/ref-long/journal.jsonl" "$tmp/k/journal.jsonl"; then echo "ok   killed + resumed journal identical"; else
  echo "FAIL killed + resumed journal differs"; fails=$((fails + 1)); fi

# Asynchronous search: each result told as it arrives. Killed and resumed, the journal keeps the
# killed run's lines as they were and ends with the budget's distinct evaluations; a resume of
# the finished journal replays it to the same outputs.
mpirun -np 3 "$dcnas" search "${opts[@]}" --budget $budget --executor mpi --async --out "$tmp/a" >"$tmp/a.out" 2>&1 &
job=$!
for _ in $(seq 1 600); do
  [ -f "$tmp/a/journal.jsonl" ] && [ "$(wc -l <"$tmp/a/journal.jsonl")" -ge 200 ] && break
  sleep 0.05
done
for pid in $(pgrep -f "search.*$tmp/a\$"); do
  tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" && kill -9 "$pid"
done
wait "$job"
rc=$?
[ "$rc" -ne 0 ] && echo "ok   asynchronous job aborted (exit $rc)" || { echo "FAIL asynchronous job ended with 0"; fails=$((fails + 1)); }
cp "$tmp/a/journal.jsonl" "$tmp/a-killed.jsonl"
check "asynchronous --resume" 0 mpirun -np 3 "$dcnas" search "${opts[@]}" --budget $budget --executor mpi --async --out "$tmp/a" --resume
if python3 - "$tmp/a-killed.jsonl" "$tmp/a/journal.jsonl" $budget <<'PY'
import json, sys
killed = [l for l in open(sys.argv[1]) if l.endswith("\n")]
final = open(sys.argv[2]).read().splitlines(True)
rows = [json.loads(l) for l in final[1:]]
assert final[:len(killed)] == killed, "the killed run's lines changed"
assert len(rows) == int(sys.argv[3]), f"{len(rows)} evaluations"
assert len({r["id"] for r in rows}) == len(rows), "an id told twice"
assert json.loads(final[0])["config"]["asynchronous"] is True
PY
then echo "ok   asynchronous journal: killed prefix kept, $budget distinct evaluations"; else
  echo "FAIL asynchronous journal"; fails=$((fails + 1)); fi
cp "$tmp/a/summary.json" "$tmp/a-summary.json"
check "asynchronous replay of the finished journal" 0 mpirun -np 3 "$dcnas" search "${opts[@]}" --budget $budget --executor mpi --async --out "$tmp/a" --resume
cmp -s "$tmp/a/summary.json" "$tmp/a-summary.json" && echo "ok   replay gives the same summary" ||
  { echo "FAIL replay changed the summary"; fails=$((fails + 1)); }
check "--async without MPI" 2 "$dcnas" search "${opts[@]}" --budget 10 --async --out "$tmp/w"
smoke_finish
