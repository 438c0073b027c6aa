#!/usr/bin/env bash
# dcnas search end to end on a small space whose every architecture has a synthetic accuracy (a
# table generated here from `dcnas space sample`), latency from the simulator: outputs parse, two
# runs are identical, a run killed with -9 and resumed (and a journal with a torn last line) ends
# with the uninterrupted run's files, the budget counts distinct networks (repeats answered, not
# charged; a search of more networks than the space has stops), strategy parameters, an
# accuracy-only search (--latency none), bad input exits 2 with the reason.
set -u
dcnas="$1"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../cli/smoke_lib.sh"
spaces="$DCNAS_SOURCE_ROOT/data/search_spaces"

# 256 networks: block x activation x kernel in stages 2 and 3, block x activation in stage 4.
cat > "$tmp/small.yaml" <<'YAML'
format: dcnas-search-space
version: 1
name: small
description: a small space for the search tests
sources: ["tests/search/search_run_test.sh"]
network: {resolution: 224, stem_filters: 32, head_filters: 1280, activation: relu,
          se_coefficient: 4, dropout: 0.2}
proxy: {resolution: 32, in_channels: 1, num_classes: 10, removed_downsamples: 1, width: 0.25}
defaults: {block: mbconv, kernel: 3, expand: 4, se: 0, activation: relu, repeats_delta: 0,
           filters_multiplier: 1.0}
stages:
  - {stride: 1, filters: 16, repeats: 1, choices: {expand: 1}}
  - {stride: 2, filters: 24, repeats: 2, choices: {block: [mbconv, fused], activation: [relu, swish], kernel: [3, 5]}}
  - {stride: 2, filters: 40, repeats: 2, choices: {block: [mbconv, fused], activation: [relu, swish], kernel: [3, 5]}}
  - {stride: 2, filters: 80, repeats: 3, choices: {block: [mbconv, fused], activation: [relu, swish]}}
  - {stride: 1, filters: 112, repeats: 3}
  - {stride: 2, filters: 192, repeats: 4}
  - {stride: 1, filters: 320, repeats: 1}
YAML
space="$tmp/small.yaml"
"$dcnas" space sample "$space" -n 3000 --seed 1 --format json > "$tmp/sample.json"
python3 - "$tmp/sample.json" "$tmp" <<'PY'
import json, random, sys
rows = json.load(open(sys.argv[1])); out = sys.argv[2]
rng = random.Random(1); effect = {}; seen = {}
for r in rows:
    if r["encoding"] in seen: continue
    digits = r["encoding"].replace("_", ".").split(".")
    seen[r["encoding"]] = (75 + sum(effect.setdefault((j, d), rng.gauss(0, 1.0))
                                    for j, d in enumerate(digits)), r)
with open(out + "/acc.csv", "w") as f:
    f.write("encoding,accuracy\n")
    for e, (a, r) in seen.items(): f.write(f"{e},{a:.3f}\n")
with open(out + "/lat.csv", "w") as f:
    f.write("encoding,latency_ms\n")
    for e, (a, r) in seen.items(): f.write(f"{e},{r['flops'] / 1e8:.4f}\n")
cols = ("space,fingerprint,encoding,depth,width,resolution,proxy_resolution,proxy_width,"
        "removed_downsamples,epochs,train_images,batch,optimizer,learning_rate,seed,replicate,"
        "val_accuracy,test_accuracy,params,flops,proxy_params,train_time_s,blocks")
with open(out + "/train.csv", "w") as f:
    f.write(cols + "\n")
    for i, (e, (a, r)) in enumerate(seen.items()):
        f.write(f"small,FP,{e},1,1,1,32,0.25,1,2,5000,128,sgd,0,{i},0,{a:.3f},{a:.3f},"
                f"{r['params']},{r['flops']},1000,1.5,{' '.join(r['blocks'])}\n")
print(len(seen), "architectures")
PY
fp=$("$dcnas" space show "$space" | head -1 | sed 's/.*fingerprint //')
sed -i "s/,FP,/,$fp,/" "$tmp/train.csv"
if [ "$(wc -l < "$tmp/acc.csv")" -eq 257 ]; then echo "ok   the table covers the space"; else
  echo "FAIL the table has $(wc -l < "$tmp/acc.csv") lines, expected 257"; fails=$((fails + 1)); fi

