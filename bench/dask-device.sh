#!/usr/bin/env bash
# bench/dask_volume.py on the GPU machine, through the Python 3.11 that
# bench/py311-bundle.sh carries there (that machine's Python 3.12 has no Dask,
# distributed or Zarr, and nothing can be installed on it).
#
#     source .gl/prelude.sh && bash bench/dask-device.sh $OUT [STEP...]
#
# from the repository's root, with carry [".gl", "dask-carry"] (dask-carry from
# bench/py311-bundle.sh). Unpacks dask-carry/py311.tar.xz into /tmp/py311, then
# runs the steps in order, each under its own timeout, its output in OUT/STEP.log
# (each line with the time of day) and its rows in OUT/STEP.json; a table of the
# steps ends the output. Default steps: env small.
#
# Steps:
#   env        the bundle's Python: sys.executable, sys.path, where numpy, dask,
#              zarr and glccl come from, glccl.backends() in the main process and in a
#              LocalCluster worker, the shared libraries they mapped; df and memory
#   small      balls 256^3 (26, chunks 64) and noise30 256^3 (6, chunks 64): seconds
#   noise1024  noise30 1024^3, connectivity 6, chunks 256
#   balls2048  balls 2048^3, connectivity 26, chunks 512 (8 GiB in, 32 GiB of labels),
#              all four runs: likely past one call's 600 s (see Time)
#   balls2048-glccl       the same without dask-image's algorithm (--skip-dask-image)
#   balls2048-dask-image  glccl label, glccl.dask (kept) and dask-image's algorithm
#                         (--relabel kept): the rest of balls2048 in another call
#   FAMILY:SIZE:CONNECTIVITY:CHUNKS[:LIMIT_S]   any other, e.g. balls:1024x1024x1024:26:256:300
#
# Each volume step generates the volume with dask-carry/glccl into WORK, runs
# dask_volume.py on it (glccl label, glccl.dask kept and again, dask-image's
# algorithm, each checked against glccl label's labels) and removes WORK's files.
#
# Environment (all optional):
#   DASK_THREADS   threads of the one worker process (default 8: the numpy and Zarr
#                  work of 8 chunks at a time; the GPU labels one chunk at a time)
#   DASK_WORKERS   worker processes (default 1: one GPU)
#   DASK_ARGS      more arguments of dask_volume.py, e.g. "--skip-dask-image" or
#                  "--relabel kept"
#   DASK_WORK      folder for the volumes, Zarr stores and reference labels (default:
#                  /tmp/dask, or /dev/shm/dask where /tmp lacks the room a step needs)
#   DASK_BUDGET_S  total seconds for all the steps (default 540): a step's timeout is
#                  cut to what is left, and a step with under 20 s left is skipped
#   DASK_MEMORY    auto (default), spill or nospill. Dask sizes a worker's memory from
#                  MemTotal when the cluster starts; these machines report less at first
#                  (it grows as it is used), so a worker would spill to disk, pause or be
#                  killed well under the real 128 GiB. nospill sets Dask's worker memory
#                  target, spill, pause and terminate fractions to False (through the
#                  environment the workers inherit); auto does so where MemTotal < 100 GiB
#   DASK_CARRY     the bundle's folder (default dask-carry); PY311_ROOT where it is
#                  unpacked (default /tmp/py311)
#
# Each step runs under its own timeout; balls2048 whole outlasts one device
# command, so it comes in two steps (balls2048-glccl, balls2048-dask-image).
# dask_volume.py's checks run in its main process, on one thread
# (same_components: np.unique of every chunk; same_as_reference), and take
# longer than the labelings at 2048^3. dask_volume.py writes OUT/STEP.json at its end only; a step stopped at its
# limit shows the runs it finished in the table, from its log.
set -uo pipefail

