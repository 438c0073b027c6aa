#!/usr/bin/env bash
# Smoke tests of the dcnas CLI on the shipped data: every command runs, outputs parse, and bad
# input gives exit code 2 with a message naming the problem.
set -u
dcnas="$1"
# shellcheck source=smoke_lib.sh
source "$(dirname "$0")/smoke_lib.sh"

check "help" 0 "$dcnas" --help
check "no args" 2 "$dcnas"
check "unknown command" 2 "$dcnas" modles
contains "unknown command suggests" "$tmp/err" "models"
check "models list" 0 "$dcnas" models list
contains "list has x-tpu-b7" "$tmp/out" "efficientnet-x-tpu-b7"
check "models list json" 0 "$dcnas" models list --format json
json_ok "models list json parses" "$tmp/out"
check "models show" 0 "$dcnas" models show efficientnet-b0
contains "show total params" "$tmp/out" "5,288,548 params"
check "models show json" 0 "$dcnas" models show efficientnet-x-b0 --format json --batch 4 --dtype bf16
json_ok "show json parses" "$tmp/out"
contains "show json params" "$tmp/out" '"params": 7584104'
check "models show csv per block" 0 "$dcnas" models show efficientnet-b0 --format csv --per-block
contains "csv header" "$tmp/out" "block,stage,ops,macs"
check "models show --help" 0 "$dcnas" models show --help
contains "help mentions --resolution" "$tmp/out" "--resolution"
check "unknown model" 2 "$dcnas" models show efficientnet-b9
contains "unknown model suggests" "$tmp/err" "efficientnet-b"
# The published timm MBConv networks, made from their table on first use.
check "models list --prefixed" 0 "$dcnas" models list --prefixed
contains "models list --prefixed lists timm networks" "$tmp/out" "timm:efficientnet_es"
check "models show timm:" 0 "$dcnas" models show timm:mobilenetv3_large_100 --format json
contains "timm: the exact parameter count" "$tmp/out" '"params": 5483032'
check "timm: CondConv refused by name" 2 "$dcnas" models show timm:tf_efficientnet_cc_b0_4e
contains "timm: CondConv named" "$tmp/err" "CondConv experts"
check "timm: unknown name" 2 "$dcnas" models show timm:efficientnet_b00
contains "timm: did you mean" "$tmp/err" "did you mean: timm:efficientnet_b0"
check "timm: simulated" 0 "$dcnas" sim timm:efficientnet_x_b5 --accel tpu-v3
check "bad dtype" 2 "$dcnas" models show efficientnet-b0 --dtype fp64
check "bad batch" 2 "$dcnas" models show efficientnet-b0 --batch 0
check "counts that would overflow refused" 2 "$dcnas" models show efficientnet-b7 --batch 1048576 --resolution 8192
contains "overflow: names the op and the limit" "$tmp/err" "more than 2^40 elements"
check "block string out of range" 2 "$dcnas" models show --blocks r1000000_k3_s11_e1_i32_o16
check "depth 1e9 refused" 2 "$dcnas" models show --blocks r1_k3_s11_e1_i32_o16 --depth 1e9
check "width inf refused" 2 "$dcnas" models show --blocks r1_k3_s11_e1_i32_o16 --width inf
check "export" 0 "$dcnas" models export efficientnet-x-b0 --out "$tmp/g.json"
json_ok "export parses" "$tmp/g.json"
check "show --graph" 0 "$dcnas" models show --graph "$tmp/g.json"
contains "graph params" "$tmp/out" "7,584,104 params"
check "show --blocks" 0 "$dcnas" models show --blocks r1_k3_s11_e1_i32_o16_se0.25 r2_k3_s22_e6_i16_o24_se0.25 --resolution 64
check "bad block string" 2 "$dcnas" models show --blocks r1_k3_s2_e1_i32_o16
echo '{"format": "dcnas-graph", "version": 1, "ops": [{"id": 0, "kind": "input", "shape": [1, 8, 8, 3]}, {"id": 1, "kind": "conv2d", "inputs": [0], "kernel": [3, 3], "out_channels": 0}]}' >"$tmp/bad.json"
check "bad graph json" 2 "$dcnas" models show --graph "$tmp/bad.json"
contains "bad graph names field" "$tmp/err" "ops\[1\].out_channels"
echo -n "" >"$tmp/empty.json"
check "empty graph file" 2 "$dcnas" models show --graph "$tmp/empty.json"
check "missing graph file" 2 "$dcnas" models show --graph "$tmp/nonexistent.json"
check "export needs --out" 2 "$dcnas" models export efficientnet-b0

