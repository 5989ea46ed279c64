#!/usr/bin/env bash
# The GPU machine's checks of a build, step by step (give each call the
# steps that fit its time):
#
#   cd BUILD && source ../.gl/prelude.sh && bash ../bench/gpu-suite.sh OUT_DIR STEP...
#
#   tests     every GPU test binary run whole, to its end: gl_tests,
#             tiles_tests, cuda_tests (a skip ends one test case; the
#             binary says how many it skipped)
#   validate  glccl validate with repeats, compute and cuda against the
#             reference: the image families at 4 and 8, 300 random images
#             up to 2048 a side, 300 random volumes up to 96 a side at 6, 18
#             and 26 (binary), 100 random volumes of segments, each 10 times
#   stages    per-stage device times of this build and of the glccl in
#             $BEFORE (a build of the commit before), $ROUNDS runs each (3),
#             alternated, at 8- and 4-connectivity and on 512^3 volumes,
#             compared by bench/stage_diff.py (stages.md)
#   python    the Python tests that need a GPU (CuPy, torch, batches), with
#             the module in $PYTHON_MODULE (bench/python-module-for.sh)
#
# Each step's log is OUT_DIR/STEP.log; a short table of the steps' exit
# statuses ends the run (OUT_DIR/summary.md). Exits 1 when a step failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(pwd)
out=${1:?usage: gpu-suite.sh OUT_DIR STEP...}
shift
mkdir -p "$out"
glccl=$build/tools/glccl
status=0
source "$here/check-steps.sh"

run_tests() {
  local code=0
  for binary in gl_tests tiles_tests cuda_tests; do
    echo "== $binary"
    "$build/tests/$binary" --reporter compact || code=1
  done
  return $code
}

run_validate() {
  local code=0
  "$glccl" validate --backends compute,cuda --connectivity both --repeat 10 \
    --generate noise50@2048x2048,sparse_disks@2048x2048,dense_disks@2048x2048,large@2048x2048,spiral@1000x999,comb@1023x511 ||
    code=1
  "$glccl" validate --backends compute,cuda --connectivity both --repeat 10 --random 300@2048 | tail -n 3 || code=1
  "$glccl" validate --backends compute,cuda --connectivity all3d --repeat 10 --random-volumes 300@96 | tail -n 3 ||
    code=1
  "$glccl" validate --backends compute,cuda --connectivity all3d --repeat 10 --criterion segments \
    --random-volumes 100@96 | tail -n 3 || code=1
  return $code
}

run_stages() {
  [ -x "${BEFORE:-}" ] || { echo "stages: BEFORE names no glccl of the build before" >&2; return 2; }
  local code=0 round binary tag
  for round in $(seq 1 "${ROUNDS:-3}"); do
    for tag in before after; do
      binary=$glccl
      [ $tag = before ] && binary=$BEFORE
      "$binary" bench --backends compute,cuda --sizes 1920x1080,2048,8192,16384 --reps 7 --steps \
        --csv "$out/stages8_${tag}_$round.csv" --force > /dev/null || code=1
      "$binary" bench --backends compute,cuda --sizes 8192,16384 --connectivity 4 --reps 7 --steps \
        --csv "$out/stages4_${tag}_$round.csv" --force > /dev/null || code=1
      "$binary" bench --backends compute,cuda --sizes 512x512x512 --families noise30,balls --connectivity 26 \
        --reps 5 --steps --csv "$out/stages26_${tag}_$round.csv" --force > /dev/null || code=1
    done
  done
  python3 "$here/stage_diff.py" --before "$out"/stages*_before_*.csv --after "$out"/stages*_after_*.csv \
    > "$out/stages.md" || code=1
  tail -n 1 "$out/stages.md"
  return $code
}

run_python() {
  [ -d "${PYTHON_MODULE:-}" ] || { echo "python: PYTHON_MODULE names no module folder" >&2; return 2; }
  PYTHONPATH="$PYTHON_MODULE${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest -q -rs -p no:cacheprovider \
    "$here/../tests/python/test_device_arrays.py" "$here/../tests/python/test_gpu_batches.py" \
    "$here/../tests/python/test_depths.py" "$here/../tests/python/test_route.py"
}

for name in "$@"; do
  case $name in
    tests) step tests run_tests || status=1 ;;
    validate) step validate run_validate || status=1 ;;
    stages) step stages run_stages || status=1 ;;
    python) step python run_python || status=1 ;;
    *) echo "gpu-suite: unknown step '$name'" >&2; exit 2 ;;
  esac
done

{
  echo "# gpu-suite $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  echo
  echo "| step | exit |"
  echo "|---|---|"
  for name in "$@"; do echo "| $name | ${result[$name]:-} |"; done
} | tee "$out/summary.md"
exit $status