OUT=${1:?usage: bash bench/dask-device.sh OUT [STEP...]}
shift
STEPS=("$@")
[[ ${#STEPS[@]} -gt 0 ]] || STEPS=(env small)
CARRY=$(cd "${DASK_CARRY:-dask-carry}" && pwd) || { echo "dask-device: no ${DASK_CARRY:-dask-carry} (bench/py311-bundle.sh makes it; carry it)" >&2; exit 2; }
ROOT=${PY311_ROOT:-/tmp/py311}
THREADS=${DASK_THREADS:-8}
WORKERS=${DASK_WORKERS:-1}
BUDGET=${DASK_BUDGET_S:-540}
REPO=$(pwd)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SUMMARY=()
T0=$SECONDS

MEM_GIB=$(awk '/^MemTotal/ {print int($2 / 1048576)}' /proc/meminfo)
case ${DASK_MEMORY:-auto} in
    nospill) NOSPILL=1 ;; spill) NOSPILL=0 ;; *) NOSPILL=$(( MEM_GIB < 100 ? 1 : 0 )) ;;
esac
if (( NOSPILL )); then
    for key in TARGET SPILL PAUSE TERMINATE; do export "DASK_DISTRIBUTED__WORKER__MEMORY__$key=False"; done
    echo "MemTotal $MEM_GIB GiB: Dask's worker memory thresholds off (DASK_MEMORY=${DASK_MEMORY:-auto})"
else
    echo "MemTotal $MEM_GIB GiB: Dask's default worker memory thresholds (the machine's memory)"
fi

stamp() { while IFS= read -r line; do printf '%(%T)T %s\n' -1 "$line"; done; }
left() { echo $((BUDGET - (SECONDS - T0))); }

# ---- unpack -------------------------------------------------------------------------------------
t=$SECONDS
if [[ ! -x $ROOT/usr/bin/python3.11 || $CARRY/py311.tar.xz -nt $ROOT/.unpacked ]]; then
    rm -rf "$ROOT" && mkdir -p "$ROOT" && tar -xJf "$CARRY/py311.tar.xz" -C "$ROOT" && touch "$ROOT/.unpacked" ||
        { echo "dask-device: could not unpack $CARRY/py311.tar.xz into $ROOT" >&2; exit 2; }
fi
echo "unpacked $CARRY/py311.tar.xz into $ROOT in $((SECONDS - t)) s"

# Runs its arguments with the bundle's variables (env.sh) in a subshell: this
# script's own tools keep the machine's libraries.
bundled() { (source "$ROOT/env.sh" "$CARRY" && export PYTHONUNBUFFERED=1 && "$@"); }