# Simulator commands: sim, roofline, sweep, compare.
check "sim" 0 "$dcnas" sim efficientnet-b0 --accel tpu-v3
contains "sim latency" "$tmp/out" "ms per batch"
contains "sim bound mix" "$tmp/out" "time by bound"
check "sim json" 0 "$dcnas" sim efficientnet-x-gpu-b0 --accel v100 --stack tensorrt --format json --batch 32
json_ok "sim json parses" "$tmp/out"
contains "sim json latency_ms" "$tmp/out" '"latency_ms"'
contains "sim json throughput" "$tmp/out" '"throughput_img_per_s"'
contains "sim json intensity" "$tmp/out" '"intensity_flop_per_byte"'
check "sim csv per op" 0 "$dcnas" sim resnet50 --accel a100 --format csv --per-op
contains "sim csv header" "$tmp/out" "id,name,kind,detail"
check "sim --set" 0 "$dcnas" sim efficientnet-b0 --accel tpu-v3 --set matrix_unit.rows=256 --set hbm.bandwidth_gbps=1800
contains "sim overrides shown" "$tmp/out" "matrix_unit.rows=256"
check "sim variant file" 0 "$dcnas" sim efficientnet-b0 --accel tpu-v3-hbm2x
check "sim int8 on a TPU v3" 0 "$dcnas" sim efficientnet-b0 --accel tpu-v3 --precision int8
contains "int8 on a TPU v3 warns" "$tmp/err" "warning: tpu-v3 lists no int8 rate"
check "compare int8 on a TPU v3" 0 "$dcnas" compare --family efficientnet,efficientnet-x-tpu --accel tpu-v3 \
  --precision int8
contains "compare warns too" "$tmp/err" "warning: tpu-v3 lists no int8 rate"
check "sim fp32 on a V100" 0 "$dcnas" sim efficientnet-b0 --accel v100 --precision fp32
if grep -q "lists no" "$tmp/err"; then
  echo "FAIL fp32 on a V100 (its CUDA cores) warns"; fails=$((fails + 1))
else
  echo "ok   fp32 on a V100 (its CUDA cores) does not warn"
