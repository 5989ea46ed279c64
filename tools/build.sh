#!/usr/bin/env bash
# Installs what is missing, then configures build/ (Release; the first time
# from scratch, afterwards a quick check) and builds it with every core.
# Shared by quickstart.sh and run-tests.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/install-deps.sh

# nvcc is not on PATH in Debian's CUDA packages: point CMake at it when it is
# there, so the CUDA path is built too.
cmake_args=(-S . -B build -DCMAKE_BUILD_TYPE=Release)
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  cmake_args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
cmake "${cmake_args[@]}"
cmake --build build -j "$(nproc)"