# ---- steps --------------------------------------------------------------------------------------
step_env() {
    local limit=$1
    echo "== machine"
    nvidia-smi -L 2>&1 | head -4
    nproc; free -g | head -2; df -h /tmp /dev/shm "$REPO" 2>&1
    echo "== bundle"
    cat "$ROOT/VERSIONS" | tr '\n' ' '; echo
    bundled bash -c 'echo "PYTHONHOME=$PYTHONHOME"; echo "PYTHONPATH=$PYTHONPATH"; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
        "$0/glccl" --version' "$CARRY"
    # A file, not stdin: the workers are spawned, and import the main module's file.
    cat > "$ROOT/env_check.py" <<'EOF'
import os, sys
import numpy, scipy, scipy.ndimage, scipy.sparse.csgraph, dask, dask.array, distributed, zarr, numcodecs
import glccl, glccl.dask

def maps():
    """The shared objects this process mapped."""
    found = set()
    with open("/proc/self/maps") as lines:
        for line in lines:
            path = line.split()[-1]
            if ".so" in path:
                found.add(path)
    return sorted(found)

def where():
    import dask, glccl, numpy, scipy.ndimage
    memory = {key: dask.config.get(f"distributed.worker.memory.{key}") for key in ("target", "spill", "pause", "terminate")}
    return {"memory": memory, "executable": sys.executable, "PYTHONPATH": os.environ.get("PYTHONPATH"),
            "LD_LIBRARY_PATH": os.environ.get("LD_LIBRARY_PATH"), "glccl": glccl.__file__,
            "backends": [b["name"] for b in glccl.backends() if b["available"]],
            "cuda": [b["reason"] for b in glccl.backends() if b["name"] == "cuda"], "maps": maps()}

def main():
    root = os.environ["PYTHONHOME"].rsplit("/usr", 1)[0]
    print("executable", sys.executable, sys.version.split()[0])
    print("sys.path", sys.path)
    leaks = [p for p in sys.path if p and not p.startswith(root)]
    for module in (numpy, scipy, dask, distributed, zarr, numcodecs, glccl):
        print(f"  {module.__name__} {getattr(module, '__version__', '')} {module.__file__}")
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as local, \
            Client(local) as client:
        worker = list(client.run(where).values())[0]
        limit = [w["memory_limit"] for w in client.scheduler_info()["workers"].values()][0]
    print(f"worker: memory limit {limit / 2**30:.1f} GiB, fractions {worker['memory']}")
    me = where()
    allowed = (root, sys.argv[1], "/tmp/glprefix", "/usr/local/nvidia")
    for who, seen in (("main", me), ("worker", worker)):
        print(f"{who}: executable {seen['executable']}, glccl {seen['glccl']}, backends {seen['backends']} {seen['cuda']}")
        system = [p for p in seen["maps"] if not p.startswith(allowed)]
        print(f"  libraries from the machine: {' '.join(os.path.basename(p) for p in system)}")
        print(f"  libraries from the bundle: {len(seen['maps']) - len(system)}")
    same = worker["executable"] == me["executable"] and worker["PYTHONPATH"].endswith(me["PYTHONPATH"])
    print("worker inherits the interpreter and the environment:", "yes" if same else "NO")
    print("sys.path outside the bundle:", leaks or "none")
    sys.exit(0 if same and not leaks else 1)


if __name__ == "__main__":
    main()
EOF
    bundled timeout -k 10 "$limit" "$ROOT/usr/bin/python3.11" "$ROOT/env_check.py" "$CARRY"
}