fi
check "sim --graph" 0 "$dcnas" sim --graph "$tmp/g.json" --accel host-cpu
check "sim --graph --batch refused" 2 "$dcnas" sim --graph "$tmp/g.json" --accel host-cpu --batch 64
contains "--graph --batch: named" "$tmp/err" "--batch cannot change a graph file"
check "sim --graph --precision refused" 2 "$dcnas" sim --graph "$tmp/g.json" --accel tpu-v3 --precision bf16
python3 -c "import json,sys; g=json.load(open(sys.argv[1])); g[\"info\"][\"batch\"]=64; json.dump(g,open(sys.argv[2],\"w\"))" "$tmp/g.json" "$tmp/g64.json"
check "graph info.batch contradicting its input refused" 2 "$dcnas" sim --graph "$tmp/g64.json" --accel host-cpu
contains "info.batch named" "$tmp/err" "info.batch: says 64 but the input op"
# Training steps (--mode train): the split, the memory and the refusals.
check "sim train" 0 "$dcnas" sim resnet50 --accel tpu-v3 --mode train --optimizer rmsprop --chips 16 --batch 1024
contains "sim train step" "$tmp/out" "images/s"
contains "sim train all-reduce" "$tmp/out" "torus2d 4x4"
contains "sim train per replica" "$tmp/out" "32 replicas x 32 per replica"
contains "sim train memory" "$tmp/out" "memory per chip"
check "sim train json" 0 "$dcnas" sim efficientnet-b0 --accel v100 --stack pytorch-eager --mode train --chips 8 --batch 256 --format json
json_ok "sim train json parses" "$tmp/out"
contains "sim train json exposed all-reduce" "$tmp/out" '"exposed_s"'
check "sim train over HBM refused" 2 "$dcnas" sim resnet50 --accel tpu-v3 --mode train --batch 8192
contains "sim train refusal names the parts" "$tmp/err" "activations at the high-water mark"
check "sim train over HBM reported" 0 "$dcnas" sim resnet50 --accel tpu-v3 --mode train --batch 8192 --no-memory-check
check "sim train batch not split" 2 "$dcnas" sim resnet50 --accel tpu-v3 --mode train --chips 16 --batch 1000
contains "sim train split message" "$tmp/err" "multiple of 32"
check "sim train unknown optimizer" 2 "$dcnas" sim resnet50 --accel tpu-v3 --mode train --optimizer sgd
check "sim train without interconnect" 2 "$dcnas" sim resnet50 --accel epyc-zen4 --mode train --chips 2 --batch 64
contains "sim train interconnect message" "$tmp/err" "no interconnect section"
check "sim --chips without train" 2 "$dcnas" sim resnet50 --accel tpu-v3 --chips 4
check "sim unknown mode" 2 "$dcnas" sim resnet50 --accel tpu-v3 --mode training
check "sim train --graph refused" 2 "$dcnas" sim --graph "$tmp/g.json" --accel host-cpu --mode train
check "sim unknown accel" 2 "$dcnas" sim efficientnet-b0 --accel tpu-v9
contains "unknown accel suggests" "$tmp/err" "tpu-v"
check "sim unknown --set key" 2 "$dcnas" sim efficientnet-b0 --accel tpu-v3 --set matrix_unit.rowz=256
contains "bad key named" "$tmp/err" "matrix_unit.rowz"
check "sim zero bandwidth" 2 "$dcnas" sim efficientnet-b0 --accel tpu-v3 --set hbm.bandwidth_gbps=0
contains "zero bandwidth named" "$tmp/err" "hbm.bandwidth_gbps"
check "sim unknown stack" 2 "$dcnas" sim efficientnet-b0 --accel v100 --stack mxnet
check "sim no model" 2 "$dcnas" sim --accel v100
check "roofline" 0 "$dcnas" roofline --models efficientnet-b0,resnet50 --accel tpu-v3,v100 --out "$tmp/roof.svg"
contains "roofline svg" "$tmp/roof.svg" "<svg"
contains "flops-latency svg" "$tmp/roof-flops-latency.svg" "<svg"
check "roofline json" 0 "$dcnas" roofline --models efficientnet-b0 --accel v100 --format json
json_ok "roofline json parses" "$tmp/out"
check "sweep" 0 "$dcnas" sweep efficientnet-b0 --accel tpu-v3 --set hbm.bandwidth_gbps=450,900,1800 --out "$tmp/sweep.svg"
contains "sweep rows" "$tmp/out" "hbm.bandwidth_gbps=1800"
contains "sweep svg" "$tmp/sweep.svg" "<svg"
check "sweep csv" 0 "$dcnas" sweep efficientnet-b0 --accel tpu-v3 --set matrix_unit.rows=64,128 --format csv
contains "sweep csv header" "$tmp/out" "variant,latency_ms"
check "sweep needs --set" 2 "$dcnas" sweep efficientnet-b0 --accel tpu-v3
check "compare" 0 "$dcnas" compare --family efficientnet,efficientnet-x-tpu --accel tpu-v3
contains "compare geomean" "$tmp/out" "geomean"
check "compare json" 0 "$dcnas" compare --family efficientnet,efficientnet-x-gpu --accel v100 --format json
json_ok "compare json parses" "$tmp/out"
check "compare: --family with --pairs refused" 2 "$dcnas" compare --family efficientnet --pairs a:b --accel v100
contains "--family/--pairs: says why" "$tmp/err" "exclude each other"
check "abbreviated option refused" 2 "$dcnas" sim --mod efficientnet-b0
contains "abbreviation named" "$tmp/err" "unrecognised option '--mod'"
check "compare at equal accuracy" 0 "$dcnas" compare --family efficientnet,regnety,resnest \
  --accel v100 --batch 8 --at-equal-accuracy
