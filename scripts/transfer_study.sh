#!/usr/bin/env bash
# Leave-one-device-out transfer study (docs/transfer-study.md): for each
# pair of chips that share a regime and software stack (RTX 3090 / 4090 under timm, V100 / A100
# and T4 / V100 under NVIDIA DLE's eager PyTorch, V100 / A100 under NVIDIA DLE's TensorFlow 1.15,
# T4 / V100 under PaddleClas's TensorRT tables; and each eager fp16 chip to the project's own H200
# timings, a chip no fit or mechanism here was chosen on), chip B's rows are predicted from chip
# B's spec sheet with (a) the documented defaults, (b) the
# calibration fitted on chip A's rows, and for reference (c) chip B's own fit, held out by family.
# Fits are fresh (same selections and fitted fields as scripts/calibrate_profiles.sh) and written
# under data/calibrated/reports/transfer/, with per-row residual CSVs and the table
# transfer_table.tsv (paired by scripts/transfer_study.py).
# The study runs with the shipped stacks (transfer/), and again with each mechanism tested for
# the transfer and not enabled: the eager stack's inter-kernel L2 reuse (transfer/inter-kernel-
# reuse/; sim/README.md, "Inter-kernel L2 reuse"), kernel selection by tile size on top of it
# (transfer/tile-selection/), the per-SM streaming limit fitted in place of the memory efficiency
# (transfer/per-sm-stream/, shipped stacks; with tile selection transfer/per-sm-stream-tile-
# selection/; with the overlap held at the six-chip pool's transfer/per-sm-stream-pool-overlap/;
# with the overlap and the per-core limit held at the pool without the target chip's
# transfer/per-sm-stream-pool-held/), kernel selection for grouped convolutions alone (transfer/grouped-tiles/, with
# its RTX sensitivity to the smallest tile and the L2 bandwidths in grouped-tiles/sensitivity/,
# and with the per-SM streaming limit transfer/per-sm-stream-grouped-tiles/), layout transposes
# around the NCHW eager stack's tensor-core convolutions (transfer/nchw-transposes/, and with the
# per-SM streaming limit transfer/per-sm-stream-transposes/; with the layout check of
# layout_check.tsv), and asynchronous
# launches on the eager and the tensorrt stack
# (transfer/async-launch/; sim/README.md, "Asynchronous launches"); every single-chip fit of the
# shipped stacks with a stronger prior toward the defaults (transfer/prior/w-W/, weights 0.01-1,
# side by side in transfer/prior/prior_sweep.tsv). Last, the Ampere data-center
# chips under TensorRT (A100 80 GB, A30, A10; transfer/ampere-trt/, and with fused intermediates
# in registers transfer/ampere-trt-registers/), fitted on more fields than the shipped
# a100-tensorrt-fp16 profile (memory efficiency too). The pooled fits (transfer/pooled/) hold
# each chip out in turn: four eager fp16 chips (the H200 predicted by all four), then six.
# Usage: scripts/transfer_study.sh [BUILD_DIR]
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/transfer_study.sh [BUILD_DIR]" 1 "$@"
cd "$(dirname "$0")/.."
build="${1:-build}"
dcnas="$build/cli/dcnas"
require_binary "$dcnas"
m=data/measurements
timm=(--where "stack_version=PyTorch 2.4.0 (cu124)" layout=NCHW)
prior=()  # extra arguments of every single-chip fit (the prior variant: --regularization W)
declare -A chip_set=()  # DEVICE -> one --set KEY=VALUE added to its rows (sensitivity runs)
trt=tensorrt
tf=tensorflow  # the TensorFlow pair's stack (a variant may set a file)
# The chips (fit selections below) and the directions studied; the Ampere TensorRT study at the
# end sets its own.
devices=(rtx-3090 rtx-4090 v100-eager-fp16 a100-eager-fp16 t4-trt-fp32 v100-trt-fp32
         t4-eager-fp16 t4-eager-fp32 v100-eager-fp32 h200-eager-fp16)
pairs=("rtx-3090 rtx-4090" "rtx-4090 rtx-3090" "v100-eager-fp16 a100-eager-fp16"
       "t4-trt-fp32 v100-trt-fp32" "v100-trt-fp32 t4-trt-fp32"
       "t4-eager-fp16 v100-eager-fp16" "v100-eager-fp16 t4-eager-fp16"
       "t4-eager-fp32 v100-eager-fp32" "v100-eager-fp32 t4-eager-fp32"
       "rtx-3090 h200-eager-fp16" "rtx-4090 h200-eager-fp16"
       "v100-eager-fp16 h200-eager-fp16" "a100-eager-fp16 h200-eager-fp16")
