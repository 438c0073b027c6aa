#!/usr/bin/env bash
# `meson install` into a scratch DESTDIR, then the installed dcnas runs from another folder with
# neither the source tree's data nor $DCNAS_DATA_DIR: it reads <prefix>/share/dcnas.
set -u
build_dir="$1"
# shellcheck source=smoke_lib.sh
source "$(dirname "$0")/smoke_lib.sh"
unset DCNAS_DATA_DIR

check "meson install" 0 meson install -C "$build_dir" --no-rebuild --destdir "$tmp/dest"
dcnas=$(find "$tmp/dest" -path '*/bin/dcnas' -type f | head -1)
data=$(find "$tmp/dest" -path '*/share/dcnas/accelerators/tpu-v3.yaml' -type f | head -1)
if [ -z "$dcnas" ] || [ -z "$data" ]; then
  echo "FAIL installed files: bin/dcnas '${dcnas}', share/dcnas/accelerators/tpu-v3.yaml '${data}'"
  find "$tmp/dest" -maxdepth 4 | head -20
  exit 1
fi
echo "ok   installed $dcnas and its data"
share=$(dirname "$(dirname "$data")")
# What the binary reads: by name (accelerators, stacks, calibrated profiles, cpus, search spaces)
# and the shipped inputs its commands take by path (measurements, the surrogate, published top-1).
for f in stacks/xla-tpu.yaml calibrated/tpu-v3-xla-tpu-bf16.yaml cpus/microarchitectures.yaml \
  search_spaces/dc-accelerator.yaml measurements/timm_rtx4090.csv surrogates/dc-accelerator.ubj \
  accuracy/published-imagenet.csv; do
  if [ -f "$share/$f" ]; then echo "ok   installed data/$f"; else
    echo "FAIL data/$f not installed"; fails=$((fails + 1)); fi
done
# The studies' outputs and datasets, the importer's inputs and the READMEs stay in the source tree.
for f in calibrated/reports accuracy/dc-accelerator-r16-n5000-e2.csv accuracy/zoo search-study \
  study measurements/bookkeeping \
  measurements/sources README.md calibrated/README.md surrogates/dc-accelerator.ubj.report.json; do
  if [ -e "$share/$f" ]; then echo "FAIL data/$f installed"; fails=$((fails + 1)); else
    echo "ok   data/$f not installed"; fi
done

mkdir -p "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
check "installed sim from another folder" 0 "$dcnas" sim efficientnet-b0 --accel tpu-v3
contains "installed sim latency" "$tmp/out" "ms per batch"
# The installed data is what it reads: without the installed chip file the same command fails
# as an unknown accelerator, although the source tree still has data/accelerators/tpu-v3.yaml.
mv "$data" "$data.moved"
check "installed sim without the installed chip file" 2 "$dcnas" sim efficientnet-b0 --accel tpu-v3
contains "tpu-v3 unknown to the installed binary" "$tmp/err" "unknown accelerator 'tpu-v3'"
mv "$data.moved" "$data"
# A LibTorch build installs its module beside the binary's libraries and loads it from there.
if [ -n "$(find "$build_dir" -name libdcnas_torch.so -print -quit)" ]; then
  module=$(find "$tmp/dest" -path '*/dcnas/libdcnas_torch.so' -type f | head -1)
  if [ -n "$module" ]; then echo "ok   installed the LibTorch module"; else
    echo "FAIL libdcnas_torch.so not installed"; fails=$((fails + 1)); fi
  unset DCNAS_TORCH_MODULE
  check "installed --version loads the installed module" 0 "$dcnas" --version
  contains "the installed module, not the build tree's" "$tmp/out" "LibTorch module: $tmp/dest/"
fi
smoke_finish
