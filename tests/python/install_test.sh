#!/usr/bin/env bash
# `meson install` into a scratch DESTDIR, then the installed module is imported from another
# folder, with neither the source tree's data nor $DCNAS_DATA_DIR: it reads the installed
# <prefix>/share/dcnas and loads the installed LibTorch module.
#   install_test.sh BUILD_DIR PYTHON
set -u
build_dir="$1"
python="$2"
# shellcheck source=../cli/smoke_lib.sh
source "$(dirname "$0")/../cli/smoke_lib.sh"
unset DCNAS_DATA_DIR DCNAS_TORCH_MODULE PYTHONPATH

check "meson install" 0 meson install -C "$build_dir" --no-rebuild --destdir "$tmp/dest"
module=$(find "$tmp/dest" -name 'dcnas.cpython-*.so' -type f | head -1)
stub=$(find "$tmp/dest" -name 'dcnas.pyi' -type f | head -1)
if [ -z "$module" ] || [ -z "$stub" ]; then
  echo "FAIL installed module '${module}', stub '${stub}'"
  find "$tmp/dest" -maxdepth 6 -name '*dcnas*' | head -20
  exit 1
fi
echo "ok   installed $module and its stub"
if [ "$(dirname "$module")" = "$(dirname "$stub")" ]; then echo "ok   stub beside the module"; else
  echo "FAIL stub $stub not beside $module"; fails=$((fails + 1)); fi
mkdir -p "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
export PYTHONPATH
PYTHONPATH=$(dirname "$module")
check "import dcnas, simulate EfficientNet-B0 on tpu-v3" 0 "$python" -c "
import dcnas
print('data', dcnas.data_dir())
r = dcnas.simulate('efficientnet-b0', dcnas.Setup('tpu-v3'))
print('latency_ms', r.latency_ms)
print(r.to_text().splitlines()[0])
"
contains "the installed data, not the source tree's" "$tmp/out" "data $tmp/dest/"
contains "a latency" "$tmp/out" "latency_ms "
if "$python" -c "import dcnas, sys; sys.exit(0 if dcnas.build_info()['torch'] else 1)"; then
  check "installed module loads the installed LibTorch module" 0 "$python" -c "
import dcnas
print('torch module', dcnas.torch_module())
g = dcnas.Graph.zoo('mobilenetv2-1.0', batch=1, resolution=32, num_classes=10)
print('median_ms', dcnas.measure(g, repeats=1, warmup=0)['median_ms'])
"
  contains "the installed LibTorch module" "$tmp/out" "torch module $tmp/dest/"
  contains "a measured time" "$tmp/out" "median_ms "
fi
# Without the installed chip file the same call fails as an unknown accelerator, although the
# source tree still has data/accelerators/tpu-v3.yaml.
chip=$(find "$tmp/dest" -path '*/share/dcnas/accelerators/tpu-v3.yaml' -type f | head -1)
mv "$chip" "$chip.moved"
check "without the installed chip file: InputError" 1 "$python" -c "
import dcnas
try:
    dcnas.Setup('tpu-v3')
except dcnas.InputError as e:
    print('InputError:', e)
    raise SystemExit(1)
"
contains "tpu-v3 unknown to the installed module" "$tmp/out" "unknown accelerator 'tpu-v3'"
mv "$chip.moved" "$chip"
smoke_finish