# The TensorFlow pair runs in the main study only (the variants below switch mechanisms of the
# eager and tensorrt stacks, not of the tensorflow one).
tf_devices=(v100-tf-fp16 a100-tf-fp16)
tf_pairs=("v100-tf-fp16 a100-tf-fp16" "a100-tf-fp16 v100-tf-fp16")

# The fields a per-SM streaming fit frees where the device's selection names none: the tool's
# default fields with the per-core streaming limit in place of the memory efficiency.
per_sm_fields=matrix_efficiency,vector_efficiency,core_stream_bytes_per_cycle,overlap,kernel_overhead_scale

# The selection of each device's rows, and the fields its fit frees (as calibrate_profiles.sh).
select_rows() {  # DEVICE -> dcnas calibrate selection arguments in the array `sel`, fit in `fit`
  fit=()
  case "$1" in
    rtx-3090) sel=(--accel rtx-3090 --stack "$eager" --precision fp16
                   --measurements $m/timm_rtx3090.csv "${timm[@]}") ;;
    rtx-4090) sel=(--accel rtx-4090 --stack "$eager" --precision fp16
                   --measurements $m/timm_rtx4090.csv "${timm[@]}") ;;
    # The project's own H200 rows (scripts/measure_timm_gpu.py): timm's points of the RTX 4090
    # table, PyTorch 2.11, NCHW AMP; a chip no published table here covers and no shipped profile
    # was fitted on (the only target that is not also a source).
    h200-eager-fp16) sel=(--accel h200 --stack "$eager" --precision fp16
                          --measurements $m/own_h200.csv) ;;
    v100-eager-fp16) sel=(--accel v100 --stack "$eager" --precision fp16 --regime large_batch
                          --measurements $m/nvidia_dle.csv) ;;
    # Only A100 80 GB rows exist: the 40 GB spec with the 80 GB part's bandwidth (a spec-sheet value).
    a100-eager-fp16) sel=(--accel a100 --stack "$eager" --precision fp16 --regime large_batch
                          --measurements $m/nvidia_dle.csv --set hbm.bandwidth_gbps=2039)
                     fit=(--fit matrix_efficiency,memory_efficiency --no-cv) ;;  # 2 models: no CV
    # NVIDIA DLE eager PyTorch at batch 64-256 on the T4 (3 models: no cross-validation) and the
    # V100 (5 models; fp32 from DLE alone, the T4's source): the same benchmark and containers.
    t4-eager-fp16) sel=(--accel t4 --stack "$eager" --precision fp16 --regime large_batch
                        --measurements $m/nvidia_dle.csv)
                   fit=(--fit matrix_efficiency,memory_efficiency --no-cv) ;;
    t4-eager-fp32) sel=(--accel t4 --stack "$eager" --precision fp32 --regime large_batch
                        --measurements $m/nvidia_dle.csv)
                   fit=(--fit vector_efficiency,memory_efficiency --no-cv) ;;
    v100-eager-fp32) sel=(--accel v100 --stack "$eager" --precision fp32 --regime large_batch
                          --measurements $m/nvidia_dle.csv) ;;
    # NVIDIA DLE TensorFlow 1.15 (NGC 20.06, AMP) on the DGX-1 V100 16 GB and the A100 40 GB (its
    # own chip file, no override): ResNet-50, ResNeXt-101 and SE-ResNeXt-101 at batch 64-256; 3
    # models, no cross-validation. The T4's rows of these tables are left out: its grouped
    # convolutions run 2x slower than its ResNet-50 allows (cross_stack.tsv), which no fit of the
    # T4 alone reproduces (in-sample median APE 20% in fp16, 28% in fp32).
    v100-tf-fp16|a100-tf-fp16)
      sel=(--accel "${1%%-tf-*}" --stack "$tf" --precision fp16 --regime large_batch
           --measurements $m/nvidia_dle_tensorflow.csv --where "stack_version=TensorFlow 1.15 NGC 20.06")
      [ "$1" = v100-tf-fp16 ] && sel+=(--where source_device=V100-SXM2-16GB)  # not the DGX-2 part
      fit=(--fit matrix_efficiency,memory_efficiency --no-cv) ;;
    t4-trt-fp32) sel=(--accel t4 --stack "$trt" --precision fp32
                      --measurements $m/paddleclas_tensorrt.csv)
                 fit=(--fit vector_efficiency,memory_efficiency,kernel_overhead_scale,group_launch_scale) ;;
    v100-trt-fp32) sel=(--accel v100 --stack "$trt" --precision fp32
                        --measurements $m/paddleclas_tensorrt.csv)
                   fit=(--fit vector_efficiency,memory_efficiency,kernel_overhead_scale,group_launch_scale) ;;
    # NVIDIA DLE's Paddle-TRT ResNet-50 tables, batch 1-256: one model, so no cross-validation.
    a100-trt-*|a30-trt-*|a10-trt-*)
      chip="${1%%-trt-*}"
      sel=(--accel "$chip" --stack "$trt" --precision "${1##*-trt-}" --regime engine_latency
           --measurements $m/nvidia_dle.csv)
      [ "$chip" = a100 ] && sel+=(--set hbm.bandwidth_gbps=2039)
      fit=(--fit matrix_efficiency,memory_efficiency,kernel_overhead_scale --no-cv) ;;
    *) echo "unknown device $1" >&2; exit 2 ;;
  esac
  # A chip-file override of a sensitivity run (below; none otherwise).
  if [ -n "${chip_set[$1]:-}" ]; then sel+=(--set "${chip_set[$1]}"); fi
  # The per-SM streaming variant (per_sm_start set below): the DRAM's own efficiency fixed at the
  # start profile's value, the per-core streaming limit fitted in its place.
  # In the pool-held variant (held_dir set) the memory efficiency stays fitted.
  if [ -n "${per_sm_start:-}" ]; then
    if [ ${#fit[@]} -eq 0 ]; then
      fit=(--fit "$per_sm_fields")
    elif [ -z "${held_dir:-}" ]; then
      fit=("${fit[@]/memory_efficiency/core_stream_bytes_per_cycle}")
    fi
    fit+=(--from "$per_sm_start")
  fi
}

# The chip file a device's rows run on (the pool-held variant's key).
chip_of() { case "$1" in rtx-*) echo "$1" ;; *) echo "${1%%-*}" ;; esac; }

