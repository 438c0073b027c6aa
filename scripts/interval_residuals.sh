#!/usr/bin/env bash
# Writes the held-out residual tables the prediction intervals are calibrated on that the
# profiles' own reports (scripts/calibrate_profiles.sh) do not hold, into
# data/calibrated/reports/intervals/: every selection predicted by the built-in defaults (the
# "defaults" situation), one chip's profile on another chip's rows ("chip-transfer"), and the
# development machine's Zen 5 profile on the 20 models its fit never timed ("fitted").
# Then `dcnas intervals` turns them, with the profiles' leave-one-family-out and
# leave-one-device-out tables, into data/intervals/error-model.yaml and its coverage report.
# Usage: scripts/interval_residuals.sh [BUILD_DIR]
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/interval_residuals.sh [BUILD_DIR]" 1 "$@"
cd "$(dirname "$0")/.."
build="${1:-build}"
dcnas="$build/cli/dcnas"
require_binary "$dcnas"
m=data/measurements
cal=data/calibrated
host=$cal/reports/calibrate-host
out=$cal/reports/intervals
mkdir -p "$out"
timm=(--where "stack_version=PyTorch 2.4.0 (cu124)" layout=NCHW)
defaults="$out/defaults.yaml"
printf 'name: defaults\ndescription: "the documented defaults (no params)"\nparams: {}\n' >"$defaults"

evaluate() {  # NAME PROFILE then dcnas calibrate selection arguments
  local name="$1" profile="$2"
  shift 2
  echo "== $name"
  "$dcnas" calibrate "$@" --evaluate "$profile" --residuals "$out/$name.residuals.csv" \
    | sed -n '/^evaluation/,/^$/p'
}

# Selections, as scripts/calibrate_profiles.sh fits them.
sel_4090=(--accel rtx-4090 --stack pytorch-eager --precision fp16 --measurements $m/timm_rtx4090.csv "${timm[@]}")
sel_3090=(--accel rtx-3090 --stack pytorch-eager --precision fp16 --measurements $m/timm_rtx3090.csv "${timm[@]}")
sel_h200=(--accel h200 --stack pytorch-eager --precision fp16 --measurements $m/own_h200.csv)
sel_v100_16=(--accel v100 --stack pytorch-eager --precision fp16 --regime large_batch --measurements $m/nvidia_dle.csv)
sel_v100_32=(--accel v100 --stack pytorch-eager --precision fp32 --regime large_batch --measurements $m/pycls_v100.csv $m/nvidia_dle.csv)
sel_t4_16=(--accel t4 --stack pytorch-eager --precision fp16 --regime large_batch --measurements $m/nvidia_dle.csv)
sel_a100_16=(--accel a100 --stack pytorch-eager --precision fp16 --regime large_batch --measurements $m/nvidia_dle.csv --set hbm.bandwidth_gbps=2039)
sel_v100_trt32=(--accel v100 --stack tensorrt --precision fp32 --measurements $m/paddleclas_tensorrt.csv)
sel_t4_trt32=(--accel t4 --stack tensorrt --precision fp32 --measurements $m/paddleclas_tensorrt.csv)
sel_t4_trt16=(--accel t4 --stack tensorrt --precision fp16 --measurements $m/paddleclas_tensorrt.csv)
sel_tpu=(--accel tpu-v3 --stack xla-tpu --precision bf16 --measurements $m/tpu_v3.csv)
sel_tpu_train=(--accel tpu-v3 --stack xla-tpu --precision bf16 --regime training --measurements $m/tpu_training.csv)
sel_3090_train=(--accel rtx-3090 --stack pytorch-eager --precision fp16 --regime training --measurements $m/timm_rtx3090_train.csv)
sel_zen4=(--accel epyc-zen4 --set cores=1 --stack libtorch-cpu --precision fp32 --measurements $m/host-cpu.csv)
sel_zen5=(--accel $host/host-zen5.yaml --set cores=1 --stack libtorch-cpu --precision fp32 --measurements $host/probe.csv $host/holdout.csv)

# The built-in defaults on every selection.
for s in 4090 3090 h200 v100_16 v100_32 t4_16 a100_16 v100_trt32 t4_trt32 t4_trt16 tpu tpu_train 3090_train zen4 zen5; do
  ref="sel_$s[@]"
  evaluate "defaults-$s" "$defaults" "${!ref}"
done

# One chip's profile on every other chip of its stack and precision (the profiles' own chips'
# rows are their leave-one-family-out tables).
for p in 4090:rtx-4090 3090:rtx-3090 h200:h200 v100_16:v100; do
  src="${p%%:*}" chip="${p#*:}"
  for s in 4090 3090 h200 v100_16 t4_16 a100_16; do
    [ "$s" = "$src" ] && continue
    ref="sel_$s[@]"
    evaluate "$src-on-$s" "$cal/$chip-pytorch-eager-fp16.yaml" "${!ref}"
  done
done
evaluate v100_32-on-t4_32 $cal/v100-pytorch-eager-fp32.yaml --accel t4 --stack pytorch-eager \
  --precision fp32 --regime large_batch --measurements $m/nvidia_dle.csv
evaluate v100_trt32-on-t4_trt32 $cal/v100-tensorrt-fp32.yaml "${sel_t4_trt32[@]}"
evaluate t4_trt32-on-v100_trt32 $cal/t4-tensorrt-fp32.yaml "${sel_v100_trt32[@]}"
evaluate t4_trt16-on-a100_trt16 $cal/t4-tensorrt-fp16.yaml --accel a100 --stack tensorrt \
  --precision fp16 --measurements $m/nvidia_dle.csv --set hbm.bandwidth_gbps=2039
evaluate tpu_train-on-tpu $cal/tpu-v3-xla-tpu-bf16-training.yaml "${sel_tpu[@]}"
evaluate zen4-on-zen5 $cal/epyc-zen4-libtorch-cpu-fp32.yaml "${sel_zen5[@]}"
evaluate zen5-on-zen4 $host/host-zen5-libtorch-cpu-fp32.yaml "${sel_zen4[@]}"

# The Zen 5 profile on the 20 models its probe never timed.
evaluate zen5-holdout $host/host-zen5-libtorch-cpu-fp32.yaml --accel $host/host-zen5.yaml \
  --set cores=1 --stack libtorch-cpu --precision fp32 --measurements $host/holdout.csv