common=(--space "$space" --accel tpu-v3 --batch 128 --target-ms 15 --accuracy "table:$tmp/acc.csv")
check "search evolution" 0 "$dcnas" search "${common[@]}" --strategy evolution --budget 200 --seed 3 --out "$tmp/a"
contains "prints the best reward" "$tmp/out" "best reward"
for f in journal.jsonl pareto.csv pareto.svg best.json best.txt summary.json; do
  if [ -s "$tmp/a/$f" ]; then echo "ok   wrote $f"; else echo "FAIL missing $f"; fails=$((fails + 1)); fi
done
json_ok "summary.json parses" "$tmp/a/summary.json"
json_ok "best.json parses" "$tmp/a/best.json"
contains "best.txt names the stage ops" "$tmp/a/best.txt" "stage 2: "
contains "pareto.csv header" "$tmp/a/pareto.csv" "^accuracy,latency_ms,reward,params,flops,encoding,blocks$"
contains "journal header" "$tmp/a/journal.jsonl" '"format":"dcnas-search-journal"'
if [ "$(wc -l < "$tmp/a/journal.jsonl")" -eq 201 ]; then echo "ok   journal: header + 200 lines"; else
  echo "FAIL journal lines"; fails=$((fails + 1)); fi
check "best.json simulates" 0 "$dcnas" sim --graph "$tmp/a/best.json" --accel tpu-v3

same() {  # same NAME DIR1 DIR2: journal, pareto.csv and summary.json identical
  if cmp -s "$2/journal.jsonl" "$3/journal.jsonl" && cmp -s "$2/pareto.csv" "$3/pareto.csv" &&
     cmp -s "$2/summary.json" "$3/summary.json"; then echo "ok   $1"; else
    echo "FAIL $1: $2 and $3 differ"; fails=$((fails + 1)); fi
}
check "search evolution again" 0 "$dcnas" search "${common[@]}" --strategy evolution --budget 200 --seed 3 --out "$tmp/b"
same "same seed, same search" "$tmp/a" "$tmp/b"
check "another seed" 0 "$dcnas" search "${common[@]}" --strategy evolution --budget 200 --seed 4 --out "$tmp/c"
if cmp -s "$tmp/a/journal.jsonl" "$tmp/c/journal.jsonl"; then echo "FAIL seeds 3 and 4 gave one journal"; fails=$((fails + 1)); else echo "ok   another seed, another search"; fi

for s in random rl nsga2; do
  check "search $s" 0 "$dcnas" search "${common[@]}" --strategy "$s" --budget 150 --seed 1 --out "$tmp/$s"
  json_ok "$s summary parses" "$tmp/$s/summary.json"
done
check "search hard reward, latency table" 0 "$dcnas" search "${common[@]}" --strategy evolution --hard --latency "table:$tmp/lat.csv" --budget 100 --out "$tmp/t"
contains "latency table in the configuration" "$tmp/t/journal.jsonl" '"latency":{"file"'

contains "pareto.svg is an SVG chart" "$tmp/a/pareto.svg" "<svg"
contains "pareto.svg marks the target" "$tmp/a/pareto.svg" "target 15.0 ms"
contains "summary.json times the references" "$tmp/a/summary.json" '"model": "efficientnet-x-b0"'
contains "best.txt gives a reference's published top-1 apart" "$tmp/a/best.txt" \
  'efficientnet-b0.*(published ImageNet top-1 77.1%)'
contains "a reference the small space cannot express is said so" "$tmp/a/best.txt" "cannot express its blocks"
check "unknown reference" 2 "$dcnas" search "${common[@]}" --strategy random --budget 10 --references efficientnet-b9 --out "$tmp/x"
contains "unknown reference named" "$tmp/err" "efficientnet-b9"

# Rounds of 16 candidates in flight: the same search on one thread and on three.
check "in flight, one thread" 0 "$dcnas" search "${common[@]}" --strategy evolution --budget 200 --seed 3 --in-flight 16 --out "$tmp/f1"
check "in flight, three threads" 0 "$dcnas" search "${common[@]}" --strategy evolution --budget 200 --seed 3 --in-flight 16 --threads 3 --out "$tmp/f3"
same "threads do not change the search" "$tmp/f1" "$tmp/f3"
contains "in_flight in the configuration" "$tmp/f1/journal.jsonl" '"in_flight":16'
check "in flight 0" 2 "$dcnas" search "${common[@]}" --strategy evolution --budget 30 --in-flight 0 --out "$tmp/x"
mkdir -p "$tmp/f3k"
head -n 101 "$tmp/f3/journal.jsonl" > "$tmp/f3k/journal.jsonl"
check "resume mid-round" 0 "$dcnas" search "${common[@]}" --strategy evolution --budget 200 --seed 3 --in-flight 16 --threads 2 --out "$tmp/f3k" --resume
same "resumed mid-round = uninterrupted" "$tmp/f1" "$tmp/f3k"

