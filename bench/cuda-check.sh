#!/usr/bin/env bash
# Everything the cuda engine's correctness and speed rest on, in one run on
# the GPU machine, from a build with CUDA (and the Python module):
#
#   cd BUILD && source ../.gl/prelude.sh && bash ../bench/cuda-check.sh [OUT_DIR]
#
# In order, each step's log in OUT_DIR (default cuda-check/ in the build):
#   1. tests      cuda_tests, every test (block and Stava & Benes kernels, batches,
#                 device arrays, volumes, interop where GL runs)
#   2. repeat     the hidden "[repeat]" test: 300 random images labeled 10
#                 times each, every repeat byte-identical, the first equal to
#                 the CPU reference
#   3. sanitizer  bench/cuda-sanitizer.sh: memcheck with the leak check over
#                 every cuda test, racecheck, initcheck and synccheck over
#                 the small mixes tagged "[sanitize]" (block kernels, Stava & Benes
#                 kernels, a batch)
#   4. python     the Python tests that need a GPU (CuPy, torch, batches),
#                 which skip elsewhere. The module must be built for the
#                 GPU machine's python3 (its version, not this machine's)
#                 and, where its numpy is 2.x, with pybind11 2.12 or later
#                 (the first to support numpy 2): bench/python-module-for.sh
#   5. bench      glccl bench --backends compute,cuda --sizes 2048,8192,16384
#                 --connectivity 4 and 8 --steps -> bench4.csv, bench8.csv
#   6. e2e4, e2e8 bench/python_bench.py at 4- and 8-connectivity: numpy
#                 through the cuda backend (the fixed cost from host memory),
#                 CuPy and torch end to end against cupyx.scipy.ndimage.label,
#                 and 64 masks of 512^2 as one batch against a loop of cupyx
#                 -> python_bench4.csv, python_bench8.csv
# and a short table of the results at the end (also OUT_DIR/summary.md).
# Exits 0 when every correctness step (1-4) passed, 1 otherwise; the
# benchmarks report, they assert nothing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(pwd)
out=${1:-$build/cuda-check}
mkdir -p "$out"
tests=$build/tests/cuda_tests
glccl=$build/tools/glccl/glccl
status=0
source "$here/check-steps.sh"

[ -x "$tests" ] || { echo "cuda-check: no $tests: run from a build folder with CUDA" >&2; exit 2; }

step tests "$tests" || status=1
step repeat "$tests" "[repeat]" || status=1
step sanitizer bash "$here/cuda-sanitizer.sh" "$tests" "$out/sanitizer" || status=1
if [ -d "$build/python" ]; then
  step python env PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest -q -rs \
    "$here/../tests/python/test_device_arrays.py" "$here/../tests/python/test_gpu_batches.py" || status=1
else
  result[python]="no python/ in the build"
fi
if [ -x "$glccl" ]; then
  for c in 4 8; do
    step "bench$c" "$glccl" bench --backends compute,cuda --sizes 2048,8192,16384 --connectivity $c --steps \
      --csv "$out/bench$c.csv"
  done
fi
if [ -d "$build/python" ]; then
  for c in 4 8; do
    step "e2e$c" python3 "$here/python_bench.py" ${glccl:+--glccl "$glccl"} --module-dir "$build/python" \
      --sizes 2048,8192,16384 --backends cuda --connectivity $c --devices --batch 64x512 \
      --csv "$out/python_bench$c.csv"
  done
fi

{
  echo "# cuda-check $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  echo
  echo "| step | exit |"
  echo "|---|---|"
  for name in tests repeat sanitizer python bench4 bench8 e2e4 e2e8; do
    [ -n "${result[$name]+set}" ] && echo "| $name | ${result[$name]} |"
  done
  echo
  if command -v python3 > /dev/null; then
    python3 - "$out" <<'EOF'
import csv, os, sys
out = sys.argv[1]
rows = {}
for c in ("4", "8"):
    path = os.path.join(out, "bench%s.csv" % c)
    if not os.path.exists(path):
        continue
    for row in csv.DictReader(open(path)):
        if row.get("stage") != "total":
            continue
        key = (row.get("family"), row.get("width"), c)
        rows.setdefault(key, {})[row.get("backend")] = row
if rows:
    print("device time (median ms), cuda / compute:\n")
    print("| family | size | conn | compute | cuda | cuda/compute | cuda wall | floor |")
    print("|---|---|---|---|---|---|---|---|")
    for (family, width, c), by in sorted(rows.items(), key=lambda kv: (kv[0][2], kv[0][0], int(kv[0][1] or 0))):
        comp = by.get("compute", {}).get("median_ms")
        cu = by.get("cuda", {}).get("median_ms")
        ratio = "%.2f" % (float(cu) / float(comp)) if comp and cu and float(comp) > 0 else ""
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (family, width, c, comp, cu, ratio,
              by.get("cuda", {}).get("wall_median_ms", ""), by.get("cuda", {}).get("transfer_floor_ms", "")))
for c in ("4", "8"):
    log = os.path.join(out, "e2e%s.log" % c)
    if os.path.exists(log):
        print("\n%s-connectivity, end to end on device arrays and batches (e2e%s.log):\n" % (c, c))
        print("\n".join(line for line in open(log) if line.startswith("|") or line.startswith("A batch")
                         or line.startswith("CuPy") or line.startswith("torch")))
EOF
  fi
} | tee "$out/summary.md"
exit $status
