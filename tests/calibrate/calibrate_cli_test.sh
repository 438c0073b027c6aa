#!/usr/bin/env bash
# `dcnas calibrate` on the shipped measurements: a fit writes a profile that `dcnas sim` loads;
# bad input exits 2 naming file, line and column; a fit that does not converge exits 1 and
# writes nothing; mixed regimes are refused.
set -u
dcnas="$1"
root="${DCNAS_SOURCE_ROOT:-$(dirname "$0")/../..}"
m="$root/data/measurements"
# shellcheck source=../cli/smoke_lib.sh
source "$(dirname "$0")/../cli/smoke_lib.sh"

timm=(--measurements "$m/timm_rtx4090.csv" --where "stack_version=PyTorch 2.4.0 (cu124)" layout=NCHW)
check "fit" 0 "$dcnas" calibrate --accel rtx-4090 --stack pytorch-eager --precision fp16 "${timm[@]}" \
  --out "$tmp/p.yaml" --chart "$tmp/p.svg" --residuals "$tmp/r.csv"
contains "fit reports held-out error" "$tmp/out" "leave-one-family-out, held-out"
contains "fit reports residuals by family" "$tmp/out" "residuals by family and batch"
if grep -q "leave-one-device-out by device" "$tmp/out"; then
  echo "FAIL a one-chip fit prints a by-device table"; fails=$((fails + 1))
else
  echo "ok   a one-chip fit prints no by-device table"
fi
contains "profile has params" "$tmp/p.yaml" "matrix_efficiency:"
contains "profile has validation metrics" "$tmp/p.yaml" "lofo_median_ape_pct:"
contains "profile has the measurement hash" "$tmp/p.yaml" "measurements_sha256: [0-9a-f]\{64\}"
contains "parity chart is SVG" "$tmp/p.svg" "<svg"
contains "residual CSV header" "$tmp/r.csv" "model,family,batch_size"
check "sim uses the profile" 0 "$dcnas" sim resnet50 --accel rtx-4090 --stack pytorch-eager \
  --calibration "$tmp/p.yaml"
contains "sim names the profile" "$tmp/out" "rtx-4090-pytorch-eager-fp16"
check "evaluate a profile on another chip" 0 "$dcnas" calibrate --accel rtx-3090 \
  --stack pytorch-eager --precision fp16 --measurements "$m/timm_rtx3090.csv" \
  --where "stack_version=PyTorch 2.4.0 (cu124)" layout=NCHW --evaluate "$tmp/p.yaml"
contains "evaluation reports error" "$tmp/out" "evaluated"

check "no convergence" 1 "$dcnas" calibrate --accel rtx-4090 --stack pytorch-eager \
  --precision fp16 "${timm[@]}" --max-evaluations 2 --no-cv --out "$tmp/never.yaml"
contains "no convergence says so" "$tmp/err" "did not converge"
if [ -e "$tmp/never.yaml" ]; then echo "FAIL no convergence wrote a file"; fails=$((fails + 1)); fi
for bad in "--max-evaluations 0" "--regularization -1" "--regularization nan" \
  "--regularization inf" "--k-folds 1" "--k-folds -1" "--k-folds 1000"; do
  # shellcheck disable=SC2086
  check "calibrate $bad refused" 2 "$dcnas" calibrate --accel rtx-4090 --stack pytorch-eager \
    --precision fp16 "${timm[@]}" $bad --out "$tmp/bad.yaml"
  contains "calibrate $bad: names the option" "$tmp/err" "${bad%% *}"
done
if [ -e "$tmp/bad.yaml" ]; then echo "FAIL a refused calibration wrote a file"; fails=$((fails + 1)); fi

check "mixed regimes" 2 "$dcnas" calibrate --accel v100 --stack pytorch-eager --precision fp16 \
  --measurements "$m/nvidia_dle.csv" --no-cv
contains "mixed regimes ask for --regime" "$tmp/err" "--regime"

