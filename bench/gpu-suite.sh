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
#   cpu       the cpu engine on this host's cores: glccl validate at thread
#             counts 1,2,3,7,16 and all (images and volumes, every
#             criterion's corpus the CLI generates), then bench/cpu_peers.py
#             (OpenCV at 1 and all threads, scikit-image, scipy) on the 2-D
#             families at 2048^2 and 8192^2 and volumes at 256^3 and 512^3
#             (cpu_peers.csv, cpu_peers_volumes.csv)
#   crossover bench/auto_crossover.py: glccl.label on numpy with the cpu
#             engine, cuda, compute and auto, 256^2 to 16384^2 and 32^3 to
#             512^3, with the module in $PYTHON_MODULE (crossover.log)
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

run_cpu() {
  local code=0 cpuBench=$build/bench/glccl_cpu_bench
  "$glccl" validate --backends cpu --threads 1,2,3,7,16,all --connectivity both --random 300@2048 | tail -n 2 || code=1
  "$glccl" validate --backends cpu --threads 1,2,3,7,16,all --connectivity all3d --random-volumes 100@96 | tail -n 2 ||
    code=1
  "$glccl" validate --backends cpu --threads 1,7,all --connectivity all3d --criterion segments \
    --random-volumes 60@96 | tail -n 2 || code=1
  python3 "$here/cpu_peers.py" --bench "$cpuBench" --volume-families '' --csv "$out/cpu_peers.csv" || code=1
  python3 "$here/cpu_peers.py" --bench "$cpuBench" --families '' --volume-sizes 256,512 --no-skimage --reps 3 \
    --csv "$out/cpu_peers_volumes.csv" || code=1
  return $code
}

run_crossover() {
  [ -d "${PYTHON_MODULE:-}" ] || { echo "crossover: PYTHON_MODULE names no module folder" >&2; return 2; }
  python3 "$here/auto_crossover.py" --glccl "$glccl" --module-dir "$PYTHON_MODULE"
}

for name in "$@"; do
  case $name in
    cpu) step cpu run_cpu || status=1 ;;
    crossover) step crossover run_crossover || status=1 ;;
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
