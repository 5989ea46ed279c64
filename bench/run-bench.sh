#!/usr/bin/env bash
# Validation and benchmark run on the GPU machine, peers included:
#
#   source .gl/prelude.sh && bash bench/run-bench.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR holds a build with CUDA (tools/glccl in it); the caller has
# sourced .gl/prelude.sh so that the GL libraries are found. In order:
#   1. glccl validate --generate: the four families at two sizes, every
#      backend, both connectivities (difference images, if any, in OUT_DIR/diffs)
#   2. glccl bench --steps for compute, raster, cuda and cpu, each at its own
#      sizes  -> bench_compute.csv, bench_raster.csv, bench_cuda.csv, bench_cpu.csv
#      and compute, cuda and raster again at 4-connectivity
#             -> bench_compute4.csv, bench_cuda4.csv, bench_raster4.csv
#      Every row of stage total has the device time (median_ms), the wall
#      time of a whole call from host memory (wall_median_ms) and the
#      transfer floor (transfer_floor_ms): the bus bandwidth each bench run
#      measures first (rows h2d_gbps, d2h_gbps), applied to the input's and
#      the labels' bytes.
#      Then compute and cuda per frame through glccl::Labeler at 1920x1080
#      (glccl bench --frames: label + glFinish, label + table + glFinish)
#             -> bench_frames.csv
#   3. bench/peers.py on byte-identical images (written by glccl
#      generate into a temporary folder, removed at the end):
#      cupyx.scipy.ndimage.label, OpenCV SAUF and OpenCV's default, and the
#      device copy bandwidth as the memory floor  -> peers.csv
#   4. a throughput table of everything, throughput.png where matplotlib is,
#      and bench/bench_tables.py's tables -> tables.md, whose wall-time tables
#      (device ms, wall ms, floor ms, wall/(device+floor); per frame) are
#      printed too
# Everything printed is also kept in OUT_DIR/run-bench.log: twelve files in all.
#
# Time: each step runs under a limit, the smaller of GLCCL_STEP_TIMEOUT and
# what is left of GLCCL_TIME_BUDGET, so the whole run stays inside the budget.
# bench and peers write their CSV rows as they go and loop over sizes
# outermost, so a step stopped early still leaves every family at the smaller
# sizes. The exit status is 1 if validation found a difference, the
# component counts of the backends disagree, or any step failed or was stopped.
#
# Settings (environment):
#   GLCCL_FAMILIES         noise50,sparse_disks,dense_disks,large
#   GLCCL_VALIDATE_SIZES   1000x777,4099x4097
#   GLCCL_COMPUTE_SIZES    1920x1080,1024,2048,4096,8192,16384
#   GLCCL_COMPUTE4_SIZES   8192,16384 (compute and cuda at 4-connectivity)
#   GLCCL_RASTER_SIZES     1024,2048,4096,8192
#   GLCCL_RASTER4_SIZES    2048 (the raster pipeline at 4-connectivity)
#   GLCCL_CUDA_SIZES       1920x1080,1024,2048,4096,8192,16384
#   GLCCL_CPU_SIZES        1024,2048,4096
#   GLCCL_FRAMES_SIZES     1920x1080 (the per-frame run)
#   GLCCL_FRAMES_BACKENDS  compute,cuda
#   GLCCL_FRAMES           200 (frames per backend, image and size)
#   GLCCL_CUPYX_SIZES      1024,2048,4096,8192,16384
#   GLCCL_OPENCV_SIZES     1024,2048,4096,8192,16384
#   GLCCL_REPS / GLCCL_WARMUP   5 / 1
#   GLCCL_THREADS          16 (OpenCV threads)
#   GLCCL_TIME_BUDGET      420 (seconds for the whole run)
#   GLCCL_STEP_TIMEOUT     180 (seconds for one step at most)
#   PYTHON                 python3
# An empty size list (GLCCL_RASTER_SIZES= ) skips that backend or peer.
set -uo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: $0 BUILD_DIR OUT_DIR" >&2
    exit 2
fi
build=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
glccl=$build/tools/glccl
if [ ! -x "$glccl" ]; then
    echo "run-bench.sh: no glccl command at $glccl (build the glccl_cli target first)" >&2
    exit 1
fi
glccl=$(cd "$(dirname "$glccl")" && pwd)/glccl

families=${GLCCL_FAMILIES:-noise50,sparse_disks,dense_disks,large}
validate_sizes=${GLCCL_VALIDATE_SIZES:-1000x777,4099x4097}
compute_sizes=${GLCCL_COMPUTE_SIZES-1920x1080,1024,2048,4096,8192,16384}
compute4_sizes=${GLCCL_COMPUTE4_SIZES-8192,16384}
raster_sizes=${GLCCL_RASTER_SIZES-1024,2048,4096,8192}
raster4_sizes=${GLCCL_RASTER4_SIZES-2048}
cuda_sizes=${GLCCL_CUDA_SIZES-1920x1080,1024,2048,4096,8192,16384}
cpu_sizes=${GLCCL_CPU_SIZES-1024,2048,4096}
frames_sizes=${GLCCL_FRAMES_SIZES-1920x1080}
frames_backends=${GLCCL_FRAMES_BACKENDS:-compute,cuda}
frames=${GLCCL_FRAMES:-200}
cupyx_sizes=${GLCCL_CUPYX_SIZES-1024,2048,4096,8192,16384}
opencv_sizes=${GLCCL_OPENCV_SIZES-1024,2048,4096,8192,16384}
reps=${GLCCL_REPS:-5}
warmup=${GLCCL_WARMUP:-1}
threads=${GLCCL_THREADS:-16}
time_budget=${GLCCL_TIME_BUDGET:-420}
step_timeout=${GLCCL_STEP_TIMEOUT:-180}
python=${PYTHON:-python3}