# Torn last line: a journal cut in the middle of a line resumes to the uninterrupted result.
mkdir -p "$tmp/torn"
head -c "$(( $(head -n 121 "$tmp/a/journal.jsonl" | wc -c) + 30 ))" "$tmp/a/journal.jsonl" > "$tmp/torn/journal.jsonl"
check "resume a torn journal" 0 "$dcnas" search "${common[@]}" --strategy evolution --budget 200 --seed 3 --out "$tmp/torn" --resume
contains "replayed 120" "$tmp/out" "120 replayed"
same "torn journal resumed = uninterrupted" "$tmp/a" "$tmp/torn"

# kill -9 mid-run (DCNAS_KILL_AT: after the 100th journaled result, and mid-round), resume,
# compare with an uninterrupted run. nsga2's converging generations propose networks evaluated
# before: the resume re-derives those repeats.
long=(--strategy nsga2 --budget 140 --seed 5 --population 12)
check "uninterrupted nsga2" 0 "$dcnas" search "${common[@]}" "${long[@]}" --out "$tmp/full"
json_ok "nsga2 summary parses" "$tmp/full/summary.json"
if python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if s["evaluations"] == 140 and s["repeats"] > 0 else 1)' "$tmp/full/summary.json"; then
  echo "ok   nsga2: 140 distinct networks, repeats counted"; else echo "FAIL nsga2 distinct/repeats"; fails=$((fails + 1)); fi
DCNAS_KILL_AT=search.journaled:100 "$dcnas" search "${common[@]}" "${long[@]}" --out "$tmp/killed" > /dev/null 2>&1
rc=$?
lines=$(wc -l < "$tmp/killed/journal.jsonl")
if [ "$rc" -eq 137 ] && [ "$lines" -eq 101 ]; then echo "ok   killed (-9) after $((lines - 1)) journaled results"; else
  echo "FAIL kill point: exit $rc, $lines journal lines"; fails=$((fails + 1)); fi
check "resume after kill -9" 0 "$dcnas" search "${common[@]}" "${long[@]}" --out "$tmp/killed" --resume
contains "100 replayed" "$tmp/out" "100 replayed"
same "killed and resumed = uninterrupted" "$tmp/full" "$tmp/killed"
DCNAS_KILL_AT=search.journaled:60 "$dcnas" search "${common[@]}" "${long[@]}" --in-flight 7 --out "$tmp/k7" > /dev/null 2>&1
check_rc "killed (-9) mid-round" 137 $?
check "resume after kill -9 mid-round" 0 "$dcnas" search "${common[@]}" "${long[@]}" --in-flight 7 --out "$tmp/k7" --resume
check "uninterrupted, 7 in flight" 0 "$dcnas" search "${common[@]}" "${long[@]}" --in-flight 7 --out "$tmp/f7"
same "killed mid-round and resumed = uninterrupted" "$tmp/f7" "$tmp/k7"

# The budget counts distinct networks: all 256 networks of the space by random search (its last
# draws find evaluated networks: answered, not charged), then a budget past the space's size stops
# early with a message and the outputs written.
check "random over the whole space" 0 "$dcnas" search "${common[@]}" --strategy random --budget 256 --seed 2 --out "$tmp/all"
if python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if s["evaluations"] == 256 and s["repeats"] > 0 else 1)' "$tmp/all/summary.json"; then
  echo "ok   256 distinct networks, the repeats counted and not charged"; else echo "FAIL distinct/repeats"; fails=$((fails + 1)); fi
if [ "$(wc -l < "$tmp/all/journal.jsonl")" -eq 257 ]; then echo "ok   one journal line per distinct network"; else
  echo "FAIL journal lines $(wc -l < "$tmp/all/journal.jsonl")"; fails=$((fails + 1)); fi
