#!/usr/bin/env bash
# Host-side wall time and memory of glccl on the GPU machine:
#
#   source .gl/prelude.sh && bash bench/wall-probe.sh BIN_DIR OUT_DIR
#
# BIN_DIR holds the glccl program and glccl_transfer_probe (both land in
# BUILD_DIR/tools of a build with -DGLCCL_BUILD_PROBES=ON, CUDA and
# -DCMAKE_CUDA_ARCHITECTURES=90);
# OUT_DIR is made if missing. In order:
#   1. glccl_transfer_probe at 8192² and 16384² (compute labels): the host copy
#      with 1-16 threads, every upload and download variant of
#      engine/src/transfer.hpp (plain; bands of 16/32/64 MiB, 2 or 3 buffers,
#      1/4/8 copy threads), every
#      download compared with the plain one, and whole OffscreenLabeler calls
#      (plain, default, fastest)                            -> probe.csv
#   2. peak host memory of `glccl label IMAGE --labels out.npy` on a 16384²
#      8-bit .npy, compute and cuda, plain transfers and the default ones
#      (python's getrusage of the child: ru_maxrss), and the resident memory
#      after each step of the same labeling (glccl_transfer_probe --memory)
#                                                           -> memory.csv, memory_steps.txt
#   3. glccl bench, compute and cuda, noise50 and sparse_disks at 8192² and
#      16384², with the default transfers and with GLCCL_TRANSFER=plain
#                                                           -> bench_default.csv, bench_plain.csv
#   4. glccl label FOLDER on 200 generated 2048² PNGs (--labels --stats into
#      a scratch folder), default and plain: the run's closing line splits
#      its wall time into reading, labeling, writing and other
#                                                           -> batch_default.txt, batch_plain.txt
#   5. the table below, printed last and kept in OUT_DIR/wall-probe.md.
# Everything printed is also in OUT_DIR/wall-probe.log. Scratch images and
# outputs (about 4 GB) go to OUT_DIR/scratch and are removed at the end.
#
# Settings (environment): WALL_PROBE_SIZES (8192,16384), WALL_PROBE_REPS (5),
# WALL_PROBE_MEMORY_SIZE (16384: the side of the image of step 2),
# WALL_PROBE_BATCH (200 images), WALL_PROBE_STEP_TIMEOUT (300 seconds a step),
# PYTHON (python3). Takes about 5 minutes.
set -uo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: $0 BIN_DIR OUT_DIR" >&2
    exit 2
fi
bin=$(cd "$1" && pwd) || exit 2
out=$2
glccl=$bin/glccl
probe=$bin/glccl_transfer_probe
for program in "$glccl" "$probe"; do
    if [ ! -x "$program" ]; then
        echo "wall-probe.sh: no $(basename "$program") in $bin (configure with -DGLCCL_BUILD_PROBES=ON, build glccl_cli and glccl_transfer_probe)" >&2
        exit 1
    fi
done
sizes=${WALL_PROBE_SIZES:-8192,16384}
reps=${WALL_PROBE_REPS:-5}
memory_size=${WALL_PROBE_MEMORY_SIZE:-16384}
batch=${WALL_PROBE_BATCH:-200}
step_timeout=${WALL_PROBE_STEP_TIMEOUT:-300}
python=${PYTHON:-python3}
mkdir -p "$out/scratch" || exit 1
out=$(cd "$out" && pwd)
scratch=$out/scratch
exec > >(tee "$out/wall-probe.log") 2>&1
failed=0
step() {
    echo "== $*"
    timeout "$step_timeout" "$@" || { echo "wall-probe.sh: step failed or timed out: $*"; failed=1; }
}
# Runs a command with the transfer mode $1: plain, or default (unset).
with_mode() {
    local mode=$1
    shift
    if [ "$mode" = default ]; then env -u GLCCL_TRANSFER "$@"; else env GLCCL_TRANSFER="$mode" "$@"; fi
}
unset GLCCL_TRANSFER_BAND_BYTES GLCCL_TRANSFER_BUFFERS GLCCL_COPY_THREADS
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader 2>/dev/null | sed 's/^/# gpu: /'
echo "# cpus: $(nproc), memory: $(free -g | awk '/Mem:/{print $2}') GiB"

# 1. The transfer variants.
echo "== glccl_transfer_probe --sizes $sizes --reps $reps"
timeout "$step_timeout" "$probe" --sizes "$sizes" --reps "$reps" --backend compute > "$out/probe.csv" ||
    { echo "wall-probe.sh: the probe failed or found a difference"; failed=1; }
grep -E '^(#|probe:)|^ *[0-9]+ +(copy|upload|download|wall|device) ' "$out/probe.csv"

# 2. Peak memory of one labeling from a file.
big=$scratch/noise50_$memory_size.npy
step "$glccl" generate noise50 "${memory_size}x$memory_size" "$big" --force
echo "backend,mode,peak_mib,status,side" > "$out/memory.csv"
: > "$out/memory_steps.txt"
for backend in compute cuda; do
    for mode in plain default; do
        rm -f "$scratch/labels.npy"
        peak=$(with_mode "$mode" "$python" -c '
import resource, subprocess, sys
status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print("%d,%d" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, status))' \
            "$glccl" label "$big" --backend "$backend" --labels "$scratch/labels.npy" --force)
        echo "$backend,$mode,$peak,$memory_size" | tee -a "$out/memory.csv"
        { echo "# $backend, GLCCL_TRANSFER=$mode"; with_mode "$mode" timeout "$step_timeout" \
            "$probe" --memory "$big" --backend "$backend"; } >> "$out/memory_steps.txt" 2>&1
    done
done
cat "$out/memory_steps.txt"

