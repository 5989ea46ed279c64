#!/usr/bin/env bash
# The CUDA tests under NVIDIA's compute-sanitizer, on a machine with a GPU:
# memcheck with the leak check over every cuda test (an allocation or a
# registration left behind by a destroyed labeler shows as a leak), then
# racecheck, initcheck and synccheck over the small mixes of every pass
# ("[sanitize]": tests/cuda_labeler.cpp, tests/cuda_blocks.cpp for the
# block kernels, both kernel sets and a batch, tests/cuda_volume.cpp for
# the volume kernels, and tests/cuda_sample_formats.cpp for the kernels of
# samples past 8 bits and the criteria past binary).
#
#   bash bench/cuda-sanitizer.sh [CUDA_TESTS] [OUT_DIR]
#
# CUDA_TESTS defaults to build/tests/cuda_tests, OUT_DIR (the four reports)
# to sanitizer-reports/. Exits 0 when every tool reports no error and no
# leak, 1 when one does, 2 when compute-sanitizer or the tests are missing.
set -uo pipefail
tests=${1:-build/tests/cuda_tests}
out=${2:-sanitizer-reports}
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -z "$sanitizer" ]; then
  echo "cuda-sanitizer: no compute-sanitizer on PATH or in /usr/local/cuda*/bin (CUDA toolkit)" >&2; exit 2
fi
if [ ! -x "$tests" ]; then
  echo "cuda-sanitizer: no test program '$tests' (build with CUDA first)" >&2; exit 2
fi
mkdir -p "$out"
status=0
run() {  # run NAME ARGS...: one sanitizer run, its report in $out/NAME.txt
  local name=$1; shift
  "$sanitizer" --error-exitcode 3 "$@" > "$out/$name.txt" 2>&1
  local code=$?
  local summary
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$out/$name.txt" | tr -s ' =' ' ' | paste -sd ';' -)
  echo "$name: exit $code;$summary"
  [ $code -eq 0 ] || status=1
}
run memcheck-leaks --tool memcheck --leak-check full "$tests"
for tool in racecheck initcheck synccheck; do run "$tool" --tool $tool "$tests" "[sanitize]"; done
exit $status