contains "the final line counts the repeats" "$tmp/out" "256 distinct networks ([1-9][0-9]* repeat proposals"
contains "budget semantics in the header" "$tmp/all/journal.jsonl" '"budget_counts":"distinct networks"'
check "budget past the space's size" 0 "$dcnas" search "${common[@]}" --strategy evolution --budget 300 --seed 2 --out "$tmp/past"
contains "stops early, saying why" "$tmp/out" "stopped after 256 of 300 distinct networks"
contains "summary says it stopped" "$tmp/past/summary.json" '"stopped"'
json_ok "stopped run's summary parses" "$tmp/past/summary.json"
check "resume of a stopped run" 0 "$dcnas" search "${common[@]}" --strategy evolution --budget 300 --seed 2 --out "$tmp/past" --resume
contains "stops again" "$tmp/out" "stopped after 256 of 300"
sed '1s/"version":2/"version":1/' "$tmp/all/journal.jsonl" > "$tmp/v1.jsonl"
mkdir -p "$tmp/v1" && cp "$tmp/v1.jsonl" "$tmp/v1/journal.jsonl"
check "a version-1 journal is refused" 2 "$dcnas" search "${common[@]}" --strategy random --budget 256 --seed 2 --out "$tmp/v1" --resume
contains "refusal names the file and the key" "$tmp/err" "v1/journal.jsonl:1: journal version 1.*key 'version'"

# Strategy parameters: in the configuration, refused out of range or where they do not apply.
check "evolution with parameters" 0 "$dcnas" search "${common[@]}" --strategy evolution --population 10 --tournament 3 --mutations 2 --start 5 --budget 60 --out "$tmp/p"
contains "parameters in the journal" "$tmp/p/journal.jsonl" '"strategy_options":{"mutations":2,"population":10,"start":5,"tournament":3}'
check "resume with another population" 2 "$dcnas" search "${common[@]}" --strategy evolution --population 12 --tournament 3 --mutations 2 --start 5 --budget 60 --out "$tmp/p" --resume
contains "names the parameter" "$tmp/err" "config.strategy_options.population"
check "tournament > population" 2 "$dcnas" search "${common[@]}" --strategy evolution --population 10 --tournament 11 --budget 60 --out "$tmp/x"
contains "tournament named" "$tmp/err" "\-\-tournament 11"
check "population 0" 2 "$dcnas" search "${common[@]}" --strategy evolution --population 0 --budget 60 --out "$tmp/x"
contains "population named" "$tmp/err" "\-\-population"
check "negative mutations" 2 "$dcnas" search "${common[@]}" --strategy evolution --mutations -1 --budget 60 --out "$tmp/x"
contains "mutations named" "$tmp/err" "\-\-mutations"
check "population not a number" 2 "$dcnas" search "${common[@]}" --strategy evolution --population ten --budget 60 --out "$tmp/x"
contains "non-number named" "$tmp/err" "ten"
check "tournament for rl" 2 "$dcnas" search "${common[@]}" --strategy rl --tournament 3 --budget 60 --out "$tmp/x"
contains "does not apply" "$tmp/err" "\-\-tournament does not apply to strategy rl"
check "unknown acquisition" 2 "$dcnas" search "${common[@]}" --strategy predictor --acquisition ei --budget 60 --out "$tmp/x"
contains "acquisition named" "$tmp/err" "\-\-acquisition 'ei'"
check "predictor with a table" 0 "$dcnas" search "${common[@]}" --strategy predictor --start 8 --candidates 50 --ensemble 6 --model trees --acquisition ucb --kappa 0.5 --budget 60 --seed 1 --out "$tmp/pr"
contains "predictor parameters in the journal" "$tmp/pr/journal.jsonl" '"strategy_options":{"acquisition":"ucb","candidates":50,"elite":10,"ensemble":6,"kappa":0.5,"model":"trees","mutations":1,"start":8}'
check "predictor again" 0 "$dcnas" search "${common[@]}" --strategy predictor --start 8 --candidates 50 --ensemble 6 --model trees --acquisition ucb --kappa 0.5 --budget 60 --seed 1 --out "$tmp/pr2"
same "predictor: same seed, same search" "$tmp/pr" "$tmp/pr2"