study() {  # OUT_DIR EAGER_STACK [--measured] (EAGER_STACK: name or YAML path of the eager stack;
          # the tensorrt stack is $trt, the shipped one unless a variant sets it)
  out="$1"
  eager="$2"
  measured="${3:-}"
  mkdir -p "$out"
  printf 'name: defaults\ndescription: "the documented defaults (no params)"\nparams: {}\n' \
    > "$out/defaults.yaml"
  for dev in "${devices[@]}"; do
    # The pool-held variant: each chip's own fit with the stack's values from the other chips.
    if [ -n "${held_dir:-}" ]; then per_sm_start="$held_dir/start-without-$(chip_of "$dev").yaml"; fi
    select_rows "$dev"
    echo "== $dev: own fit (with cross-validation) and defaults"
    "$dcnas" calibrate "${sel[@]}" "${fit[@]}" "${prior[@]}" --name "$dev-transfer-study" --out "$out/$dev.yaml" \
      --residuals "$out/$dev.fit.residuals.csv" > "$out/$dev.fit.txt"
    # The defaults do not depend on the prior: the prior variant's tables leave them to the
    # shipped study's (prior_sweep.tsv takes them from there).
    if [ ${#prior[@]} -eq 0 ]; then
      "$dcnas" calibrate "${sel[@]}" --evaluate "$out/defaults.yaml" \
        --residuals "$out/$dev.defaults.residuals.csv" > "$out/$dev.defaults.txt"
    fi
  done

  : > "$out/pairs.txt"
  for pair in "${pairs[@]}"; do
    read -r a b <<< "$pair"
    echo "$a $b" >> "$out/pairs.txt"
    # The pool-held variant: A fitted again with the stack's values from the chips other than
    # B (A-for-B.yaml; transfer_study.py takes A's side of the speedups from this fit).
    if [ -n "${held_dir:-}" ]; then per_sm_start="$held_dir/start-without-$(chip_of "$b").yaml"; fi
    select_rows "$a"
    local sel_a=("${sel[@]}") src="$out/$a.yaml"
    if [ -n "${held_dir:-}" ]; then
      src="$out/$a-for-$b.yaml"
      "$dcnas" calibrate "${sel[@]}" "${fit[@]}" "${prior[@]}" --name "$a-for-$b-transfer-study" --out "$src" \
        --residuals "$out/$a-for-$b.fit.residuals.csv" > "$out/$a-for-$b.fit.txt"
    fi
    select_rows "$b"
    echo "== transfer $a -> $b"
    "$dcnas" calibrate "${sel[@]}" --evaluate "$src" \
      --residuals "$out/$a-on-$b.residuals.csv" > "$out/$a-on-$b.txt"
    # The same with A's per-kernel overhead moved to B's host, where both chips' tables give a
    # batch-1 framework latency of a shared model (the host's floor; exit status 3: none).
    local rc=0
    python3 scripts/transfer_study.py --host-floor "$src" "$out/$a-host-floor-for-$b.yaml" \
      -- "${sel_a[@]}" -- "${sel[@]}" > "$out/$a-host-floor-for-$b.txt" || rc=$?
    if [ "$rc" -eq 0 ]; then
      "$dcnas" calibrate "${sel[@]}" --evaluate "$out/$a-host-floor-for-$b.yaml" \
        --residuals "$out/$a-on-$b.host-floor.residuals.csv" > "$out/$a-on-$b.host-floor.txt"
    elif [ "$rc" -eq 3 ]; then
      rm -f "$out/$a-host-floor-for-$b.txt"
    else
      cat "$out/$a-host-floor-for-$b.txt" >&2
      exit "$rc"
    fi
  done
  python3 scripts/transfer_study.py "$out" $measured
}

# A variant stack: data/stacks/BASE.yaml with the switches KEY=VALUE appended (the same name, so it
# selects the same measurement rows).
stack_with() {  # BASE OUT KEY=VALUE...
  local base="$1" out="$2"
  shift 2
  { echo "# data/stacks/$base.yaml with $* (scripts/transfer_study.sh)"
    cat "data/stacks/$base.yaml"
    for kv in "$@"; do echo "${kv%%=*}: ${kv#*=}"; done; } > "$out"
}

# Pooled fits: the four eager fp16 chips in one calibration, each row simulated on its own chip
# file, and the tool's leave-one-device-out cross-validation (each chip predicted by the fit on
# the other three); again with the per-core DRAM streaming limit fitted as well
# (core_stream_bytes_per_cycle, sim/README.md). transfer_study.py tabulates them by device.
pooled=data/calibrated/reports/transfer/pooled
mkdir -p "$pooled"
# The pooled selection of the eager fp16 chips CHIP... (each row on its own chip file; the
# selections of calibrate_profiles.sh) in the array `pool`.
pool_of() {  # CHIP...
  local c files=() dle=() h200=() where=() sets=()
  for c in "$@"; do
    case "$c" in
      rtx-*) files+=("$m/timm_${c/-/}.csv")
             where+=(--where "$c:stack_version=PyTorch 2.4.0 (cu124)" "$c:layout=NCHW") ;;
      h200) h200=("$m/own_h200.csv") ;;
      *) dle=("$m/nvidia_dle.csv") ;;  # v100, a100, t4: NVIDIA DLE
    esac
    if [ "$c" = a100 ]; then sets=(--set a100:hbm.bandwidth_gbps=2039); fi
  done
  pool=(--accel "$(IFS=,; echo "$*")" --stack pytorch-eager --precision fp16 --regime large_batch
        "${where[@]}" "${sets[@]}" --measurements "${files[@]}" "${dle[@]}" "${h200[@]}")
}
# The per-core fit every pool with the limit runs.
core_stream_fit=(--from "$pooled/core-stream-start.yaml"
  --fit matrix_efficiency,vector_efficiency,memory_efficiency,overlap,kernel_overhead_scale,core_stream_bytes_per_cycle)