# step_volume NAME FAMILY SIZE CONNECTIVITY CHUNKS ARGS LIMIT_S (ARGS: more of dask_volume.py's)
step_volume() {
    local name=$1 family=$2 size=$3 connectivity=$4 chunks=$5 args=$6 limit=$7
    local voxels=1 side
    for side in ${size//x/ }; do voxels=$((voxels * side)); done
    # The .npy (1 byte a voxel), the reference labels (4), and the Zarr stores,
    # compressed: balls' next to nothing, noise's up to about 6 bytes a voxel
    # (the input, glccl.dask's labels, dask-image's), plus 1 GiB.
    local per=10
    [[ $family == balls ]] && per=5
    local need=$((voxels * per + (1 << 30))) work=${DASK_WORK:-}
    if [[ -z $work ]]; then
        for work in /tmp/dask /dev/shm/dask ""; do
            [[ -z $work ]] && break
            mkdir -p "$work" && (( $(df -B1 --output=avail "$work" | tail -1) >= need )) && break
        done
        [[ -n $work ]] || { echo "no folder with $((need >> 30)) GiB free (df: $(df -h /tmp /dev/shm | tr '\n' ' '))"; return 3; }
    fi
    mkdir -p "$work/$name"
    echo "$name: $family $size, connectivity $connectivity, chunks $chunks, in $work ($(df -h --output=avail "$work" | tail -1 | tr -d ' ') free), $WORKERS worker(s) x $THREADS threads"
    local volume=$work/$name.npy rc
    # shellcheck disable=SC2086
    bundled timeout -k 15 "$limit" bash -c '
        "$0/glccl" generate "$1" "$2" "$3" || exit
        ls -l "$3"
        exec "$PY311" bench/dask_volume.py --volume "$3" --connectivity "$4" --chunks "$5" --workers "$6" \
            --threads-per-worker "$7" --out "$8" --glccl "$0/glccl" --module-dir "$GLCCL_MODULE_DIR" --json "$9" ${10}' \
        "$CARRY" "$family" "$size" "$volume" "$connectivity" "$chunks" "$WORKERS" "$THREADS" "$work/$name" \
        "$OUT/$name.json" "$args ${DASK_ARGS:-}"
    rc=$?
    (( rc == 124 || rc == 137 )) && echo "$name: stopped at its limit of $limit s"
    du -sh "$work/$name"/* 2>/dev/null
    rm -rf "${work:?}/$name" "$volume"
    return $rc
}

# One line of a step's rows: method, wall seconds, checked against glccl label.
ROWS='
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
print("; ".join("%s %.1f %s" % (r["method"].replace("dask-image\x27s algorithm", "dask-image"), r["wall_s"], r["identical"])
                for r in rows))'

run_step() {
    local name=$1 limit=$2 rc
    shift 2
    local remaining
    remaining=$(left)
    if (( remaining < 20 )); then
        SUMMARY+=("$(printf '%-20s %8s %6s  %s' "$name" - - "skipped: $remaining s left of $BUDGET")")
        return
    fi
    (( limit > remaining )) && limit=$remaining
    local start=$SECONDS
    rm -f "$OUT/$name.json"
    echo "== $name (limit $limit s)"
    "$@" "$limit" 2>&1 | stamp | tee "$OUT/$name.log"
    rc=${PIPESTATUS[0]}
    local note=""
    if [[ -s $OUT/$name.json ]]; then
        note=$(bundled "$ROOT/usr/bin/python3.11" -c "$ROWS" "$OUT/$name.json")
    elif [[ $name != env ]]; then   # the runs that ended before the limit or the failure
        note="no rows; $(grep -E '^[0-9:]+ (glccl label|glccl.dask \(|wrote|.*written to)' "$OUT/$name.log" |
            sed -E 's/^[0-9:]+ //; s/^wrote .*/generated/; s/^.*written to .* in ([0-9.]+ s)$/zarr \1/' | tr '\n' ';')"
        note+=" then: $(grep -v -e '^[0-9:]* *$' -e $'\t' "$OUT/$name.log" | tail -1 | cut -c10-100)"
    fi
    SUMMARY+=("$(printf '%-20s %8d %6d  %s' "$name" $((SECONDS - start)) "$rc" "$note")")
}

for step in "${STEPS[@]}"; do
    case $step in
        env) run_step env 120 step_env ;;
        small)
            run_step small_balls 90 step_volume small_balls balls 256x256x256 26 64 ""
            run_step small_noise 90 step_volume small_noise noise30 256x256x256 6 64 "" ;;
        noise1024) run_step noise1024 400 step_volume noise1024 noise30 1024x1024x1024 6 256 "" ;;
        balls2048) run_step balls2048 540 step_volume balls2048 balls 2048x2048x2048 26 512 "" ;;
        balls2048-glccl)
            run_step balls2048-glccl 540 step_volume balls2048-glccl balls 2048x2048x2048 26 512 --skip-dask-image ;;
        balls2048-dask-image)
            run_step balls2048-dask-image 540 step_volume balls2048-dask-image balls 2048x2048x2048 26 512 "--relabel kept" ;;
        *:*:*:*)
            IFS=: read -r family size connectivity chunks limit <<< "$step"
            name=${family}_${size%%x*}_${connectivity}_${chunks//,/-}
            run_step "$name" "${limit:-540}" step_volume "$name" "$family" "$size" "$connectivity" "$chunks" "" ;;
        *) echo "dask-device: unknown step $step" >&2; SUMMARY+=("$(printf '%-20s %8s %6s  %s' "$step" - - unknown)") ;;
    esac
done

echo
echo "steps (OUT/STEP.log, OUT/STEP.json), $((SECONDS - T0)) s in all:"
printf '%-20s %8s %6s  %s\n' step "wall s" rc "method wall-s labels"
printf '%s\n' "${SUMMARY[@]}"
