#!/usr/bin/env bash
# The helpers on device arrays (glccl.relabel, remove_small, keep_largest,
# find_objects on CuPy arrays and torch tensors), checked and timed in one
# run on the GPU machine, from a build with CUDA and the Python module:
#
#   cd BUILD && bash ../bench/device-helpers-check.sh [OUT_DIR]
#
# PYTHON names the interpreter (default python3), the one the module was
# built for, with numpy, scipy, scikit-image, pytest and CuPy (torch too,
# for its tests).
#
# In order, each step's log in OUT_DIR (default device-helpers-check/ in the
# build):
#   1. tests   cuda_tests "cuda label filters*": the kernels on every label
#              type and 1-D, 2-D and 3-D shapes against a host computation,
#              the errors (negative labels, labels too large to tabulate)
#   2. python  tests/python/test_device_helpers.py: CuPy and torch against
#              the host helpers, np.unique, scipy.ndimage.find_objects and
#              skimage.morphology.remove_small_objects. The module must be
#              built for the GPU machine's python3 (bench/python-module-for.sh
#              says how, as for bench/cuda-check.sh)
#   3. bench   bench/device_helpers_bench.py: each helper on a 1024^2 and a
#              256^3 CuPy label array against the host helper on its numpy
#              copy, a CuPy expression and scipy/scikit-image
#              -> OUT_DIR/device_helpers.csv, and its table
# and a short summary at the end (also OUT_DIR/summary.md). Exits 0 when
# steps 1 and 2 passed and the benchmark's device results equalled the host
# helper's; the timings assert nothing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(pwd)
out=${1:-$build/device-helpers-check}
mkdir -p "$out"
tests=$build/tests/cuda_tests
python=${PYTHON:-python3}
status=0
source "$here/check-steps.sh"

[ -x "$tests" ] || { echo "device-helpers-check: no $tests: run from a build folder with CUDA" >&2; exit 2; }
[ -d "$build/python" ] || { echo "device-helpers-check: no python/ in $build: build the Python module" >&2; exit 2; }

step tests "$tests" "cuda label filters*" || status=1
step python env PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" "$python" -m pytest -q -rs -p no:cacheprovider \
  "$here/../tests/python/test_device_helpers.py" || status=1
step bench "$python" "$here/device_helpers_bench.py" --module-dir "$build/python" --image 1024x1024 \
  --volume 256x256x256 --csv "$out/device_helpers.csv" || status=1

{
  echo "# device-helpers-check $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  echo
  echo "| step | exit |"
  echo "|---|---|"
  for name in tests python bench; do
    [ -n "${result[$name]+set}" ] && echo "| $name | ${result[$name]} |"
  done
  echo
  echo "Median wall time per call (bench.log):"
  echo
  grep '^|' "$out/bench.log"
  grep -h '^SKIPPED\|skipped' "$out/python.log" | tail -n 12
} | tee "$out/summary.md"
exit $status
