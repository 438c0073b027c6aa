#!/usr/bin/env bash
# Regenerates the calibrated profiles shipped in data/calibrated/ from data/measurements/, with
# their parity charts, residual tables and validation reports (data/calibrated/reports/), and the
# rtx-4090 -> rtx-3090 transfer experiment. Usage: scripts/calibrate_profiles.sh [BUILD_DIR]
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/calibrate_profiles.sh [BUILD_DIR]" 1 "$@"
cd "$(dirname "$0")/.."
build="${1:-build}"
dcnas="$build/cli/dcnas"
require_binary "$dcnas"
m=data/measurements
out=data/calibrated
rep=$out/reports
mkdir -p "$rep"
timm=(--where "stack_version=PyTorch 2.4.0 (cu124)" layout=NCHW)

calibrate() {  # NAME then dcnas calibrate arguments
  local name="$1"
  shift
  echo "== $name"
  "$dcnas" calibrate "$@" --out "$out/$name.yaml" --chart "$rep/$name.parity.svg" \
    --residuals "$rep/$name.residuals.csv" | tee "$rep/$name.txt"
}

# GPUs, large-batch throughput in eager PyTorch (timm, PyTorch 2.4.0, NCHW, AMP fp16): the
# convnets and the attention-free MLP families (MLP-Mixer, ResMLP: their GEMMs are cuBLAS's, so
# gemm_efficiency is fitted beside the convolutions' matrix_efficiency). The transformer families
# stay out of these fits (scripts/transformer_holdout.sh scores them).
gpu_fit=(--fit matrix_efficiency,gemm_efficiency,vector_efficiency,memory_efficiency,overlap,kernel_overhead_scale)
calibrate rtx-4090-pytorch-eager-fp16 --accel rtx-4090 --stack pytorch-eager --precision fp16 \
  --measurements $m/timm_rtx4090.csv $m/timm_mlp_mixers.csv "${timm[@]}" "${gpu_fit[@]}"
calibrate rtx-3090-pytorch-eager-fp16 --accel rtx-3090 --stack pytorch-eager --precision fp16 \
  --measurements $m/timm_rtx3090.csv $m/timm_mlp_mixers.csv "${timm[@]}" "${gpu_fit[@]}"
# V100: large-batch eager PyTorch fp32 (pycls RegNet/ResNet/EfficientNet + NVIDIA DLE), AMP fp16
# (NVIDIA DLE), and TensorRT fp32 engine latency at batch 1/4/8 (PaddleClas).
calibrate v100-pytorch-eager-fp32 --accel v100 --stack pytorch-eager --precision fp32 \
  --regime large_batch --measurements $m/pycls_v100.csv $m/nvidia_dle.csv
calibrate v100-pytorch-eager-fp16 --accel v100 --stack pytorch-eager --precision fp16 \
  --regime large_batch --measurements $m/nvidia_dle.csv
# TensorRT tables: the efficiency of the unit the convolutions run on (tensor cores for fp16; CUDA
# cores for fp32 on Volta and Turing, which have no fp32 tensor-core path), the memory efficiency
# the per-kernel overhead, and the cost of each per-group launch of a grouped convolution (the
# tensorrt stack runs them one group at a time). Fitting the overlap did not lower the held-out error.
fp16_fit=(--fit matrix_efficiency,memory_efficiency,kernel_overhead_scale,group_launch_scale)
fp32_fit=(--fit vector_efficiency,memory_efficiency,kernel_overhead_scale,group_launch_scale)
calibrate v100-tensorrt-fp32 --accel v100 --stack tensorrt --precision fp32 \
  --measurements $m/paddleclas_tensorrt.csv "${fp32_fit[@]}"
# T4: TensorRT engine latency at batch 1/4/8 (PaddleClas), fp16 and fp32.
calibrate t4-tensorrt-fp16 --accel t4 --stack tensorrt --precision fp16 \
  --measurements $m/paddleclas_tensorrt.csv "${fp16_fit[@]}"
calibrate t4-tensorrt-fp32 --accel t4 --stack tensorrt --precision fp32 \
  --measurements $m/paddleclas_tensorrt.csv "${fp32_fit[@]}"
# A100: only A100 80 GB rows exist for modelled stacks; the a100 file is the 40 GB part, so the
# fit runs with the 80 GB part's HBM bandwidth. Thin data: two parameters each.
calibrate a100-pytorch-eager-fp16 --accel a100 --stack pytorch-eager --precision fp16 \
  --regime large_batch --measurements $m/nvidia_dle.csv \
  --set hbm.bandwidth_gbps=2039 --fit matrix_efficiency,memory_efficiency --no-cv
calibrate a100-tensorrt-fp16 --accel a100 --stack tensorrt --precision fp16 \
  --measurements $m/nvidia_dle.csv --set hbm.bandwidth_gbps=2039 \
  --fit matrix_efficiency,kernel_overhead_scale --no-cv
# H200: the project's own timm points (scripts/measure_timm_gpu.py; PyTorch 2.11, NCHW, AMP fp16).
calibrate h200-pytorch-eager-fp16 --accel h200 --stack pytorch-eager --precision fp16 \
  --measurements $m/own_h200.csv