# Accuracy only: no latency, reward = accuracy, no --target-ms.
acconly=(--space "$space" --accuracy "table:$tmp/acc.csv" --latency none)
check "accuracy-only search" 0 "$dcnas" search "${acconly[@]}" --strategy evolution --budget 80 --out "$tmp/acc"
contains "says accuracy only" "$tmp/out" "best accuracy"
contains "reward kind in the journal" "$tmp/acc/journal.jsonl" '"reward":{"kind":"accuracy"}'
contains "latency kind none" "$tmp/acc/journal.jsonl" '"latency":{"kind":"none"}'
contains "pareto.csv has no latency column" "$tmp/acc/pareto.csv" "^accuracy,reward,params"
contains "best.txt says so" "$tmp/acc/best.txt" "accuracy only"
contains "pareto.svg charts the accuracy" "$tmp/acc/pareto.svg" "accuracy only, no latency"
json_ok "accuracy-only summary parses" "$tmp/acc/summary.json"
check "accuracy only with a target" 2 "$dcnas" search "${acconly[@]}" --target-ms 5 --budget 80 --out "$tmp/x"
contains "target refused" "$tmp/err" "target-ms needs a latency"
check "accuracy-only compare" 0 "$dcnas" search compare "${acconly[@]}" --strategies random,evolution --budgets 20,40 --seeds 2 --population 8 --out "$tmp/cmp"
contains "compare runs.csv counts repeats" "$tmp/cmp/runs.csv" "^strategy,budget,seed,best_reward,best_accuracy,best_latency_ms,evaluated,repeats$"

# The NAS-benchmark protocol on the small space's table (256 networks: the top 1% is the best 3).
proto=(--space "$space" --accuracy "table:$tmp/acc.csv" --seeds 6 --budget 120)
check "protocol" 0 "$dcnas" search protocol "${proto[@]}" --out "$tmp/proto"
for f in runs.csv protocol.txt summary.json protocol.svg; do
  if [ -s "$tmp/proto/$f" ]; then echo "ok   protocol wrote $f"; else echo "FAIL protocol: missing $f"; fails=$((fails + 1)); fi
done
json_ok "protocol summary parses" "$tmp/proto/summary.json"
contains "protocol runs.csv header" "$tmp/proto/runs.csv" "^strategy,seed,to_optimum,to_top,found_optimum,found_top,evaluated,repeats$"
if [ "$(wc -l < "$tmp/proto/runs.csv")" -eq 31 ]; then echo "ok   5 strategies x 6 seeds"; else
  echo "FAIL protocol runs: $(wc -l < "$tmp/proto/runs.csv") lines"; fails=$((fails + 1)); fi
contains "protocol table names the targets" "$tmp/out" "optimum .* top 1%: 3 networks"
contains "protocol table per strategy" "$tmp/out" "^predictor "
contains "protocol chart" "$tmp/proto/protocol.svg" "predictor: top 1%"
python3 - "$tmp/proto/runs.csv" "$tmp/acc.csv" <<'PY'
import csv, sys
runs = list(csv.DictReader(open(sys.argv[1])))
ok = all((r["found_optimum"] == "1") == (int(r["to_optimum"]) > 0) and
         (r["found_top"] == "0" or int(r["to_top"]) <= max(int(r["to_optimum"]), 0) or r["found_optimum"] == "0")
         and int(r["evaluated"]) <= 120 for r in runs)
# a run that found the optimum stops there; the top is found no later than the optimum
ok = ok and all(int(r["evaluated"]) == int(r["to_optimum"]) for r in runs if r["found_optimum"] == "1")
ok = ok and all(0 < int(r["to_top"]) <= int(r["to_optimum"]) for r in runs if r["found_optimum"] == "1")
print("ok   protocol runs are consistent" if ok else "FAIL protocol runs inconsistent")
sys.exit(0 if ok else 1)
PY
[ $? -eq 0 ] || fails=$((fails + 1))
check "protocol on one thread" 0 "$dcnas" search protocol "${proto[@]}" --threads 1 --out "$tmp/proto1"
if cmp -s "$tmp/proto/runs.csv" "$tmp/proto1/runs.csv" && cmp -s "$tmp/proto/summary.json" "$tmp/proto1/summary.json"; then
  echo "ok   protocol: threads do not change the result"; else echo "FAIL protocol depends on threads"; fails=$((fails + 1)); fi
