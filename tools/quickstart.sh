#!/usr/bin/env bash
# From a fresh Debian 12 machine to a labeled sample image: installs the
# missing packages, builds build/ (Release) with every core, and labels the
# bundled sample into out/.
#
#   sudo bash tools/quickstart.sh      (or, as root: bash tools/quickstart.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

sample=samples/blobs_and_text.png

# Under sudo, hand build/ and out/ back to the calling user on the way out so
# that later builds and test runs without sudo can write there.
give_back_to_caller() {
  if [[ -n "${SUDO_UID:-}" && "${SUDO_UID}" != 0 ]]; then
    chown -R "${SUDO_UID}:${SUDO_GID:-${SUDO_UID}}" build out 2>/dev/null || true
  fi
}
trap give_back_to_caller EXIT

bash tools/install-deps.sh

# nvcc is not on PATH in Debian's CUDA packages: point CMake at it when it is
# there, so the CUDA path is built too.
cmake_args=(-S . -B build -DCMAKE_BUILD_TYPE=Release)
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  cmake_args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
cmake "${cmake_args[@]}"
cmake --build build -j "$(nproc)"

mkdir -p out
echo
./build/tools/glccl label "$sample" \
  --color out/sample_labels.png --stats out/sample_stats.csv --labels out/sample_labels.npy --force
