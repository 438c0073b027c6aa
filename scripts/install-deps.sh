#!/usr/bin/env bash
# Installs the Debian 12 packages dcnas needs to build, test and run (as root; apt-get update
# first). Packages already present are not reinstalled.
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/install-deps.sh (no arguments)" 0 "$@"
packages=(
  meson ninja-build pkg-config g++ ccache python3 clang clang-tidy clang-format libclang-rt-14-dev
  libboost-graph-dev libboost-program-options-dev libeigen3-dev libyaml-cpp-dev
  nlohmann-json3-dev zlib1g-dev catch2 libbenchmark-dev
  libtorch-dev libopenblas0-pthread dataset-fashion-mnist libxgboost-dev
  libturbojpeg0-dev libpng-dev
  openmpi-bin libopenmpi-dev
  libonnx-dev libprotobuf-dev python3-onnx python3-torch python3-torchvision
  pybind11-dev python3-dev python3-pytest python3-numpy
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