check "protocol with parameters" 0 "$dcnas" search protocol "${proto[@]}" --strategies evolution,predictor --population 8 --start 4 --top-fraction 0.05 --out "$tmp/proto2"
contains "protocol parameters in the summary" "$tmp/proto2/summary.json" '"population": 8'
contains "top fraction 5%" "$tmp/out" "top 5%: 13 networks"
check "protocol: top fraction 0" 2 "$dcnas" search protocol "${proto[@]}" --top-fraction 0 --out "$tmp/x"
contains "top fraction named" "$tmp/err" "top-fraction"
check "protocol: tournament > population" 2 "$dcnas" search protocol "${proto[@]}" --population 4 --tournament 5 --out "$tmp/x"
contains "protocol: tournament named" "$tmp/err" "\-\-tournament 5"
check "protocol: unknown strategy" 2 "$dcnas" search protocol "${proto[@]}" --strategies evolution,bananas --out "$tmp/x"
contains "protocol: strategy named" "$tmp/err" "bananas"
check "protocol: not a table" 2 "$dcnas" search protocol --space "$space" --accuracy "surrogate:$tmp/s.ubj" --out "$tmp/x"
contains "protocol: table asked for" "$tmp/err" "table:FILE"
check "protocol: missing table" 2 "$dcnas" search protocol --space "$space" --accuracy "table:$tmp/none.csv" --out "$tmp/x"
contains "protocol: file named" "$tmp/err" "none.csv"
head -100 "$tmp/acc.csv" > "$tmp/part.csv"
check "protocol: a table missing networks" 2 "$dcnas" search protocol --space "$space" --accuracy "table:$tmp/part.csv" --seeds 2 --out "$tmp/x"
contains "protocol: missing network named" "$tmp/err" "part.csv: no accuracy for architecture"
check "protocol: seeds not a number" 2 "$dcnas" search protocol "${proto[@]}" --seeds many --out "$tmp/x"
contains "protocol: seeds named" "$tmp/err" "seeds"

# Refusals.
check "journal exists without --resume" 2 "$dcnas" search "${common[@]}" --strategy evolution --budget 200 --seed 3 --out "$tmp/a"
contains "names --resume" "$tmp/err" "resume"
check "resume with another seed" 2 "$dcnas" search "${common[@]}" --strategy evolution --budget 200 --seed 9 --out "$tmp/a" --resume
contains "names the differing key" "$tmp/err" "does not match this configuration: config.seed"
check "resume with another target" 2 "$dcnas" search --space "$space" --accel tpu-v3 --batch 128 --target-ms 16 --accuracy "table:$tmp/acc.csv" --strategy evolution --budget 200 --seed 3 --out "$tmp/a" --resume
contains "names the target" "$tmp/err" "config.reward.target_ms"
check "resume in another space" 2 "$dcnas" search --space "$spaces/mnasnet.yaml" --accel tpu-v3 --target-ms 15 --accuracy "table:$tmp/acc.csv" --strategy evolution --budget 200 --seed 3 --out "$tmp/a" --resume
sed 's/head_filters: 1280/head_filters: 1408/' "$space" > "$tmp/wider.yaml"
check "resume with a journal of another space" 2 "$dcnas" search --space "$tmp/wider.yaml" --accel tpu-v3 --batch 128 --target-ms 15 --accuracy "table:$tmp/acc.csv" --strategy evolution --budget 200 --seed 3 --out "$tmp/a" --resume
contains "names the space's fingerprint" "$tmp/err" "does not match this configuration: space.fingerprint"
check "unknown strategy" 2 "$dcnas" search "${common[@]}" --strategy evolutoin --budget 10 --out "$tmp/x"
contains "unknown strategy listed" "$tmp/err" "did you mean"
check "unknown accelerator" 2 "$dcnas" search "${common[@]}" --accel tpu-v9 --strategy random --budget 10 --out "$tmp/x"
check "target 0" 2 "$dcnas" search --space "$space" --target-ms 0 --accuracy "table:$tmp/acc.csv" --budget 10 --out "$tmp/x"
contains "target named" "$tmp/err" "target-ms"
check "budget 0" 2 "$dcnas" search "${common[@]}" --budget 0 --out "$tmp/x"
contains "budget named" "$tmp/err" "budget"
check "accuracy of an unknown kind" 2 "$dcnas" search --space "$space" --target-ms 15 --accuracy guess:x --budget 10 --out "$tmp/x"
contains "kinds listed" "$tmp/err" "train\[:RECIPE\]"
check "predictor's prior without a surrogate" 2 "$dcnas" search "${common[@]}" --strategy predictor --prior --budget 10 --out "$tmp/x"
contains "prior needs uncertainty" "$tmp/err" "prior needs an accuracy objective"
check "table misses an architecture" 2 "$dcnas" search --space "$spaces/dc-accelerator.yaml" --target-ms 15 --accuracy "table:$tmp/acc.csv" --budget 10 --out "$tmp/x"
contains "foreign table line named" "$tmp/err" "acc.csv:2: encoding"
if [ -e "$tmp/x/journal.jsonl" ]; then echo "FAIL a refused search left a journal"; fails=$((fails + 1)); else echo "ok   refused searches wrote no journal"; fi