printf 'name: core-stream-start\ndescription: "start (and regularisation target) of the pooled fit with the per-core streaming limit"\nparams:\n  core_stream_bytes_per_cycle: 5\n' \
  > "$pooled/core-stream-start.yaml"
pool_of rtx-3090 rtx-4090 v100 a100
echo "== pooled eager fp16 fit"
"$dcnas" calibrate "${pool[@]}" --name eager-fp16-pooled --out "$pooled/pooled.yaml" \
  --residuals "$pooled/pooled.residuals.csv" > "$pooled/pooled.txt"
echo "== pooled eager fp16 fit with the per-core streaming limit"
"$dcnas" calibrate "${pool[@]}" "${core_stream_fit[@]}" \
  --name eager-fp16-pooled-core-stream --out "$pooled/pooled-core-stream.yaml" \
  --residuals "$pooled/pooled-core-stream.residuals.csv" > "$pooled/pooled-core-stream.txt"
# The project's own H200, in neither pool: each pooled fit (all four chips) predicts its rows by
# its spec sheet (transfer_study.py tabulates them with the speedups from each pooled chip).
for stem in pooled pooled-core-stream; do
  echo "== $stem on h200"
  "$dcnas" calibrate --accel h200 --stack pytorch-eager --precision fp16 \
    --measurements $m/own_h200.csv --evaluate "$pooled/$stem.yaml" \
    --residuals "$pooled/$stem.h200.residuals.csv" > "$pooled/$stem.h200.txt"
done