mkdir -p "$out"
exec > >(tee "$out/run-bench.log") 2>&1
log_pid=$!
images=$(mktemp -d)            # the peers' .npy images: large, never copied into OUT_DIR
# On exit: remove the images, then let tee write the last lines of the log.
trap 'rm -rf "$images"; exec >&- 2>&-; wait "$log_pid"' EXIT
status=0
started=$SECONDS
reserve=20                     # seconds kept for the summary and the plot

# step NAME COMMAND...: runs COMMAND under the time limit; a failure is
# reported and remembered, not fatal.
step() {
    local name=$1
    shift
    local left=$(( time_budget - reserve - (SECONDS - started) ))
    local limit=$(( left < step_timeout ? left : step_timeout ))
    if [ "$limit" -le 5 ]; then
        echo "run-bench.sh: $name skipped: the time budget (${time_budget} s) is spent" >&2
        status=1
        return
    fi
    echo "== $name (at $(( SECONDS - started )) s, limit ${limit} s)"
    timeout --kill-after=10 "$limit" "$@"
    local result=$?
    if [ "$result" -eq 124 ] || [ "$result" -eq 137 ]; then
        echo "run-bench.sh: $name stopped after ${limit} s; its results so far are kept" >&2
        status=1
    elif [ "$result" -ne 0 ]; then
        echo "run-bench.sh: $name exited with status $result" >&2
        status=1
    fi
}

"$glccl" --version
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true

# 1. Validation: every family at every validation size.
inputs=""
IFS=, read -r -a family_list <<< "$families"
IFS=, read -r -a size_list <<< "$validate_sizes"
for size in "${size_list[@]}"; do
    for family in "${family_list[@]}"; do
        inputs+="${inputs:+,}$family@$size"
    done
done
mkdir -p "$out/diffs"
step "validate" "$glccl" validate --generate "$inputs" --connectivity both --diff-dir "$out/diffs" --force
rmdir "$out/diffs" 2>/dev/null || true   # kept only when it holds a difference image

# 2. glccl bench, one backend at a time at its own sizes.
for backend in compute raster cuda cpu; do
    case $backend in
        compute) sizes=$compute_sizes ;;
        raster) sizes=$raster_sizes ;;
        cuda) sizes=$cuda_sizes ;;
        cpu) sizes=$cpu_sizes ;;
    esac
    [ -n "$sizes" ] || continue
    step "bench $backend" "$glccl" bench --backends "$backend" --families "$families" --sizes "$sizes" \
        --reps "$reps" --warmup "$warmup" --steps --csv "$out/bench_$backend.csv" --force
done
if [ -n "$compute4_sizes" ]; then
    for backend in compute cuda; do
        step "bench $backend, 4-connectivity" "$glccl" bench --backends "$backend" --families "$families" \
            --sizes "$compute4_sizes" --connectivity 4 --reps "$reps" --warmup "$warmup" --steps \
            --csv "$out/bench_${backend}4.csv" --force
    done
fi
if [ -n "$raster4_sizes" ]; then
    step "bench raster, 4-connectivity" "$glccl" bench --backends raster --families "$families" \
        --sizes "$raster4_sizes" --connectivity 4 --reps "$reps" --warmup "$warmup" --steps \
        --csv "$out/bench_raster4.csv" --force
fi

# Per frame, as a renderer labels: one texture labeled $frames times through
# glccl::Labeler, beside the device time of the same run.
if [ -n "$frames_sizes" ]; then
    step "bench per frame" "$glccl" bench --backends "$frames_backends" --families "$families" \
        --sizes "$frames_sizes" --frames "$frames" --reps "$reps" --warmup "$warmup" \
        --csv "$out/bench_frames.csv" --force
fi

# 3. The peers on byte-identical images.
step "peers" "$python" "$here/peers.py" run --glccl "$glccl" --image-dir "$images" --csv "$out/peers.csv" --force \
    --families "$families" --cupyx-sizes "$cupyx_sizes" --opencv-sizes "$opencv_sizes" \
    --reps "$reps" --warmup "$warmup" --threads "$threads"

# 4. Everything in one table, and the plot where matplotlib is installed.
csvs=()
for csv in "$out"/bench_compute.csv "$out"/bench_raster.csv "$out"/bench_cuda.csv "$out"/bench_cpu.csv "$out"/peers.csv; do
    [ -s "$csv" ] && csvs+=("$csv")
done
if [ "${#csvs[@]}" -gt 0 ]; then
    "$python" "$here/plot_bench.py" "${csvs[@]}" "$out/throughput.png" || true
    echo "== summary ($(( SECONDS - started )) s)"
    "$python" "$here/peers.py" summary "${csvs[@]}" || status=1
    "$python" "$here/bench_tables.py" "$out" > "$out/tables.md" || status=1
    echo "== what a user waits for (also in tables.md)"
    "$python" "$here/bench_tables.py" "$out" --wall || status=1
fi
echo "run-bench.sh: done in $(( SECONDS - started )) s, status $status"
exit "$status"