# Finalists (LibTorch builds with Fashion-MNIST): the front's best and the references trained.
if "$dcnas" search finalists --help > /dev/null 2>&1 && [ -d /usr/share/datasets/fashion-mnist ]; then
  fin=(--run "$tmp/a" --space "$space" --k 2 --train-images 1000 --proxy-resolution 16 --limit-eval 100 --jobs 2)
  check "finalists" 0 "$dcnas" search finalists "${fin[@]}" --epochs 1 --append-to "$tmp/fin.csv"
  if [ "$(wc -l < "$tmp/a/finalists.csv")" -eq 5 ]; then echo "ok   finalists.csv: 2 finalists, 2 references"; else
    echo "FAIL finalists.csv lines"; fails=$((fails + 1)); fi
  contains "references trained as zoo networks" "$tmp/a/finalists.csv" "^reference,efficientnet-b0,,"
  contains "report compares with the references" "$tmp/a/finalists.txt" "efficientnet-x-b0 (trained test"
  if [ "$(wc -l < "$tmp/fin.csv")" -eq 3 ]; then echo "ok   the 2 finalists appended as accuracy rows"; else
    echo "FAIL appended rows"; fails=$((fails + 1)); fi
  check "finalists again without --resume" 2 "$dcnas" search finalists "${fin[@]}" --epochs 1
  check "finalists resumed" 0 "$dcnas" search finalists "${fin[@]}" --epochs 1 --resume
  contains "nothing trained twice" "$tmp/err" "4 already in"
  check "append to data of another recipe" 2 "$dcnas" search finalists "${fin[@]}" --epochs 2 --append-to "$tmp/fin.csv" --resume
  contains "recipes named" "$tmp/err" "one file, one recipe"
  check "a resume with another recipe" 2 "$dcnas" search finalists "${fin[@]}" --epochs 2 --resume
  contains "recipe of the journal named" "$tmp/err" "finalists.jsonl:1: trained with"
  # A zero-cost label is not a training: one column, named for what it is.
  cp -r "$tmp/a" "$tmp/zc" && rm -f "$tmp/zc"/finalists.*
  check "finalists with a zero-cost label" 0 "$dcnas" search finalists --run "$tmp/zc" --space "$space" --k 2 \
    --proxy-resolution 16 --batch 32 --jobs 2 --label zc-naswot-a0.008-b7.6
  contains "label column" "$tmp/zc/finalists.txt" "label %"
  contains "no training said" "$tmp/zc/finalists.txt" "labelled by the zero-cost label of"
  if grep -w "trained" "$tmp/zc/finalists.txt"; then echo "FAIL a label reported as trained"; fails=$((fails + 1)); else
    echo "ok   a label is never called trained"; fi
  check "search --finalists" 0 "$dcnas" search "${common[@]}" --strategy random --budget 50 --finalists 1 --finalists-recipe r16_n1000_e1 --train-limit-eval 100 --out "$tmp/fz"
  if [ "$(wc -l < "$tmp/fz/finalists.csv")" -eq 4 ]; then echo "ok   --finalists trained 1 finalist, 2 references"; else
    echo "FAIL --finalists rows"; fails=$((fails + 1)); fi
  check "--finalists without a recipe" 2 "$dcnas" search "${common[@]}" --strategy random --budget 50 --finalists 1 --out "$tmp/x"
  contains "recipe asked for" "$tmp/err" "finalists-recipe"
  # Accuracy from real training: a small budget, two candidates in flight trained side by side.
  check "search --accuracy train" 0 "$dcnas" search --space "$space" --accel tpu-v3 --target-ms 15 --accuracy train:r16_e1_n1000 --train-jobs 2 --train-limit-eval 100 --in-flight 2 --strategy random --budget 4 --references none --out "$tmp/train"
  contains "training recipe in the configuration" "$tmp/train/journal.jsonl" '"kind":"train","limit_eval":100,"recipe":"r16_w0.25_rd1_e1_n1000_b128_sgd_lr0"'
  if [ "$(wc -l < "$tmp/train/journal.jsonl")" -eq 5 ]; then echo "ok   4 trained candidates journaled"; else
    echo "FAIL trained candidates"; fails=$((fails + 1)); fi
  # Successive halving over each round: 3 candidates for 1 epoch, the best 2 again for 2.
  check "search --train-halving" 0 "$dcnas" search --space "$space" --accel tpu-v3 --target-ms 15 --accuracy train:r16_e2_n1000 --train-halving 2 --train-jobs 2 --train-limit-eval 100 --in-flight 3 --strategy random --budget 3 --references none --out "$tmp/halving"
  contains "halving in the configuration" "$tmp/halving/journal.jsonl" '"halving":{"eta":2,"min_epochs":1}'
  if [ "$(wc -l < "$tmp/halving/journal.jsonl")" -eq 4 ]; then echo "ok   3 halved candidates journaled"; else
    echo "FAIL halved candidates"; fails=$((fails + 1)); fi
  check "--train-halving wider than a round" 2 "$dcnas" search --space "$space" --target-ms 15 --accuracy train:r16_e2_n1000 --train-halving 3 --in-flight 2 --budget 4 --out "$tmp/x"
  contains "in-flight named" "$tmp/err" "give --in-flight of at least that"
  check "--train-halving without training" 2 "$dcnas" search --space "$space" --target-ms 15 --accuracy "table:$tmp/train.csv" --train-halving 2 --in-flight 2 --budget 4 --out "$tmp/x"
  check "--train-min-epochs at the full budget" 2 "$dcnas" search --space "$space" --target-ms 15 --accuracy train:r16_e2_n1000 --train-halving 2 --train-min-epochs 2 --in-flight 2 --budget 4 --out "$tmp/x"
  contains "min epochs named" "$tmp/err" "--train-min-epochs 2 leaves nothing to halve"
  check "--train-min-epochs without halving" 2 "$dcnas" search --space "$space" --target-ms 15 --accuracy train:r16_e2_n1000 --train-min-epochs 2 --budget 4 --out "$tmp/x"
  check "bad training recipe" 2 "$dcnas" search --space "$space" --target-ms 15 --accuracy train:r16_x9 --budget 4 --out "$tmp/x"
  contains "bad recipe part named" "$tmp/err" "unknown part 'x9'"
  check "finalists of a directory without a search" 2 "$dcnas" search finalists --run "$tmp/nothing" --space "$space"
