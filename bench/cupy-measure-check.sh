#!/usr/bin/env bash
# Measuring device arrays where they are (glccl.regionprops_table, regionprops,
# label(properties=) on CuPy and torch arrays, glccl.cupyx), checked and
# timed in one run on the GPU machine, from a build with CUDA and the Python
# module:
#
#   cd BUILD && bash ../bench/cupy-measure-check.sh [OUT_DIR]
#
# PYTHON names the interpreter (default python3), the one the module was
# built for (bench/python-module-for.sh says how), with numpy, scipy,
# scikit-image, pytest and CuPy (torch too, for its test).
#
# In order, each step's log in OUT_DIR (default cupy-measure-check/ in the
# build):
#   1. tests    cuda_tests "[measure]": gatherTerms, numberRegions and
#               measureDeviceLabels against the cpu accumulator of the same
#               labels, limb for limb, each gathering repeated 20 times and
#               every repeat the same (non-consecutive ids, ids past 2^32 and
#               up to 2^64 - 1, every label and intensity integer type, one-
#               element regions, regions of many pieces, background only,
#               2-D and 3-D, the background as a region, negative labels
#               refused)
#   2. python   tests/python/test_cupy_measure.py (CuPy and torch against
#               scikit-image and scipy.ndimage on host copies, and cupyx's
#               result types), then the host measuring tests, unchanged
#   3. bench    bench/cupy-measure-check.py --scipy: glccl.cupyx's mean,
#               maximum and center_of_mass against cupyx.scipy.ndimage's on
#               2048^2 and 8192^2 noise labels, labels 1..16, 1..256 and
#               every label as index (cupyx, whose kernels scan the index
#               once per element, timed for the first two), int32 and
#               float32 intensities, CUDA event and wall times side by side,
#               results compared with cupyx's and scipy's
# and a short summary at the end (also OUT_DIR/summary.md). Exits 0 when
# every step passed; the timings assert nothing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(pwd)
out=${1:-$build/cupy-measure-check}
mkdir -p "$out"
tests=$build/tests/cuda_tests
python=${PYTHON:-python3}
status=0
source "$here/check-steps.sh"

[ -x "$tests" ] || { echo "cupy-measure-check: no $tests: run from a build folder with CUDA" >&2; exit 2; }
[ -d "$build/python" ] || { echo "cupy-measure-check: no python/ in $build: build the Python module" >&2; exit 2; }

step tests "$tests" "[measure]" || status=1
step python env PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" "$python" -m pytest -q -rs -p no:cacheprovider \
  "$here/../tests/python/test_cupy_measure.py" "$here/../tests/python/test_measure.py" \
  "$here/../tests/python/test_ndimage_measure.py" "$here/../tests/python/test_measure_engines.py" || status=1
step bench env PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" "$python" "$here/cupy-measure-check.py" \
  --sizes 2048 8192 --index-sizes 16 256 all --repeats 3 --scipy || status=1

{
  echo "# cupy-measure-check $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  echo
  echo "| step | exit |"
  echo "|---|---|"
  for name in tests python bench; do
    [ -n "${result[$name]+set}" ] && echo "| $name | ${result[$name]} |"
  done
  echo
  grep '^|' "$out/bench.log"
  grep -h '^SKIPPED\|skipped\|FAILED' "$out/python.log" | tail -n 12
} | tee "$out/summary.md"
exit $status