contains "at equal accuracy: the baseline front" "$tmp/out" "baseline front: efficientnet-b0"
contains "at equal accuracy: per family geomean" "$tmp/out" "geomean ("
check "compare at equal accuracy json and chart" 0 "$dcnas" compare --family efficientnet,resnet \
  --accel tpu-v3 --batch 8 --at-equal-accuracy --format json --out "$tmp/acc.svg"
contains "accuracy-latency chart: its axis" "$tmp/acc.svg" "published ImageNet top-1"
json_ok "compare at equal accuracy json parses" "$tmp/out"
check "at equal accuracy: no curve for a family without published top-1" 2 "$dcnas" compare \
  --family efficientnet-x,efficientnet --accel v100 --at-equal-accuracy
contains "at equal accuracy: says why" "$tmp/err" "member(s) with a published top-1"
check "at equal accuracy: bad table" 2 "$dcnas" compare --family efficientnet,resnet --accel v100 \
  --at-equal-accuracy --published /nonexistent.csv
contains "at equal accuracy: names the table" "$tmp/err" "/nonexistent.csv"
check "--published without --at-equal-accuracy" 2 "$dcnas" compare --family efficientnet,resnet \
  --accel v100 --published data/accuracy/published-imagenet.csv
check "compare pairs" 0 "$dcnas" compare --pairs resnet50:efficientnet-x-gpu-b3 --accel v100
check "compare unknown family" 2 "$dcnas" compare --family efficientnet,efficientnet-z --accel v100

# Prediction intervals (calibrate/README.md, "Prediction intervals").
check "sim prints its interval" 0 "$dcnas" sim efficientnet-b0 --accel tpu-v3
contains "sim interval line" "$tmp/out" "ms at 80%"
check "sim interval json" 0 "$dcnas" sim resnet50 --accel v100 --stack pytorch-eager \
  --calibration gpus-pytorch-eager-fp16 --format json
contains "sim interval: regime and situation" "$tmp/out" '"situation": "fitted"'
check "sim --intervals none" 0 "$dcnas" sim efficientnet-b0 --accel tpu-v3 --intervals none
if grep -q "ms at 80%" "$tmp/out"; then echo "FAIL --intervals none prints no interval"; fails=$((fails + 1)); fi
check "sim --intervals missing file" 2 "$dcnas" sim efficientnet-b0 --accel tpu-v3 --intervals /nonexistent.yaml
contains "missing error model named" "$tmp/err" "/nonexistent.yaml"
check "compare speedup intervals csv" 0 "$dcnas" compare --family efficientnet --accel tpu-v3,tpu-v3-hbm2x \
  --format csv --out "$tmp/cmp.svg"
contains "compare csv: speedup ends" "$tmp/out" "speedup_lo80,speedup_hi80,speedup_lo95,speedup_hi95"
contains "compare chart: error bars" "$tmp/cmp.svg" 'class="error-bar"'
check "sweep intervals" 0 "$dcnas" sweep efficientnet-b0 --accel tpu-v3 --set hbm.bandwidth_gbps=900,1800 \
  --format json --out "$tmp/sweep.svg"
contains "sweep json: speedup interval" "$tmp/out" "speedup_interval"
contains "sweep chart: error bars" "$tmp/sweep.svg" 'class="error-bar"'
check "roofline intervals" 0 "$dcnas" roofline --models efficientnet-b0 --accel tpu-v3 --format csv
contains "roofline csv: latency ends" "$tmp/out" "latency_lo80_ms"
check "intervals: coverage tables" 0 "$dcnas" intervals --sources "${DCNAS_SOURCE_ROOT:-.}/data/intervals/sources.yaml" \
  --out "$tmp/em.yaml"
contains "intervals: the coverage table" "$tmp/out" "Latency intervals: coverage held out"
check "sim with the rebuilt model" 0 "$dcnas" sim efficientnet-b0 --accel tpu-v3 --intervals "$tmp/em.yaml"
printf 'sources:\n  - {file: none.csv, kind: gpu, situation: fitted, prediction: predicted_ms, profile: p, device: d}\n' \
  > "$tmp/bad-sources.yaml"
check "intervals: missing residual table" 2 "$dcnas" intervals --sources "$tmp/bad-sources.yaml"
contains "intervals: names the table" "$tmp/err" "none.csv"
check "intervals without --sources" 2 "$dcnas" intervals

smoke_finish