fi

if "$dcnas" --help | grep -q surrogate; then
  check "surrogate fit" 0 "$dcnas" surrogate fit --data "$tmp/train.csv" --space "$space" --out "$tmp/s.ubj" --members 2 --no-learning-curve
  check "search with the surrogate" 0 "$dcnas" search --space "$space" --target-ms 15 --accuracy "surrogate:$tmp/s.ubj" --min-surrogate-tau 0 --strategy evolution --budget 100 --out "$tmp/sur"
  contains "surrogate in the configuration" "$tmp/sur/journal.jsonl" '"kind":"surrogate"'
  check "predictor with the surrogate" 0 "$dcnas" search --space "$space" --target-ms 15 --accuracy "surrogate:$tmp/s.ubj" --min-surrogate-tau 0 --strategy predictor --prior --budget 64 --out "$tmp/pred"
  # The table's law is additive and noiseless: the surrogate may rank its test set perfectly, so
  # the floor is checked on one fitted to shuffled accuracies (no law to learn).
  python3 -c 'import random, sys; l = open(sys.argv[1]).read().splitlines(); r = [x.split(",") for x in l[1:]]; a = [x[16] for x in r]; random.Random(2).shuffle(a); print(l[0]); [print(",".join(x[:16] + [v, v] + x[18:])) for x, v in zip(r, a)]' "$tmp/train.csv" > "$tmp/shuffled.csv"
  check "surrogate fit to shuffled accuracies" 0 "$dcnas" surrogate fit --data "$tmp/shuffled.csv" --space "$space" --out "$tmp/noise.ubj" --members 2 --no-learning-curve
  check "surrogate below the floor" 2 "$dcnas" search --space "$space" --target-ms 15 --accuracy "surrogate:$tmp/noise.ubj" --min-surrogate-tau 0.5 --budget 10 --out "$tmp/x"
  contains "floor named" "$tmp/err" "noise.ubj"
  check "surrogate of another space" 2 "$dcnas" search --space "$spaces/dc-accelerator.yaml" --target-ms 15 --accuracy "surrogate:$tmp/s.ubj" --min-surrogate-tau 0 --budget 10 --out "$tmp/x"
fi
smoke_finish