# Six chips pooled: the four above, the H200 and the T4 (NVIDIA DLE eager fp16), with and without
# the per-core streaming limit; each chip is held out in turn, so each is predicted by its spec
# sheet from the fit on the other five (the second fit is the shipped gpus-pytorch-eager-fp16,
# scripts/calibrate_profiles.sh).
pool_chips=(rtx-3090 rtx-4090 v100 a100 h200 t4)
pool_of "${pool_chips[@]}"
echo "== six chips pooled"
"$dcnas" calibrate "${pool[@]}" --name eager-fp16-six-chips --out "$pooled/six-chips.yaml" \
  --residuals "$pooled/six-chips.residuals.csv" > "$pooled/six-chips.txt"
echo "== six chips pooled with the per-core streaming limit"
"$dcnas" calibrate "${pool[@]}" "${core_stream_fit[@]}" \
  --name eager-fp16-six-chips-core-stream --out "$pooled/six-chips-core-stream.yaml" \
  --residuals "$pooled/six-chips-core-stream.residuals.csv" > "$pooled/six-chips-core-stream.txt"

# The 3090 training profile's fit on an eager stack variant (a regression check of a mechanism):
# OUT.yaml and its report OUT.txt; ARGS (optional) go to the fit (fields, start profile).
training_fit() {  # STACK OUT [ARGS...]
  "$dcnas" calibrate --accel rtx-3090 --stack "$1" --precision fp16 --regime training \
    --measurements $m/timm_rtx3090_train.csv "${@:3}" --out "$2.yaml" > "$2.txt"
}

eager_devices=("${devices[@]}")
eager_pairs=("${pairs[@]}")
# study with the TensorFlow pair (its stack $tf) added to the eager chips, which stay the list.
study_with_tf() {  # OUT_DIR EAGER_STACK [--measured]
  devices+=("${tf_devices[@]}")
  pairs+=("${tf_pairs[@]}")
  study "$@"
  devices=("${eager_devices[@]}")
  pairs=("${eager_pairs[@]}")
}
study_with_tf data/calibrated/reports/transfer pytorch-eager --measured
# The simulator's speedups for the configurations of the cross-stack table (transfer_study.py,
# cross_stack.tsv): chip A's eager fit on both chips' spec sheets (the A100 as the 40 GB and the
# 80 GB part).
cross=data/calibrated/reports/transfer/cross_stack_predicted.csv
mkdir -p "$(dirname "$cross")"
{ echo "pair,model,precision,batch,image,profile,latency_a_ms,latency_b_ms,latency_b_80gb_ms"
  for spec in "v100 a100 fp16 v100-eager-fp16" "t4 v100 fp16 t4-eager-fp16" \
              "t4 v100 fp32 t4-eager-fp32"; do
    read -r a b p prof <<< "$spec"
    for mb in resnet50:224 resnext101-32x4d:224 seresnext101-32x4d:224 efficientnet-b0:224 \
              efficientnet-b4:380 efficientnetv2-s:384; do
      for batch in 64 128 256; do
        run() { "$dcnas" sim "${mb%%:*}" --accel "$1" --stack pytorch-eager --precision "$p" \
                  --batch "$batch" --resolution "${mb##*:}" \
                  --calibration "data/calibrated/reports/transfer/$prof.yaml" "${@:2}" \
                  --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["latency_ms"])'; }
        la=$(run "$a"); lb=$(run "$b")
        lb80=""; [ "$b" = a100 ] && lb80=$(run a100 --set hbm.bandwidth_gbps=2039)
        echo "$a -> $b,${mb%%:*},$p,$batch,${mb##*:},$prof,$la,$lb,$lb80"
      done
    done
  done; } > "$cross.tmp"
mv "$cross.tmp" "$cross"
python3 scripts/transfer_study.py data/calibrated/reports/transfer --cross-stack
# The prior's weight (transfer/prior/w-W/): every single-chip fit on the shipped stacks, with the
# TensorFlow pair, regularised toward the documented defaults with weight W instead of the tool's
# 1e-3. W moves a fit from its own optimum (W -> 0) to the defaults (W -> infinity), which transfer
# better than the fits on the RTX pair and worse on V100 -> A100.
for w in 0.01 0.03 0.1 0.3 1; do
  prior=(--regularization "$w")
  study_with_tf "data/calibrated/reports/transfer/prior/w-$w" pytorch-eager