# Six GPUs in one fit, for a GPU no table covers (by its spec sheet): every eager fp16 chip above
# (timm RTX 3090 / 4090, NVIDIA DLE V100 / A100 80 GB / T4, the project's H200), each row on its
# own chip file, with the per-core DRAM streaming limit fitted beside the memory efficiency
# (sim/README.md, "Memory"). Its leave-one-device-out table is the spec-sheet transfer to each
# chip from the other five (docs/transfer-study.md, "Six chips pooled").
printf 'name: core-stream-start\ndescription: "start (and regularisation target) of the per-core streaming limit"\nparams:\n  core_stream_bytes_per_cycle: 5\n' \
  > "$rep/core-stream-start.yaml"
calibrate gpus-pytorch-eager-fp16 --name gpus-pytorch-eager-fp16 \
  --accel rtx-3090,rtx-4090,v100,a100,h200,t4 --stack pytorch-eager --precision fp16 --regime large_batch \
  --measurements $m/timm_rtx3090.csv $m/timm_rtx4090.csv $m/nvidia_dle.csv $m/own_h200.csv \
  --where "rtx-3090:stack_version=PyTorch 2.4.0 (cu124)" rtx-3090:layout=NCHW \
          "rtx-4090:stack_version=PyTorch 2.4.0 (cu124)" rtx-4090:layout=NCHW \
  --set a100:hbm.bandwidth_gbps=2039 --from "$rep/core-stream-start.yaml" \
  --fit matrix_efficiency,vector_efficiency,memory_efficiency,overlap,kernel_overhead_scale,core_stream_bytes_per_cycle
# TPU v3: one inference measurement (MLPerf v0.5 ResNet-50 Offline). The simulated ResNet-50 is
# half matrix-bound, half HBM-bound there, so the two efficiencies are fitted; one row cannot
# separate them: the regularisation splits the correction between them.
calibrate tpu-v3-xla-tpu-bf16 --accel tpu-v3 --stack xla-tpu --precision bf16 \
  --measurements $m/tpu_v3.csv --fit matrix_efficiency,memory_efficiency --no-cv
# The project's own machine (an AMD EPYC Zen 4 VM): dcnas's LibTorch timings (`dcnas measure`,
# host_cpu regime), taken with one thread, so the fit sees one core of the 2-vCPU chip file.
calibrate epyc-zen4-libtorch-cpu-fp32 --accel epyc-zen4 --set cores=1 --stack libtorch-cpu \
  --precision fp32 --measurements $m/host-cpu.csv \
  --cpu "AuthenticAMD family 0x19 model 0x11: AMD EPYC"

# Training regime (sim/train_step.h): one data-parallel step of the global batch over `chips`
# chips. TPU v3: the NFNet paper's v3-32 step times (ResNet-50, EfficientNet-B0/B3..B7) and
# MLPerf Training ResNet-50 (v3-8 .. v3-1024); RTX 3090: timm's AMP training benchmark.
calibrate tpu-v3-xla-tpu-bf16-training --accel tpu-v3 --stack xla-tpu --precision bf16 \
  --regime training --measurements $m/tpu_training.csv
calibrate rtx-3090-pytorch-eager-fp16-training --accel rtx-3090 --stack pytorch-eager \
  --precision fp16 --regime training --measurements $m/timm_rtx3090_train.csv
# What training teaches about inference: the training-fitted TPU v3 profile predicts the one
# TPU v3 inference row (MLPerf v0.5 ResNet-50 Offline), which it never saw.
echo "== transfer tpu-v3 training -> inference"
"$dcnas" calibrate --accel tpu-v3 --stack xla-tpu --precision bf16 --measurements $m/tpu_v3.csv \
  --evaluate $out/tpu-v3-xla-tpu-bf16-training.yaml | tee "$rep/transfer-tpu-v3-training-to-inference.txt"

# Transfer: the rtx-4090 profile predicts the rtx-3090 rows with only the accelerator swapped.
echo "== transfer rtx-4090 -> rtx-3090"
"$dcnas" calibrate --accel rtx-3090 --stack pytorch-eager --precision fp16 \
  --measurements $m/timm_rtx3090.csv "${timm[@]}" \
  --evaluate $out/rtx-4090-pytorch-eager-fp16.yaml --chart "$rep/transfer-rtx4090-to-rtx3090.parity.svg" \
  | tee "$rep/transfer-rtx4090-to-rtx3090.txt"

# The transformer families, held out of every profile above (calibrate/README.md, "Transformers,
# held out").
echo "== transformers held out"
scripts/transformer_holdout.sh "$build"

# The prediction intervals: calibrated on the held-out residual tables (the profiles' reports
# above and scripts/interval_residuals.sh), with their held-out coverage.
echo "== prediction intervals"
scripts/interval_residuals.sh "$build" > /dev/null
"$dcnas" intervals --sources data/intervals/sources.yaml --out data/intervals/error-model.yaml \
  --report "$rep/intervals/coverage.md" > /dev/null
