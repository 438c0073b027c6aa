#!/usr/bin/env bash
# `--dataset` end to end: CIFAR-10, CIFAR-100 and an image folder written here (a few hundred
# images each, one colour per class), trained a few steps by `dcnas train` and `accuracy-data
# generate`; the image folder's tensor file reused; malformed inputs and devices exit 2 naming
# the problem.
set -euo pipefail
dcnas="$1"
python=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$python" -c 'import numpy, PIL' 2>/dev/null; then
  echo "numpy and PIL (python3-numpy, python3-pil) are needed to write the test images; skipping"
  exit 77
fi

"$python" - "$tmp" <<'EOF'
import os, sys
import numpy as np
from PIL import Image
root = sys.argv[1]
rng = np.random.default_rng(0)
def image(label, w, h):
    base = np.array([40 + (label * 97) % 176, 40 + (label * 53) % 176, 40 + (label * 31) % 176])
    return np.clip(base + rng.integers(-20, 21, (h, w, 3)), 0, 255).astype(np.uint8)
def records(n, classes, cifar100):
    out = []
    for i in range(n):
        label = i % classes
        head = bytes([label // 5, label]) if cifar100 else bytes([label])
        out.append(head + image(label, 32, 32).transpose(2, 0, 1).tobytes())
    return b''.join(out)
os.makedirs(f'{root}/c10')
for b in range(1, 6):
    open(f'{root}/c10/data_batch_{b}.bin', 'wb').write(records(240, 10, False))
open(f'{root}/c10/test_batch.bin', 'wb').write(records(100, 10, False))
os.makedirs(f'{root}/c100')
open(f'{root}/c100/train.bin', 'wb').write(records(500, 100, True))
open(f'{root}/c100/test.bin', 'wb').write(records(100, 100, True))
for split, per in (('train', 40), ('val', 10)):
    for k in range(4):
        d = f'{root}/folder/{split}/class{k}'
        os.makedirs(d)
        for i in range(per):
            w, h = int(rng.integers(36, 90)), int(rng.integers(36, 90))
            Image.fromarray(image(k, w, h)).save(f'{d}/{i}.' + ('png' if i % 3 == 0 else 'jpg'))
EOF

blocks=(--blocks r1_k3_s22_e1_i16_o8 r1_k3_s22_e2_i8_o16)
train() { "$dcnas" train "${blocks[@]}" --epochs 1 --batch 32 --resolution 32 "$@"; }

# CIFAR-10: 1,200 training images, a tenth held out; 3 channels, 10 classes; shifts by default.
train --dataset "cifar10:$tmp/c10" --out "$tmp/run_c10" > "$tmp/out.txt" 2> "$tmp/err.txt"
grep -q 'test accuracy' "$tmp/out.txt"
grep -q '"dataset": "cifar10@[0-9a-f]\{16\}"' "$tmp/run_c10/result.json"
grep -q '"crop_pad": 4' "$tmp/run_c10/result.json"
grep -q '"validation_images": 120' "$tmp/run_c10/result.json"
grep -q '"test_images": 100' "$tmp/run_c10/result.json"

# CIFAR-100: the zoo's networks are built with 100 classes.
"$dcnas" train efficientnet-b0 --proxy --dataset "cifar100:$tmp/c100" --epochs 1 --batch 32 \
  --out "$tmp/run_c100" > /dev/null 2>&1
grep -q '"dataset": "cifar100@' "$tmp/run_c100/result.json"

# An image folder: decoded once into a tensor file beside the run directory, then reused.
train --dataset "imagefolder:$tmp/folder" --out "$tmp/runs/a" > /dev/null 2> "$tmp/err_a.txt"
cache=$(ls "$tmp"/runs/imagefolder-*-32px.bin)
grep -q '"dataset": "imagefolder-4@' "$tmp/runs/a/result.json"
grep -q '"test_images": 40' "$tmp/runs/a/result.json"
stamp=$(stat -c %Y.%s "$cache")
train --dataset "imagefolder:$tmp/folder" --out "$tmp/runs/b" > /dev/null 2>&1
[ "$(stat -c %Y.%s "$cache")" = "$stamp" ]
[ "$(ls "$tmp"/runs/imagefolder-*.bin | wc -l)" -eq 1 ]
# The same content gives the same identity, whatever was decoded.
[ "$(grep '"dataset"' "$tmp/runs/a/result.json")" = "$(grep '"dataset"' "$tmp/runs/b/result.json")" ]
# Another image in the folder: a new key, a new file, another identity.
cp "$tmp/folder/train/class1/1.jpg" "$tmp/folder/train/class1/extra.jpg"
train --dataset "imagefolder:$tmp/folder" --out "$tmp/runs/c" > /dev/null 2>&1
[ "$(ls "$tmp"/runs/imagefolder-*.bin | wc -l)" -eq 2 ]
[ "$(grep '"dataset"' "$tmp/runs/a/result.json")" != "$(grep '"dataset"' "$tmp/runs/c/result.json")" ]

# accuracy-data generate on CIFAR-10: the rows name the dataset by content; the proxy takes 3
# channels.
"$dcnas" accuracy-data generate --space "$DCNAS_SOURCE_ROOT/data/search_spaces/dc-accelerator.yaml" \
  --count 2 --epochs 1 --train-images 1000 --batch 50 --proxy-resolution 16 \
  --dataset "cifar10:$tmp/c10" --limit-eval 64 --out "$tmp/acc.csv" > /dev/null 2> "$tmp/gen.txt"
[ "$(tail -n +2 "$tmp/acc.csv" | wc -l)" -eq 2 ]
[ "$(tail -n +2 "$tmp/acc.csv" | grep -c ',cifar10@[0-9a-f]\{16\},')" -eq 2 ]
# On an image folder: its tensor file beside the output, the rows naming the folder by content.
mkdir "$tmp/gen"
"$dcnas" accuracy-data generate --space "$DCNAS_SOURCE_ROOT/data/search_spaces/dc-accelerator.yaml" \
  --count 1 --epochs 1 --train-images 1000 --batch 40 --proxy-resolution 16 \
  --dataset "imagefolder:$tmp/folder" --out "$tmp/gen/acc.csv" > /dev/null 2>&1
ls "$tmp"/gen/imagefolder-*-64px.bin > /dev/null
[ "$(tail -n +2 "$tmp/gen/acc.csv" | grep -c ',imagefolder-4@[0-9a-f]\{16\},')" -eq 1 ]

expect_fail() {  # expect_fail PATTERN ARGS...: exit 2 with PATTERN on stderr
  local pattern="$1"
  shift
  set +e
  "$@" > /dev/null 2> "$tmp/fail.txt"
  local rc=$?
  set -e
  if [ "$rc" -ne 2 ] || ! grep -q -- "$pattern" "$tmp/fail.txt"; then
    echo "expected exit 2 with '$pattern' from: $*; got $rc:"
    cat "$tmp/fail.txt"
    exit 1
  fi
}

expect_fail "unknown dataset 'svhn'" train --dataset svhn --out "$tmp/x"
expect_fail "needs its directory: cifar10:DIR" train --dataset cifar10 --out "$tmp/x"
expect_fail "--device 'gpu' is not cpu, cuda or cuda:N" train --device gpu --out "$tmp/x"
# --device cuda trains where the LibTorch has CUDA, and is exit 2 naming why where it has not.
set +e
train --device cuda --limit-train 256 --limit-eval 64 --out "$tmp/cuda" > /dev/null 2> "$tmp/cuda.txt"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  [ "$rc" -eq 2 ] && grep -q -- "--device cuda: this LibTorch has no CUDA device" "$tmp/cuda.txt"
  expect_fail "--device cuda:1: this LibTorch has no CUDA device" \
    "$dcnas" measure efficientnet-b0 --batch 1 --device cuda:1
fi
# A one-channel graph on three-channel data.
train --limit-train 256 --limit-eval 64 --out "$tmp/fm" > /dev/null 2>&1
grep -q '"dataset": "fashion-mnist",' "$tmp/fm/result.json"
expect_fail "takes 1 input channels; cifar10@[0-9a-f]* has 3" \
  "$dcnas" train --graph "$tmp/fm/graph.json" --dataset "cifar10:$tmp/c10" --epochs 1 \
  --out "$tmp/x"

cp -r "$tmp/c10" "$tmp/c10_bad"
truncate -s 700000 "$tmp/c10_bad/data_batch_4.bin"
expect_fail "data_batch_4.bin: 700,000 bytes is not a whole number of 3,073-byte" \
  train --dataset "cifar10:$tmp/c10_bad" --out "$tmp/x"
expect_fail "no data_batch_1.bin but a train.bin: this is CIFAR-100 (use cifar100:DIR)" \
  train --dataset "cifar10:$tmp/c100" --out "$tmp/x"
mkdir "$tmp/c100_as_10"
for b in 1 2 3 4 5; do cp "$tmp/c100/test.bin" "$tmp/c100_as_10/data_batch_$b.bin"; done
cp "$tmp/c100/test.bin" "$tmp/c100_as_10/test_batch.bin"
expect_fail "data_batch_1.bin: 307,400 bytes is not a whole number of 3,073-byte CIFAR-10 records (its size fits CIFAR-100's" \
  train --dataset "cifar10:$tmp/c100_as_10" --out "$tmp/x"
expect_fail "cifar100:.*not a directory" train --dataset "cifar100:$tmp/none" --out "$tmp/x"

cp -r "$tmp/folder" "$tmp/f_empty"
mkdir "$tmp/f_empty/train/class9"
expect_fail "f_empty/train/class9: class folder with no images" \
  train --dataset "imagefolder:$tmp/f_empty" --out "$tmp/x"
cp -r "$tmp/folder" "$tmp/f_corrupt"
head -c 700 "$tmp/folder/train/class2/4.jpg" > "$tmp/f_corrupt/train/class2/4.jpg"
expect_fail "f_corrupt/train/class2/4.jpg: corrupt JPEG" \
  train --dataset "imagefolder:$tmp/f_corrupt" --out "$tmp/x"
mkdir -p "$tmp/f_one/train/only" "$tmp/f_one/val/only"
cp "$tmp/folder/train/class0/1.jpg" "$tmp/f_one/train/only/"
cp "$tmp/folder/train/class0/1.jpg" "$tmp/f_one/val/only/"
expect_fail "f_one/train: 1 class folder(s); classification needs at least 2" \
  train --dataset "imagefolder:$tmp/f_one" --out "$tmp/x"
# Nothing was cached for the folders that failed.
[ "$(ls "$tmp"/imagefolder-*.bin 2> /dev/null | wc -l)" -eq 0 ]
echo "datasets cli: ok"