done
prior=()
python3 scripts/transfer_study.py data/calibrated/reports/transfer --prior-sweep
variant=data/calibrated/reports/transfer/inter-kernel-reuse
mkdir -p "$variant"
stack_with pytorch-eager "$variant/pytorch-eager-inter-kernel-reuse.yaml" inter_kernel_reuse=true
study "$variant" "$variant/pytorch-eager-inter-kernel-reuse.yaml"
# Second variant: cuDNN-like kernel selection by tile size, each tile's K step bounded by the
# chip's L2 bandwidth per SM (gemm_min_tile, as the tensorrt stack), with the L2 reuse above.
variant=data/calibrated/reports/transfer/tile-selection
mkdir -p "$variant"
stack_with pytorch-eager "$variant/pytorch-eager-tile-selection.yaml" gemm_min_tile=32 \
  inter_kernel_reuse=true
study "$variant" "$variant/pytorch-eager-tile-selection.yaml"
# The training profile's fit under the same variant (a regression check of the mechanism).
training_fit "$variant/pytorch-eager-tile-selection.yaml" "$variant/rtx-3090-training"
# The per-SM streaming variant (on the shipped stacks): the per-SM streaming limit of the pooled fit
# taken into single-chip fits. Every chip's memory efficiency is held at 0.9, the fraction of
# its spec bandwidth a streaming kernel reaches on the DRAM side (an assumption), and the
# per-core limit core_stream_bytes_per_cycle is fitted instead of it, so what transfers is the
# bytes each SM streams per cycle. With the TensorFlow pair.
variant=data/calibrated/reports/transfer/per-sm-stream
mkdir -p "$variant"
printf 'name: per-sm-stream-start\ndescription: "start (and regularisation target) of the per-SM streaming fits: memory efficiency held at 0.9"\nparams:\n  memory_efficiency: 0.9\n  core_stream_bytes_per_cycle: 6\n' \
  > "$variant/start.yaml"
per_sm_start="$variant/start.yaml"
study_with_tf "$variant" pytorch-eager
# The same fits on the tile-selection eager stack: both mechanisms at once (the start profile
# written above); the TensorFlow pair with the same two switches on its stack.
variant=data/calibrated/reports/transfer/per-sm-stream-tile-selection
mkdir -p "$variant"
cp "$per_sm_start" "$variant/start.yaml"
per_sm_start="$variant/start.yaml"
stack_with tensorflow "$variant/tensorflow-tile-selection.yaml" gemm_min_tile=32 \
  inter_kernel_reuse=true
tf="$variant/tensorflow-tile-selection.yaml"
study_with_tf "$variant" data/calibrated/reports/transfer/tile-selection/pytorch-eager-tile-selection.yaml
tf=tensorflow
per_sm_start=
# The per-SM streaming fits with the overlap held as well, at the six-chip pool's value (above):
# one chip cannot tell the overlap from its matrix efficiency (the RTX 4090's fit trades one for
# the other), nor, where its DRAM binds, the per-core limit from the DRAM's efficiency.
variant=data/calibrated/reports/transfer/per-sm-stream-pool-overlap
mkdir -p "$variant"
pool_overlap=$(sed -n 's/^  overlap: \([0-9.e-]*\).*/\1/p' "$pooled/six-chips-core-stream.yaml")
printf 'name: per-sm-stream-pool-overlap-start\ndescription: "start of the per-SM streaming fits, the overlap held at the six-chip pool value"\nparams:\n  memory_efficiency: 0.9\n  core_stream_bytes_per_cycle: 6\n  overlap: %s\n' \
  "$pool_overlap" > "$variant/start.yaml"
per_sm_start="$variant/start.yaml"
saved_fields=$per_sm_fields
per_sm_fields=${per_sm_fields/overlap,/}
study_with_tf "$variant" pytorch-eager
per_sm_fields=$saved_fields
per_sm_start=
# Both parameters held (transfer/per-sm-stream-pool-held/): the overlap and the per-core limit,
# each at the value of the six-chip per-core fit on the chips other than the target, so that no
# transfer A -> B uses anything measured on B. A is fitted for each target (A-for-B.yaml) on its
# matrix, vector and memory efficiencies and per-kernel overhead, started at that pool's values.
variant=data/calibrated/reports/transfer/per-sm-stream-pool-held
mkdir -p "$variant"
for x in "${pool_chips[@]}"; do
  others=()
  for c in "${pool_chips[@]}"; do [ "$c" = "$x" ] || others+=("$c"); done
  pool_of "${others[@]}"
  echo "== six-chip per-core fit without $x"
  "$dcnas" calibrate "${pool[@]}" "${core_stream_fit[@]}" --no-cv --name "six-chips-without-$x" \
    --out "$variant/six-chips-without-$x.yaml" > "$variant/six-chips-without-$x.txt"
  { printf 'name: start-without-%s\ndescription: "the per-SM streaming fits held at the six-chip per-core fit without %s"\nparams:\n' "$x" "$x"
    for key in memory_efficiency overlap core_stream_bytes_per_cycle; do
      sed -n "s/^  $key: \([0-9.e+-]*\).*/  $key: \1/p" "$variant/six-chips-without-$x.yaml"
    done; } > "$variant/start-without-$x.yaml"
