#!/usr/bin/env bash
# Tiled labeling on the GPU machine (README "Huge images"): exactness past
# 2^31 pixels on two GPUs, and device-time throughput of tiled labeling
# against one call at 16384^2.
#
#   source .gl/prelude.sh && bash tiles/run-huge.sh BUILD_DIR OUT_DIR [STEP...]
#
# BUILD_DIR holds a CUDA build with glccl, tiles_tests and
# tiles_reference_check (cmake --build BUILD_DIR --target glccl_cli
# tiles_tests tiles_reference_check). Steps (all by default, in this order):
#   tests   tiles_tests: every backend's tiles against the reference (cuda
#           and the GL backends on the GPU)
#   exact   46341x46341 noise45 (2,147,488,281 pixels, past 2^31), cuda on
#           --devices 0,1, labels and table checked by tiles_reference_check
#           against the CPU reference on the whole image
#   bench   noise50 at 16384^2 (one tile: the single-call baseline), 32768^2
#           and 65536^2, cuda with --devices 0 and 0,1, compute with one
#           worker; one JSON line each -> OUT_DIR/bench.jsonl, and
#           OUT_DIR/bench.md with Gpixel/s of device time and wall time
# Images are written to OUT_DIR/images and removed at the end.
# Settings (environment), for a dry run elsewhere:
#   GLCCL_TILES_BACKEND   cuda (the backend of exact and of bench's two-GPU runs)
#   GLCCL_TILES_DEVICES   0,1
#   GLCCL_EXACT_SIDE      46341
#   GLCCL_BENCH_SIDES     16384 32768 65536
#   GLCCL_BENCH_TILE      16384
set -uo pipefail
backend=${GLCCL_TILES_BACKEND:-cuda}
devices=${GLCCL_TILES_DEVICES:-0,1}
exactSide=${GLCCL_EXACT_SIDE:-46341}
benchSides=${GLCCL_BENCH_SIDES:-16384 32768 65536}
benchTile=${GLCCL_BENCH_TILE:-16384}
build=${1:?usage: run-huge.sh BUILD_DIR OUT_DIR [tests|exact|bench...]}
out=${2:?usage: run-huge.sh BUILD_DIR OUT_DIR [tests|exact|bench...]}
shift 2
steps=${*:-tests exact bench}
glccl=$build/tools/glccl
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
mkdir -p "$out/images" || exit 1
status=0
log() { echo "== $*" | tee -a "$out/run-huge.log"; }

for step in $steps; do
case $step in
tests)
    log "tiles_tests"
    "$build/tests/tiles_tests" 2>&1 | tail -5 | tee -a "$out/run-huge.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    ;;
exact)
    image=$out/images/noise45_$exactSide.npy
    log "exact: ${exactSide}x$exactSide noise45, $backend on devices $devices, against the reference"
    "$python" "$here/make_huge_npy.py" noise45 $exactSide $exactSide "$image" || status=1
    /usr/bin/time -v "$glccl" label "$image" --backend "$backend" --devices "$devices" --labels "$out/images/labels.npy" \
        --stats "$out/images/stats.csv" --timing --force 2>&1 | grep -Ev "^\s+(Average|Exit|File|Major|Minor|Page|Signals|Socket|Swaps|Voluntary|Involuntary|Percent|System|User)" \
        | tee -a "$out/run-huge.log"
    /usr/bin/time -v "$build/tiles/tiles_reference_check" "$image" "$out/images/labels.npy" "$out/images/stats.csv" 2>&1 \
        | grep -E "identical|different|Maximum resident|Elapsed|tiles_reference_check" | tee -a "$out/run-huge.log"
    grep -q "^identical" "$out/run-huge.log" || status=1
    rm -f "$image" "$out/images/labels.npy" "$out/images/stats.csv"
    ;;
bench)
    : > "$out/bench.jsonl"
    for side in $benchSides; do
        image=$out/images/noise50_$side.npy
        "$python" "$here/make_huge_npy.py" noise50 $side $side "$image" || { status=1; continue; }
        for run in "$backend 0" "$backend $devices" "compute 0"; do
            set -- $run
            log "bench: ${side}^2 noise50, $1 on devices $2"
            # --json without --table: no table is computed, only the labels.
            "$glccl" label "$image" --backend "$1" --devices "$2" --tile ${benchTile}x$benchTile --labels "$out/images/labels.npy" \
                --force --json --timing > "$out/images/run.json" 2>> "$out/run-huge.log" || status=1
            cat "$out/images/run.json" | tee -a "$out/bench.jsonl"
        done
        rm -f "$image" "$out/images/labels.npy"
    done
    "$python" - "$out/bench.jsonl" > "$out/bench.md" <<'PY'
import json, sys
rows = [json.loads(line)[0] for line in open(sys.argv[1]) if line.strip()]
print("| image | backend | workers | tiles | components | device ms | device Gpx/s | label_tiles ms | relabel_tiles ms | wall ms | wall Gpx/s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    px = r["width"] * r["height"]
    t, s = r["tiled"], r["stages"]
    device = s.get("device", 0.0)
    print("| %dx%d | %s | %d | %dx%d | %d | %.1f | %s | %.0f | %.0f | %.0f | %.2f |" % (
        r["width"], r["height"], r["backend"], t["workers"], t["tiles_x"], t["tiles_y"], r["components"], device,
        "%.1f" % (px / device / 1e6) if device > 0 else "-", s["label_tiles"], s["relabel_tiles"],
        r["milliseconds"], px / r["milliseconds"] / 1e6))
PY
    cat "$out/bench.md" | tee -a "$out/run-huge.log"
    ;;
*) echo "run-huge.sh: unknown step '$step' (tests, exact, bench)" >&2; status=2 ;;
esac
done
rmdir "$out/images" 2>/dev/null
exit $status
