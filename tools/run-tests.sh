#!/usr/bin/env bash
# Builds build/ (configuring it the first time, incrementally after that) and
# runs the whole test suite: host_* tests, gl_* tests on whatever EGL offers
# (Mesa llvmpipe on a machine without a GPU) and, when CUDA is built, cuda_*
# tests, which skip with a printed reason where there is no device.
# Installs missing packages first: CI machines start fresh.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/build.sh

# --no-tests=error: a suite that registered nothing is a failure, not a pass.
ctest --test-dir build --output-on-failure -j2 --timeout 600 --no-tests=error
