#!/usr/bin/env bash
# dcnas search --resume replays only what a fresh evaluation could have written: a journal edited
# by hand (an accuracy of -5, a reward of 1e308, an unknown key, a latency of 0, a header whose
# budget was lowered, a latency in an accuracy-only run) is refused with exit 2 naming the file,
# the line and the key; the unedited journal resumes (exit 0) and a refused one is left as it was.
set -u
dcnas="$1"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../cli/smoke_lib.sh"

# 16 networks: block x activation in stages 2 and 3.
cat > "$tmp/tiny.yaml" <<'YAML'
format: dcnas-search-space
version: 1
name: tiny
description: a tiny space for the journal replay tests
sources: ["tests/search/journal_replay_test.sh"]
network: {resolution: 224, stem_filters: 32, head_filters: 1280, activation: relu,
          se_coefficient: 4, dropout: 0.2}
proxy: {resolution: 32, in_channels: 1, num_classes: 10, removed_downsamples: 1, width: 0.25}
defaults: {block: mbconv, kernel: 3, expand: 4, se: 0, activation: relu, repeats_delta: 0,
           filters_multiplier: 1.0}
stages:
  - {stride: 1, filters: 16, repeats: 1, choices: {expand: 1}}
  - {stride: 2, filters: 24, repeats: 2, choices: {block: [mbconv, fused], activation: [relu, swish]}}
  - {stride: 2, filters: 40, repeats: 2, choices: {block: [mbconv, fused], activation: [relu, swish]}}
  - {stride: 2, filters: 80, repeats: 3}
  - {stride: 1, filters: 112, repeats: 3}
  - {stride: 2, filters: 192, repeats: 4}
  - {stride: 1, filters: 320, repeats: 1}
YAML
space="$tmp/tiny.yaml"
"$dcnas" space sample "$space" -n 400 --seed 1 --format json > "$tmp/sample.json"
python3 - "$tmp/sample.json" "$tmp/acc.csv" <<'PY'
import json, sys
seen = {}
for r in json.load(open(sys.argv[1])):
    seen.setdefault(r["encoding"], 70 + (sum(map(ord, r["encoding"])) % 97) / 10)
with open(sys.argv[2], "w") as f:
    f.write("encoding,accuracy\n")
    for e, a in seen.items(): f.write(f"{e},{a:.2f}\n")
PY
base=(--space "$space" --accel tpu-v3 --batch 8 --target-ms 1 --accuracy "table:$tmp/acc.csv"
  --references none --strategy random --seed 2)
run=("${base[@]}" --budget 8)
check "search" 0 "$dcnas" search "${run[@]}" --out "$tmp/a"
if [ "$(wc -l < "$tmp/a/journal.jsonl")" -eq 9 ]; then echo "ok   journal: header + 8 lines"; else
  echo "FAIL journal lines"; fails=$((fails + 1)); fi

# edited NAME LINE PYTHON_EXPR: a copy of the journal in $tmp/NAME whose line LINE (a dict `j`)
# is replaced by the expression's JSON (or its text, when the expression is a string).
edited() {
  mkdir -p "$tmp/$1"
  python3 - "$tmp/a/journal.jsonl" "$tmp/$1/journal.jsonl" "$2" "$3" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
n = int(sys.argv[3]); j = json.loads(lines[n - 1])
v = eval(sys.argv[4])
lines[n - 1] = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
}
refused() {  # refused NAME PATTERN [BUDGET]: the resume (--budget BUDGET, 8) exits 2, says PATTERN
  local name="$1" pattern="$2" budget="${3:-8}"
  cp "$tmp/$name/journal.jsonl" "$tmp/$name.before"
  check "$name: refused" 2 "$dcnas" search "${base[@]}" --budget "$budget" --out "$tmp/$name" \
    --resume
  contains "$name: names the file, line and key" "$tmp/err" "$pattern"
  if cmp -s "$tmp/$name/journal.jsonl" "$tmp/$name.before"; then
    echo "ok   $name: the journal is left as it was"; else
    echo "FAIL $name: the refused journal changed"; fails=$((fails + 1)); fi
}

edited accuracy 4 '{**j, "accuracy": -5}'
refused accuracy "accuracy/journal.jsonl:4: key 'accuracy' is -5: outside 0..100"
edited reward 5 '{**j, "reward": 1e308}'
refused reward "reward/journal.jsonl:5: key 'reward' is 1e+308: the configured reward gives"
edited unknown 3 '{**j, "note": "hand-edited"}'
refused unknown "unknown/journal.jsonl:3: unknown key \"note\""
edited latency 6 '{**j, "latency_ms": 0}'
refused latency "latency/journal.jsonl:6: key 'latency_ms' is 0: a latency must be above 0 ms"
edited encoding 2 '{**j, "encoding": "z" + j["encoding"][1:]}'
refused encoding "encoding/journal.jsonl:2: key 'encoding' is \"z"
edited twice 7 'json.dumps(j, separators=(",", ":")).replace("{", "{\"accuracy\":99,", 1)'
refused twice "twice/journal.jsonl:7: key \"accuracy\" given twice"
edited ids 9 '{**j, "id": 0}'
refused ids "ids/journal.jsonl:9: key 'id' is 0"
# The header's budget lowered to 5 (and the run asked for 5, so the headers agree): the sixth
# result is past it. Not an internal error: exit 2 naming the key.
edited budget 1 '{**j, "config": {**j["config"], "budget": 5}}'
refused budget "budget/journal.jsonl:7: result 6 is past the budget: key 'config.budget' is 5" 5
# A budget edited without --budget: the headers differ, the key named.
refused budget "does not match this configuration: config.budget is 5 in the journal, 8 here"

mkdir -p "$tmp/same" && cp "$tmp/a/journal.jsonl" "$tmp/same/"
check "the unedited journal resumes" 0 "$dcnas" search "${run[@]}" --out "$tmp/same" --resume
contains "all 8 replayed" "$tmp/out" "8 replayed"
if cmp -s "$tmp/a/summary.json" "$tmp/same/summary.json"; then
  echo "ok   resumed = uninterrupted"; else echo "FAIL resumed summary differs"; fails=$((fails + 1)); fi

# Accuracy only (--latency none): latency_ms is 0 in the journal; another value is refused.
acconly=(--space "$space" --accuracy "table:$tmp/acc.csv" --latency none --strategy random
  --budget 6 --seed 2)
check "accuracy-only search" 0 "$dcnas" search "${acconly[@]}" --out "$tmp/n"
mkdir -p "$tmp/n2" && cp "$tmp/n/journal.jsonl" "$tmp/n2/"
check "accuracy-only resume" 0 "$dcnas" search "${acconly[@]}" --out "$tmp/n2" --resume
mkdir -p "$tmp/n3"
python3 - "$tmp/n/journal.jsonl" "$tmp/n3/journal.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
j = json.loads(lines[2]); j["latency_ms"] = 2.5
lines[2] = json.dumps(j, separators=(",", ":"))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
check "accuracy-only: a latency refused" 2 "$dcnas" search "${acconly[@]}" --out "$tmp/n3" --resume
contains "accuracy-only: line and key named" "$tmp/err" \
  "n3/journal.jsonl:3: key 'latency_ms' is 2.5: this run has no latency"
smoke_finish