header="model,device,stack,precision,batch_size,image_size,latency_ms,throughput_img_per_s,regime,source_id,source_ref"
good="resnet50,v100,tensorrt,fp32,1,224,2.19,,engine_latency,test,here"
printf '%s\n%s\n%s\n' "$header" "$good" "resnet50,v100,tensorrt,fp32,4,224,nan,,engine_latency,test,here" >"$tmp/nan.csv"
check "NaN latency" 2 "$dcnas" calibrate --accel v100 --stack tensorrt --precision fp32 \
  --measurements "$tmp/nan.csv"
contains "NaN names file, line and column" "$tmp/err" "nan.csv:3: column 'latency_ms'"
printf '%s\n%s\n' "$header" "resnet50,v100,tensorrt,fp32,4,224,-3,,engine_latency,test,here" >"$tmp/neg.csv"
check "negative latency" 2 "$dcnas" calibrate --accel v100 --stack tensorrt --precision fp32 \
  --measurements "$tmp/neg.csv"
contains "negative latency is named" "$tmp/err" "neg.csv:2: column 'latency_ms': '-3' must be positive"
printf '%s\n%s\n' "model,device,stack,precision,batch_size" "resnet50,v100,tensorrt,fp32,1" >"$tmp/cols.csv"
check "missing columns" 2 "$dcnas" calibrate --accel v100 --stack tensorrt --precision fp32 \
  --measurements "$tmp/cols.csv"
contains "missing columns are listed" "$tmp/err" "cols.csv:1: missing columns image_size"
printf '%s\n%s\n' "$header" "resnet50,v1000,tensorrt,fp32,1,224,2,,engine_latency,test,here" >"$tmp/dev.csv"
check "unknown device" 2 "$dcnas" calibrate --accel v100 --stack tensorrt --precision fp32 \
  --measurements "$tmp/dev.csv"
contains "unknown device is named" "$tmp/err" "dev.csv:2: column 'device': unknown device 'v1000'"
printf '%s\n%s\n' "$header" "resnet50,v100,tensorrt-9,fp32,1,224,2,,engine_latency,test,here" >"$tmp/stack.csv"
check "unknown stack" 2 "$dcnas" calibrate --accel v100 --stack tensorrt --precision fp32 \
  --measurements "$tmp/stack.csv"
contains "unknown stack is named" "$tmp/err" "stack.csv:2: column 'stack': unknown stack 'tensorrt-9'"

# --cpu is recorded in the profile; a CPU profile that names another CPU warns when it simulates.
check "fit records --cpu" 0 "$dcnas" calibrate --accel epyc-zen4 --set cores=1 --stack libtorch-cpu \
  --precision fp32 --measurements "$m/host-cpu.csv" --no-cv --out "$tmp/cpu.yaml" \
  --cpu "GenuineIntel family 0x06 model 0x00: no such cpu"
contains "profile names its cpu" "$tmp/cpu.yaml" "cpu: \"\?GenuineIntel family 0x06 model 0x00: no such cpu"
check "sim with another CPU's profile" 0 "$dcnas" sim resnet50 --accel epyc-zen4 --set cores=1 \
  --calibration "$tmp/cpu.yaml" --resolution 64
contains "other-CPU warning names the profile's CPU" "$tmp/err" \
  "warning: calibration 'epyc-zen4-libtorch-cpu-fp32' was fitted on another CPU (GenuineIntel family 0x06 model 0x00: no such cpu); this machine is "
check "--cpu without --out" 2 "$dcnas" calibrate --accel epyc-zen4 --stack libtorch-cpu \
  --precision fp32 --measurements "$m/host-cpu.csv" --no-cv --cpu "x"

# Pooled chips: one fit over two chips, each row on its own chip file, each chip held out in turn.
pool=(--accel rtx-3090,rtx-4090 --stack pytorch-eager --precision fp16
  --measurements "$m/timm_rtx3090.csv" "$m/timm_rtx4090.csv"
  --where "stack_version=PyTorch 2.4.0 (cu124)" layout=NCHW)
