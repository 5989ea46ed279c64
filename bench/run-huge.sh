#!/usr/bin/env bash
# Tiled labeling on the GPU machine (docs/huge-images.md):
# exactness at 50000^2 and past 2^31 pixels, wall time against the I/O floor
# measured in the same run (a 40000x36000 image, a 2048^3 volume),
# device-time throughput of tiled labeling against one call at 16384^2, two
# GPUs against one, peak host memory, and MPI strong and weak scaling split
# into labeling, merging and writing. Prints OUT_DIR/bench.md (a markdown
# summary of every step run so far) last.
#
#   source .gl/prelude.sh && bash bench/run-huge.sh BUILD_DIR OUT_DIR [STEP...]
#
# BUILD_DIR holds a CUDA build (-DCMAKE_CUDA_ARCHITECTURES=90) with the
# targets glccl_cli, glccl_mpi (where Open MPI is installed), tiles_tests and
# tiles_reference_check. Steps (all by default, in this order; a device
# command has 600 s, so run them in the groups docs/huge-images.md lists):
#   tests       every tiles_tests case in a process of its own: cuda, compute
#               and raster tiles, EGL devices, TIFF (about 1 min)
#   exact50k    50000x50000 noise45 (2.5 Gpixel), cuda and compute on every
#               GPU, labels and table against the CPU reference (about 5 min)
#   exact46k    46341x46341 noise45 (2,147,488,281 pixels, past 2^31), the
#               same (about 4 min)
#   io2d        40000x36000 noise50 (1.44 Gpixel, glccl generate): its I/O
#               floor (bench/io_floor.py: the input read with the page cache
#               dropped, the labels' 5.76 GB written with fsync), then glccl
#               label with each backend, labels and table written, the cache
#               dropped before each, and the first backend again with
#               --memory-limit 4G: wall, floor, wall / floor, peak RSS; the
#               runs' labels compared, the first's against the CPU reference
#               (tiles_reference_check) (about 3 min)
#   io3d        2048^3 balls at 26-connectivity (glccl generate, 8.6 GB), the
#               same with 34.4 GB of labels, the first backend again with
#               --memory-limit 32G; the runs' labels compared, the first's
#               against the CPU reference where the machine's memory holds it
#               (104 GiB) (about 10 min; 44 GB of disk: the volume and one
#               labels file)
#   bench16k    noise50 16384^2 in one tile: the single-call baseline, three
#               runs each of cuda and compute on GPU 0 (about 1 min)
#   bench32k    noise50 32768^2 in tiles of 16384^2, cuda and compute on GPU 0
#   bench65k    noise50 65536^2, the same (about 3 min)
#   multi65k    noise50 65536^2 on GPU 0, then on every GPU (cuda, and
#               compute through EGL devices; with one GPU, two workers share
#               it), labels written by both and compared (about 5 min)
#   memory65k   noise50 65536^2, cuda, labels and table written: peak host
#               memory with the default limit and with --memory-limit 4G
#               (about 4 min)
#   mpi-strong  mpirun -n 1, 2, 4 glccl-mpi (cuda, ranks on the GPUs in turn)
#               on noise50 32768^2, each run's labels compared with glccl
#               label's (about 3 min)
#   mpi-weak    the same with 32768 x (16384 * ranks) (about 4 min)
#   report      bench.md from OUT_DIR/bench.jsonl only
#   clean       removes the images
# Every step appends its results to OUT_DIR/bench.jsonl and rewrites
# OUT_DIR/bench.md; run-huge.log has the commands' output. The results of
# several commands make one summary with
#   python3 bench/huge_report.py OUT1/bench.jsonl OUT2/bench.jsonl ... > bench.md Images are kept
# between steps (made again where missing) in GLCCL_HUGE_IMAGES, never under
# OUT_DIR (whose files come back from the device machine).
# Settings (environment):
#   GLCCL_HUGE_IMAGES   /tmp/glccl-huge
#   GLCCL_GPUS          GPUs to use (default: nvidia-smi -L's count, else 1)
#   GLCCL_BENCH_TILE    16384
#   GLCCL_MPI_TILE      8192 (four bands of a 32768^2 image: one per rank at -n 4)
#   GLCCL_MPI_BACKEND   cuda
#   GLCCL_MPI_RANKS     "1 2 4" (the rank counts of mpi-strong and mpi-weak)
#   MPIRUN              the mpirun command (default: mpirun on PATH)
#   PYTHON              python3 (numpy: image generation and the report)
# and for a dry run elsewhere (llvmpipe, no CUDA):
#   GLCCL_BACKENDS      "cuda compute" (the GPU backends compared)
#   GLCCL_SIZE_DIVISOR  1 (every image side and tile side divided by it)
set -uo pipefail
usage="usage: run-huge.sh BUILD_DIR OUT_DIR [tests|exact50k|exact46k|io2d|io3d|bench16k|bench32k|bench65k|multi65k|memory65k|mpi-strong|mpi-weak|report|clean...]"
build=${1:?$usage}
out=${2:?$usage}
shift 2
steps=${*:-tests exact50k exact46k io2d io3d bench16k bench32k bench65k multi65k memory65k mpi-strong mpi-weak}
build=$(cd "$build" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
images=${GLCCL_HUGE_IMAGES:-/tmp/glccl-huge}
divisor=${GLCCL_SIZE_DIVISOR:-1}
side() { echo $(($1 / divisor)); }
benchTile=$(side "${GLCCL_BENCH_TILE:-16384}")
mpiTile=$(side "${GLCCL_MPI_TILE:-8192}")
mpiBackend=${GLCCL_MPI_BACKEND:-cuda}
mpiRanks=${GLCCL_MPI_RANKS:-1 2 4}
backends=${GLCCL_BACKENDS:-cuda compute}
cudaFirst=${backends%% *}  # the backend of memory65k
glccl=$build/tools/glccl
glcclMpi=$build/tools/glccl-mpi/glccl-mpi
mkdir -p "$out" "$images" || exit 1
out=$(cd "$out" && pwd)
jsonl=$out/bench.jsonl
logfile=$out/run-huge.log
status=0
# Progress on stderr (steps print bench.md on stdout), and into the log.
log() { echo "== $*" | tee -a "$logfile" >&2; }
fail() { log "FAILED: $*"; status=1; }

gpus=${GLCCL_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
[ "${gpus:-0}" -ge 1 ] 2>/dev/null || gpus=1
# Workers of the multi-GPU runs: one per GPU; with one GPU two workers share it.
allDevices=$(seq -s, 0 $((gpus - 1)))
[ "$gpus" -ge 2 ] || allDevices=0,0

# record STEP CASE JSON_FILE: one line of bench.jsonl
record() {
    local json
    json=$(tr -d '\n' < "$3")
    case $json in \[*) ;; *) json=null ;; esac
    printf '{"step": "%s", "case": "%s", "gpus": %d, "result": %s}\n' "$1" "$2" "$gpus" "$json" >> "$jsonl"
}
# recordIo STEP CASE IO_JSON RESULT_JSON: one line of bench.jsonl for a run
# timed against the I/O floor (bench/io_floor.py run)
recordIo() {
    local json
    json=$(tr -d '\n' < "$4")
    case $json in \[*) ;; *) json=null ;; esac
    printf '{"step": "%s", "case": "%s", "gpus": %d, "io": %s, "result": %s}\n' "$1" "$2" "$gpus" "$(cat "$3")" "$json" \
        >> "$jsonl"
}
# note STEP TEXT: a line of text in bench.jsonl (a check's verdict, a skip)
note() {
    "$python" -c 'import json, sys; print(json.dumps({"step": sys.argv[1], "note": sys.argv[2]}))' "$1" "$2" >> "$jsonl"
}
# peak PEAK_FILE COMMAND...: runs COMMAND (stdout kept), writes its peak
# resident memory in KiB (getrusage of the child: /usr/bin/time -v's
# "Maximum resident set size") to PEAK_FILE.
peak() {
    local file=$1
    shift
    "$python" -c '
import resource, subprocess, sys
status = subprocess.call(sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(status)' "$file" "$@"
}
# image FAMILY SIDE [HEIGHT]: the path of a generated image, made if missing
image() {
    local family=$1 width=$2 height=${3:-$2}
    local path=$images/${family}_${width}x$height.npy
    local bytes=$((width * height + 128))
    if [ ! -f "$path" ] || [ "$(stat -c %s "$path")" -lt "$bytes" ]; then
        log "making $path"
        rm -f "$path"
        "$python" "$here/make_huge_npy.py" "$family" "$width" "$height" "$path.part" >> "$logfile" 2>&1 &&
            mv "$path.part" "$path" || { fail "make_huge_npy.py $family $width $height"; return 1; }
    fi
    echo "$path"
}
# label STEP CASE INPUT ARGS...: glccl label --json --timing, recorded
label() {
    local step=$1 name=$2 input=$3
    shift 3
    log "$step: $name: glccl label $(basename "$input") $*"
    if "$glccl" label "$input" --json --timing --force "$@" > "$images/run.json" 2>> "$logfile"; then
        cat "$images/run.json" >> "$logfile"
        record "$step" "$name" "$images/run.json"
    else
        fail "$step: $name"
        return 1
    fi
}

exact() {  # exact STEP SIDE
    local step=$1 side=$2 input checks=()
    input=$(image noise45 "$side") || return
    for backend in $backends; do
        peak "$images/peak" "$glccl" label "$input" --backend "$backend" --devices "$allDevices" \
            --labels "$images/labels_$backend.npy" --stats "$images/stats_$backend.csv" --json --timing --force \
            > "$images/run.json" 2>> "$logfile" || { fail "$step: $backend"; continue; }
        log "$step: $backend on devices $allDevices, peak $(cat "$images/peak") KiB"
        cat "$images/run.json" >> "$logfile"
        record "$step" "$backend devices $allDevices peak_kib $(cat "$images/peak")" "$images/run.json"
        checks+=("$images/labels_$backend.npy" "$images/stats_$backend.csv")
    done
    if [ ${#checks[@]} -gt 0 ]; then
        log "$step: tiles_reference_check (the CPU reference on the whole image)"
        "$build/tiles/tiles_reference_check" "$input" "${checks[@]}" > "$images/check.txt" 2>&1 || status=1
        tee -a "$logfile" < "$images/check.txt" >&2
        while read -r line; do note "$step" "$line"; done < "$images/check.txt"
    fi
    rm -f "$input" "$images"/labels_*.npy "$images"/stats_*.csv
}

# generated FAMILY SIZE: the path of an image or volume (WxHxD) of glccl
# generate, made if missing
generated() {
    local family=$1 size=$2
    local path=$images/${family}_$size.npy
    if [ ! -f "$path" ]; then
        log "making $path"
        "$glccl" generate "$family" "$size" "$path.part.npy" >> "$logfile" 2>&1 &&
            mv "$path.part.npy" "$path" || { rm -f "$path.part.npy"; fail "glccl generate $family $size"; return 1; }
    fi
    echo "$path"
}

# referenceFits STEP ELEMENTS: whether this machine's memory holds the CPU
# reference of ELEMENTS elements (tiles_reference_check: 9 bytes an element,
# 13 past 2^32, and a tenth more for the rest); notes why not where it does not
referenceFits() {
    local step=$1 elements=$2 perElement=9 available
    [ "$elements" -le $((1 << 32)) ] || perElement=13
    available=$(awk '/^MemAvailable:/ { printf "%d", $2 * 1024 }' /proc/meminfo)
    if [ $((elements * perElement / 10 * 11)) -gt "${available:-0}" ]; then
        note "$step" "reference check not run: it needs $((elements * perElement >> 30)) GiB and this machine has $((${available:-0} >> 30)) GiB available"
        log "$step: the CPU reference does not fit this machine's memory: not checked"
        return 1
    fi
}

# io STEP INPUT LABEL_BYTES CHECK LIMIT ARGS...: the I/O floor of INPUT and
# its labels, then glccl label INPUT ARGS with each backend (the page cache
# dropped before each), timed against it, and the first backend again with
# --memory-limit LIMIT; the labels and tables of all compared; with CHECK
# "reference" the first run's also against the CPU reference. Each labels
# file is removed before the next run. A dry run (GLCCL_SIZE_DIVISOR) gives
# every run a limit of 256M, so that its small input goes in tiles too.
io() {
    local step=$1 input=$2 bytes=$3 check=$4 ioLimit=$5 first="" floor=$out/floor_$1.json dry=()
    shift 5
    [ "$divisor" -eq 1 ] || dry=(--memory-limit 256M)
    log "$step: I/O floor of $(basename "$input") and $bytes bytes of labels"
    "$python" "$here/io_floor.py" floor "$input" "$bytes" "$images" > "$floor" 2>> "$logfile" ||
        { fail "$step: io_floor.py floor"; return 1; }
    log "$step: floor $(cat "$floor")"
    for backend in $backends; do
        for limit in default "$ioLimit"; do
            [ "$limit" = default ] || [ "$backend" = "${backends%% *}" ] || continue
            local extra=("${dry[@]}") name="$backend"
            [ "$limit" = default ] || { extra=(--memory-limit "$limit"); name="$backend --memory-limit $limit"; }
            rm -f "$images/io_labels.npy" "$images/io_stats.csv"
            log "$step: $name: glccl label $(basename "$input") $* ${extra[*]}"
            "$python" "$here/io_floor.py" run "$floor" "$images/run.json" -- "$glccl" label "$input" \
                --backend "$backend" --labels "$images/io_labels.npy" --stats "$images/io_stats.csv" --json --timing \
                --force "$@" "${extra[@]}" > "$images/io.json" 2>> "$logfile" || { fail "$step: $name"; continue; }
            log "$step: $name: $(cat "$images/io.json")"
            cat "$images/run.json" >> "$logfile"
            recordIo "$step" "$name" "$images/io.json" "$images/run.json"
            local sum
            sum=$(sha1sum < "$images/io_labels.npy" | cut -d' ' -f1)$(sha1sum < "$images/io_stats.csv" | cut -d' ' -f1)
            if [ -z "$first" ]; then
                first=$sum
                if [ "$check" = reference ] && ! referenceFits "$step" $((bytes / 4)); then
                    :
                elif [ "$check" = reference ]; then
                    log "$step: tiles_reference_check (the CPU reference on the whole input)"
                    "$build/tiles/tiles_reference_check" "$input" "$images/io_labels.npy" "$images/io_stats.csv" \
                        "$@" > "$images/check.txt" 2>&1 || status=1
                    tee -a "$logfile" < "$images/check.txt" >&2
                    while read -r line; do note "$step" "$line"; done < "$images/check.txt"
                fi
            elif [ "$sum" = "$first" ]; then
                note "$step" "$name: labels and table identical to ${backends%% *}'s"
            else
                note "$step" "$name: labels or table DIFFER from ${backends%% *}'s"
                fail "$step: $name differs from ${backends%% *}"
            fi
        done
    done
    rm -f "$images/io_labels.npy" "$images/io_stats.csv"
}

bench() {  # bench STEP SIDE RUNS
    local step=$1 side=$2 runs=$3 input
    input=$(image noise50 "$side") || return
    for backend in $backends; do
        for ((i = 0; i < runs; ++i)); do
            # No --labels: the labeling and the relabel pass run, the 4 bytes a
            # pixel are not written (memory65k writes them).
            label "$step" "$backend 1 GPU" "$input" --backend "$backend" --devices 0 --tile "${benchTile}x$benchTile"
        done
    done
}

mpi() {  # mpi STEP "RANKS..." HEIGHT_PER_RANK (0: a fixed 32768^2 image)
    local step=$1 ranks=$2 perRank=$3 mpirun
    mpirun=${MPIRUN:-mpirun}
    if ! command -v "${mpirun%% *}" > /dev/null; then
        log "$step: mpirun is not on this machine (Open MPI's openmpi-bin is not installed): MPI scaling not measured"
        note "$step" "not run: no mpirun on this machine"
        return
    fi
    if [ ! -x "$glcclMpi" ]; then
        log "$step: $glcclMpi is missing (built where Open MPI is found): MPI scaling not measured"
        note "$step" "not run: no glccl-mpi in the build"
        return
    fi
    for n in $ranks; do
        local height=$((perRank == 0 ? $(side 32768) : $(side "$perRank") * n)) input
        input=$(image noise50 "$(side 32768)" "$height") || return
        if [ ! -f "$images/labels_mpi_reference.npy" ] || [ "$(cat "$images/labels_mpi_reference.for" 2>/dev/null)" != "$input" ]; then
            log "$step: glccl label $(basename "$input") --backend $mpiBackend: the labels each run is compared with"
            "$glccl" label "$input" --backend "$mpiBackend" --labels "$images/labels_mpi_reference.npy" --force \
                > /dev/null 2>> "$logfile" || { fail "$step: glccl label $(basename "$input")"; return; }
            echo "$input" > "$images/labels_mpi_reference.for"
        fi
        sync
        log "$step: mpirun -n $n glccl-mpi label $(basename "$input") --backend $mpiBackend --tile ${mpiTile}x$mpiTile"
        if OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 $mpirun --allow-run-as-root --oversubscribe -n "$n" \
                "$glcclMpi" label "$input" --backend "$mpiBackend" --tile "${mpiTile}x$mpiTile" \
                --labels "$images/labels_mpi.npy" --json --timing --force < /dev/null > "$images/run.json" 2>> "$logfile"; then
            cat "$images/run.json" >> "$logfile"
            record "$step" "$n ranks" "$images/run.json"
            same "$step" "$n ranks: labels of glccl-mpi and glccl label" \
                "$images/labels_mpi_reference.npy" "$images/labels_mpi.npy"
        else
            fail "$step: mpirun -n $n"
        fi
        rm -f "$images/labels_mpi.npy"
    done
    rm -f "$images/labels_mpi_reference.npy" "$images/labels_mpi_reference.for"
}

# same STEP WHAT FILE_A FILE_B: notes whether two label files are identical
# byte for byte (cmp); a difference or a missing file fails the run
same() {
    if cmp -s "$3" "$4"; then
        log "$1: $2: identical"
        note "$1" "$2: identical (cmp)"
    else
        fail "$1: $2 differ"
        note "$1" "$2: DIFFER"
    fi
}

for step in $steps; do
    start=$SECONDS
    case $step in
    tests)
        passed=0 failed=0 skipped=0
        while read -r name; do
            [ -n "$name" ] || continue
            "$build/tests/tiles_tests" "${name//,/\\,}" > "$images/test.txt" 2>&1
            case $? in
                0) passed=$((passed + 1)) ;;
                77) skipped=$((skipped + 1)); log "skipped: $name: $(grep -m1 SKIPPED "$images/test.txt")" ;;
                *) failed=$((failed + 1)); fail "tiles_tests: $name"; tail -30 "$images/test.txt" | tee -a "$logfile" >&2 ;;
            esac
        done < <("$build/tests/tiles_tests" --list-test-names-only)
        log "tiles_tests: $passed passed, $failed failed, $skipped skipped"
        note tests "tiles_tests: $passed passed, $failed failed, $skipped skipped"
        ;;
    exact50k) exact exact50k "$(side 50000)" ;;
    exact46k) exact exact46k "$(side 46341)" ;;
    io2d)
        width=$(side 40000) height=$(side 36000)
        input=$(generated noise50 "${width}x$height") || continue
        limit=4G
        [ "$divisor" -eq 1 ] || limit=128M
        io io2d "$input" $((width * height * 4)) reference "$limit"
        ;;
    io3d)
        edge=$(side 2048)
        input=$(generated balls "${edge}x${edge}x$edge") || continue
        limit=32G
        [ "$divisor" -eq 1 ] || limit=192M
        io io3d "$input" $((edge * edge * edge * 4)) reference "$limit" --connectivity 26
        ;;
    bench16k) bench bench16k "$(side 16384)" 3 ;;
    bench32k) bench bench32k "$(side 32768)" 1 ;;
    bench65k) bench bench65k "$(side 65536)" 1 ;;
    multi65k)
        input=$(image noise50 "$(side 65536)") || continue
        for backend in $backends; do
            # One worker on GPU 0, then one on every GPU, labels written by
            # both and compared byte for byte.
            for devices in 0 "$allDevices"; do
                sync  # the previous run's labels written back before this one starts
                label multi65k "$backend devices $devices" "$input" --backend "$backend" --devices "$devices" \
                    --tile "${benchTile}x$benchTile" --labels "$images/multi_$devices.npy"
            done
            same "multi65k" "$backend: labels of devices 0 and devices $allDevices" \
                "$images/multi_0.npy" "$images/multi_$allDevices.npy"
            rm -f "$images"/multi_*.npy
        done
        ;;
    memory65k)
        input=$(image noise50 "$(side 65536)") || continue
        spillLimit=$((4096 / divisor / divisor))M
        [ "$divisor" -eq 1 ] || spillLimit=64M
        for limit in default "$spillLimit"; do
            extra=()
            [ "$limit" = default ] || extra=(--memory-limit "$limit")
            peak "$images/peak" "$glccl" label "$input" --backend "$cudaFirst" --devices "$allDevices" "${extra[@]}" \
                --labels "$images/labels.npy" --stats "$images/stats.csv" --json --timing --force \
                > "$images/run.json" 2>> "$logfile" || { fail "memory65k: limit $limit"; continue; }
            log "memory65k: memory limit $limit: peak $(cat "$images/peak") KiB"
            cat "$images/run.json" >> "$logfile"
            record memory65k "limit $limit peak_kib $(cat "$images/peak")" "$images/run.json"
            rm -f "$images/labels.npy" "$images/stats.csv"
        done
        ;;
    mpi-strong) mpi mpi-strong "$mpiRanks" 0 ;;
    mpi-weak) mpi mpi-weak "$mpiRanks" 16384 ;;
    report) ;;
    clean) rm -rf "$images" ;;
    *) echo "run-huge.sh: unknown step '$step'; $usage" >&2; status=2; continue ;;
    esac
    log "$step: $((SECONDS - start)) s"
done

"$python" "$here/huge_report.py" "$jsonl" > "$out/bench.md" || status=1
cat "$out/bench.md"
exit $status