done
saved_fields=$per_sm_fields
per_sm_fields=matrix_efficiency,vector_efficiency,memory_efficiency,kernel_overhead_scale
held_dir=$variant
study_with_tf "$variant" pytorch-eager
held_dir=
per_sm_fields=$saved_fields
per_sm_start=
# Kernel selection for grouped convolutions alone (grouped_conv_min_tile: 32, the tensorrt
# stack's smallest tile), on the eager and the TensorFlow stack: a group's GEMM is tiled with
# narrow tiles instead of padding each group to the 128-wide tile. With the shipped memory model
# (transfer/grouped-tiles/, and the training profile's fit as a regression check), and with the
# per-SM streaming limit (transfer/per-sm-stream-grouped-tiles/).
variant=data/calibrated/reports/transfer/grouped-tiles
mkdir -p "$variant"
stack_with pytorch-eager "$variant/pytorch-eager-grouped-tiles.yaml" grouped_conv_min_tile=32
stack_with tensorflow "$variant/tensorflow-grouped-tiles.yaml" grouped_conv_min_tile=32
tf="$variant/tensorflow-grouped-tiles.yaml"
study_with_tf "$variant" "$variant/pytorch-eager-grouped-tiles.yaml"
# The training profile's fit as a regression check: the narrow tiles on the forward kernels alone
# (the gradients of grouped convolutions keep the padded tile), and on the gradients too
# (grouped_conv_backward_min_tile: 32).
training_fit "$variant/pytorch-eager-grouped-tiles.yaml" "$variant/rtx-3090-training"
stack_with pytorch-eager "$variant/pytorch-eager-grouped-tiles-backward.yaml" \
  grouped_conv_min_tile=32 grouped_conv_backward_min_tile=32
training_fit "$variant/pytorch-eager-grouped-tiles-backward.yaml" \
  "$variant/rtx-3090-training-backward"
grouped_eager="$variant/pytorch-eager-grouped-tiles.yaml"
# Sensitivity of the RTX pair under narrow grouped tiles (grouped-tiles/sensitivity/): the
# smallest tile edge, and the two chips' L2 bandwidths (assumptions in their chip files; 36000 /
# 22500 is nine times both, as if the implicit GEMM's 3x3 taps were served from the SM's L1).
sens="$variant/sensitivity"
devices=(rtx-3090 rtx-4090)
pairs=("rtx-3090 rtx-4090" "rtx-4090 rtx-3090")
for edge in 8 16 64; do
  mkdir -p "$sens/min-tile-$edge"
  stack_with pytorch-eager "$sens/min-tile-$edge/pytorch-eager-grouped-tiles-$edge.yaml" \
    grouped_conv_min_tile=$edge
  study "$sens/min-tile-$edge" "$sens/min-tile-$edge/pytorch-eager-grouped-tiles-$edge.yaml"
done
for l2 in "5500 2500" "4000 2000" "5500 2000" "36000 22500"; do
  read -r l2_4090 l2_3090 <<< "$l2"
  chip_set=([rtx-4090]="on_chip.0.bandwidth_gbps=$l2_4090"
            [rtx-3090]="on_chip.0.bandwidth_gbps=$l2_3090")
  study "$sens/l2-$l2_4090-$l2_3090" "$grouped_eager"
done
chip_set=()
devices=("${eager_devices[@]}")
pairs=("${eager_pairs[@]}")
variant=data/calibrated/reports/transfer/per-sm-stream-grouped-tiles
mkdir -p "$variant"
cp data/calibrated/reports/transfer/per-sm-stream/start.yaml "$variant/start.yaml"
per_sm_start="$variant/start.yaml"
study_with_tf "$variant" "$grouped_eager"
tf=tensorflow
per_sm_start=
# Layout transposes around the eager stack's tensor-core convolutions (nchw_conv_transposes:
# spatial, every convolution but the 1x1 stride-1 ones; sim/README.md, "Layout transposes"):
# transfer/nchw-transposes/, with the training profile's fit as a regression check. The TensorFlow
# pair runs NHWC: nothing to transpose. Then the layout check, here and for the shipped stack:
# each RTX chip's NCHW fit predicts the same chip's NHWC rows (channels-last, no transposes) with
# the shipped stack (layout_check.tsv: the NCHW / NHWC ratio by family, measured and predicted).
variant=data/calibrated/reports/transfer/nchw-transposes
mkdir -p "$variant"
stack_with pytorch-eager "$variant/pytorch-eager-nchw-transposes.yaml" nchw_conv_transposes=spatial
study "$variant" "$variant/pytorch-eager-nchw-transposes.yaml"
training_fit "$variant/pytorch-eager-nchw-transposes.yaml" "$variant/rtx-3090-training"
transposes_eager="$variant/pytorch-eager-nchw-transposes.yaml"
# The same transposes with the per-SM streaming limit (transfer/per-sm-stream-transposes/): the
# per-SM streaming variant's fits on the transposes' eager stack, with the TensorFlow pair (NHWC,
# nothing to transpose: its per-SM streaming fits), and the training profile's fit with the
# per-SM streaming limit fitted in place of the memory efficiency.
variant=data/calibrated/reports/transfer/per-sm-stream-transposes
mkdir -p "$variant"
cp data/calibrated/reports/transfer/per-sm-stream/start.yaml "$variant/start.yaml"
per_sm_start="$variant/start.yaml"
study_with_tf "$variant" "$transposes_eager"
per_sm_start=
training_fit "$transposes_eager" "$variant/rtx-3090-training" --from "$variant/start.yaml" \
  --fit "$per_sm_fields"