check "pooled fit" 0 "$dcnas" calibrate "${pool[@]}" --out "$tmp/pool.yaml" --residuals "$tmp/pool.csv"
contains "pooled fit names both chips" "$tmp/out" "rows for rtx-3090 + rtx-4090 / pytorch-eager"
contains "pooled fit holds each chip out" "$tmp/out" "leave-one-device-out, held-out   136"
contains "pooled fit tabulates the held-out chips" "$tmp/out" \
  "leave-one-device-out by device (each chip predicted by the fit on the others)"
contains "the 3090 held out: its 68 rows" "$tmp/out" "^rtx-3090 \+68 "
contains "the 4090 held out: its 68 rows" "$tmp/out" "^rtx-4090 \+68 "
contains "pooled residuals name the device" "$tmp/pool.csv" ",source,device,held_out_lodo_ms$"
contains "pooled residuals hold 4090 rows" "$tmp/pool.csv" ",rtx-4090,[0-9.]*$"
contains "pooled profile names both chips" "$tmp/pool.yaml" "device: rtx-3090+rtx-4090"
check "per-chip --where and --set" 0 "$dcnas" calibrate "${pool[@]}" --no-cv \
  --where rtx-4090:source_model=resnet50 --set rtx-3090:hbm.bandwidth_gbps=1800 \
  --evaluate "$tmp/pool.yaml"
contains "per-chip filter and override" "$tmp/out" \
  "72 rows for rtx-3090\[hbm.bandwidth_gbps=1800\] + rtx-4090 /"
check "--set for a chip not pooled" 2 "$dcnas" calibrate "${pool[@]}" --set v100:cores=1
contains "--set names the chip" "$tmp/err" "v100 is not one of --accel rtx-3090,rtx-4090"
check "--where for a chip not pooled" 2 "$dcnas" calibrate "${pool[@]}" --where t4:layout=NCHW
contains "--where names the chip" "$tmp/err" "--where t4:layout=NCHW: t4 is not one of --accel"
check "a chip named twice" 2 "$dcnas" calibrate "${pool[@]}" --accel rtx-3090,rtx-3090
check "a pooled chip without rows" 2 "$dcnas" calibrate --accel rtx-3090,v100 --stack pytorch-eager \
  --precision fp16 --measurements "$m/timm_rtx3090.csv"
contains "the chip without rows is named" "$tmp/err" "no measurement rows for v100 / pytorch-eager / fp16"

# --where on named columns, and what a filter that matches nothing says.
one=(calibrate --accel rtx-3090 --stack pytorch-eager --precision fp16 --no-cv
  --measurements "$m/timm_rtx3090.csv")
check "--where on the model column" 0 "$dcnas" "${one[@]}" --where model=resnet50 layout=NCHW
contains "--where model selects that model" "$tmp/out" "rows for rtx-3090 / pytorch-eager / fp16 / large_batch; [0-9]* usable (1 models)"
check "--where on a batch size" 0 "$dcnas" "${one[@]}" --where model=resnet50 batch_size=1024 \
  image_size=224 layout=NCHW
contains "--where batch_size selects one configuration" "$tmp/out" "^measurements: [1-9] rows "
check "--where value nowhere" 2 "$dcnas" "${one[@]}" --where layout=NHCW
contains "--where lists the column's values" "$tmp/err" "layout=NHCW: the column holds 'NCHW', 'NHWC'"
check "--where filters that match apart" 2 "$dcnas" "${one[@]}" --where model=resnet50 batch_size=256
contains "--where says the filters match apart" "$tmp/err" "each filter matches some rows, but no row matches them all"
check "--where column nowhere" 2 "$dcnas" "${one[@]}" --where lay_out=NCHW
contains "--where names the missing column" "$tmp/err" "lay_out=NCHW: no row has the column"
check "--where on a timing" 2 "$dcnas" "${one[@]}" --where latency_ms=3
contains "--where refuses a timing" "$tmp/err" "latency_ms is a timing"

echo "$fails failed"
[ "$fails" -eq 0 ]