# 3. bench: wall time against device time and the transfer floor.
for mode in default plain; do
    echo "== glccl bench (GLCCL_TRANSFER=$mode)"
    with_mode "$mode" timeout "$step_timeout" "$glccl" bench --backends compute,cuda --families noise50,sparse_disks --sizes "$sizes" \
        --reps "$reps" --warmup 1 --csv "$out/bench_$mode.csv" --force || failed=1
done

# 4. A batch of 2048² PNGs.
mkdir -p "$scratch/batch" "$scratch/batch_out"
echo "== generating $batch images of 2048x2048"
families=(noise50 sparse_disks dense_disks large)
for ((i = 1; i <= batch; ++i)); do
    "$glccl" generate "${families[i % 4]}" 2048x2048 "$(printf '%s/batch/img_%04d.png' "$scratch" "$i")" \
        --seed "$i" --force > /dev/null || failed=1
done
for mode in default plain; do
    echo "== glccl label $batch images (GLCCL_TRANSFER=$mode)"
    rm -rf "$scratch/batch_out" && mkdir -p "$scratch/batch_out"
    with_mode "$mode" timeout "$step_timeout" "$glccl" label "$scratch/batch" --out-dir "$scratch/batch_out" \
        --labels --stats > "$out/batch_$mode.txt" 2>&1 || failed=1
    tail -n 1 "$out/batch_$mode.txt"
done
rm -rf "$scratch"

# 5. The table.
"$python" - "$out" > "$out/wall-probe.md" <<'EOF'
import csv, os, re, sys
out = sys.argv[1]

def rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [r for r in csv.reader(line for line in f if not line.startswith('#') and ',' in line)]

probe = [r for r in rows(os.path.join(out, 'probe.csv')) if r and r[0] != 'probe' and len(r) >= 6]
def probe_ms(kind, size, variant=None):
    cand = [r for r in probe if r[0] == kind and r[1] == size and (variant is None or r[2] == variant)]
    if not cand:
        return None, ''
    best = min(cand, key=lambda r: float(r[3]))
    return float(best[3]), best[2]

print('## Host transfers (glccl_transfer_probe, median ms)\n')
print('| size | what | plain | default | fastest | fastest variant |')
print('|---|---|---|---|---|---|')
for size in sorted({r[1] for r in probe}, key=int):
    for kind in ('upload', 'download', 'wall'):
        plain, _ = probe_ms(kind, size, 'plain')
        default, _ = probe_ms(kind, size, 'default') if kind == 'wall' else (None, '')
        best, variant = probe_ms(kind, size)
        fmt = lambda v: '%.2f' % v if v is not None else ''
        print('| %s² | %s | %s | %s | %s | %s |' % (size, kind, fmt(plain), fmt(default), fmt(best), variant))
    device, _ = probe_ms('device', size)
    copy1, _ = probe_ms('copy', size, '1 threads')
    copyb, cv = probe_ms('copy', size)
    if device is not None:
        print('| %s² | device (compute) | | | %.1f | |' % (size, device))
    if copy1 is not None:
        print('| %s² | host copy of the labels | %.1f (1 thread) | | %.1f | %s |' % (size, copy1, copyb, cv))

print('\n## glccl bench: wall against device time + transfer floor (ms)\n')
print('| backend | family | size | device | floor | wall plain | wall default | wall/(dev+floor) default | target 1.5 |')
print('|---|---|---|---|---|---|---|---|---|')
bench = {}
for mode in ('plain', 'default'):
    for r in rows(os.path.join(out, 'bench_%s.csv' % mode)):
        if len(r) > 11 and r[11] == 'total':
            bench.setdefault((r[0], r[1], r[2]), {})[mode] = r
for (backend, family, width), modes in sorted(bench.items(), key=lambda kv: (kv[0][0], kv[0][1], int(kv[0][2]))):
    d = modes.get('default') or modes.get('plain')
    device = float(d[5]); floor = float(d[10]) if d[10] else None
    wp = float(modes['plain'][9]) if 'plain' in modes else None
    wd = float(modes['default'][9]) if 'default' in modes else None
    ratio = wd / (device + floor) if wd is not None and floor is not None else None
    print('| %s | %s | %s² | %.2f | %s | %s | %s | %s | %s |' % (
        backend, family, width, device, '%.2f' % floor if floor is not None else '',
        '%.1f' % wp if wp is not None else '', '%.1f' % wd if wd is not None else '',
        '%.2f' % ratio if ratio is not None else '', ('met' if ratio <= 1.5 else 'missed') if ratio is not None else ''))

memory = [r for r in rows(os.path.join(out, 'memory.csv'))[1:] if len(r) >= 5 and r[2].isdigit()]
side = int(memory[0][4]) if memory else 16384
target = 1.1 * 5 * side * side / 2**20
print('\n## Peak host memory of glccl label on a %d² 8-bit .npy (--labels out.npy)\n' % side)
print('input %.0f MiB + labels %.0f MiB + 10 %% = %.0f MiB\n' % (side * side / 2**20, 4 * side * side / 2**20, target))
print('| backend | transfers | peak MiB | exit status | target %.0f |' % target)
print('|---|---|---|---|---|')
for r in memory:
    print('| %s | %s | %s | %s | %s |' % (r[0], r[1], r[2], r[3], 'met' if int(r[2]) <= target else 'missed'))

print('\n## Batch: glccl label FOLDER, 2048² PNGs, --labels --stats\n')
print('| transfers | closing line |')
print('|---|---|')
for mode in ('default', 'plain'):
    path = os.path.join(out, 'batch_%s.txt' % mode)
    if os.path.exists(path):
        lines = [l.strip() for l in open(path) if ' inputs, ' in l]
        print('| %s | %s |' % (mode, lines[-1] if lines else '(no closing line)'))
EOF
echo
cat "$out/wall-probe.md"
exit "$failed"