eager=pytorch-eager
for dir in data/calibrated/reports/transfer data/calibrated/reports/transfer/nchw-transposes \
    "$variant"; do
  for dev in rtx-3090 rtx-4090; do
    select_rows "$dev"
    "$dcnas" calibrate "${sel[@]/layout=NCHW/layout=NHWC}" --evaluate "$dir/$dev.yaml" \
      --residuals "$dir/$dev.nhwc.residuals.csv" > "$dir/$dev.nhwc.txt"
  done
  python3 scripts/transfer_study.py "$dir" --layout
done
# Third variant: asynchronous launches (async_launch) on both stacks, each kernel's overhead the
# host's issue interval, hidden under longer kernels.
variant=data/calibrated/reports/transfer/async-launch
mkdir -p "$variant"
for base in pytorch-eager tensorrt; do
  stack_with "$base" "$variant/$base-async-launch.yaml" async_launch=true
done
trt="$variant/tensorrt-async-launch.yaml"
study "$variant" "$variant/pytorch-eager-async-launch.yaml"
# The V100 DLE fit started at the host floor those rows show (kernel_overhead_scale 7, about 70 us
# per kernel), and that fit on the A100's rows (whose host floor is lower).
eager="$variant/pytorch-eager-async-launch.yaml"
printf 'name: host-floor-start\ndescription: "start of the V100 DLE fit at its host floor"\nparams:\n  kernel_overhead_scale: 7\n' \
  > "$variant/host-floor-start.yaml"
select_rows v100-eager-fp16
"$dcnas" calibrate "${sel[@]}" --from "$variant/host-floor-start.yaml" --name v100-host-floor \
  --out "$variant/v100-eager-fp16-host-floor.yaml" \
  --residuals "$variant/v100-eager-fp16-host-floor.fit.residuals.csv" \
  > "$variant/v100-eager-fp16-host-floor.fit.txt"
select_rows a100-eager-fp16
"$dcnas" calibrate "${sel[@]}" --evaluate "$variant/v100-eager-fp16-host-floor.yaml" \
  --residuals "$variant/v100-eager-fp16-host-floor-on-a100-eager-fp16.residuals.csv" \
  > "$variant/v100-eager-fp16-host-floor-on-a100-eager-fp16.txt"
# Ampere data-center chips under TensorRT (NVIDIA DLE Paddle-TRT ResNet-50, batch 1-256): A100
# 80 GB, A30 and A10 in fp16, tf32 and int8, each chip predicted from each other's fit; with the
# shipped tensorrt stack, and with fused intermediates kept in registers
# (intermediates_in_registers; sim/README.md, "Fused intermediates").
devices=()
pairs=()
for p in fp16 tf32 int8; do
  for a in a100 a30 a10; do
    devices+=("$a-trt-$p")
    for b in a100 a30 a10; do
      [ "$a" = "$b" ] || pairs+=("$a-trt-$p $b-trt-$p")
    done
  done
done
trt=tensorrt
study data/calibrated/reports/transfer/ampere-trt pytorch-eager
variant=data/calibrated/reports/transfer/ampere-trt-registers
mkdir -p "$variant"
stack_with tensorrt "$variant/tensorrt-registers.yaml" intermediates_in_registers=true
trt="$variant/tensorrt-registers.yaml"
devices+=(t4-trt-fp32 v100-trt-fp32)
pairs+=("t4-trt-fp32 v100-trt-fp32" "v100-trt-fp32 t4-trt-fp32")
study "$variant" pytorch-eager
