#!/usr/bin/env bash
# The output contract of the command-line tools, from the outside: a run
# writes all of its outputs or none, never over an input or over something
# that is not a regular file, and leaves no temporary behind, whether it
# fails (a full disk, simulated by ulimit -f), is refused, or is ended by
# SIGINT, SIGTERM, SIGHUP or SIGPIPE. Also the limits and messages around
# outputs, and that glccl-mpi reads every input glccl label reads.
#
#   cli_outputs_test.sh GLCCL GLCCL_MPI|- SCRATCH [SECTION...]
#
# SECTION: transaction, identity, special, signals, leftovers, npy, limits,
# messages, mpi, mpi_inputs (all by default). Every case runs the cpu
# backend, so no GPU or GL context is needed. Signals are sent at a chosen
# point through the tools' test hooks GLCCL_TEST_PAUSE_BEFORE_COMMIT and
# GLCCL_TEST_PAUSE_IN_COMMIT (tools/cli_support). The mpi sections run
# glccl-mpi under mpirun -n 2 --oversubscribe and skip with a printed reason
# where mpirun or glccl-mpi is missing; where every section asked for was
# skipped the exit status is 77 (ctest's SKIP_RETURN_CODE), not 0. ctest runs
# each section as a test of its own (tests/CMakeLists.txt), so an mpi section
# that cannot run is listed as skipped and the others still run.
set -u
glccl=$1
mpi=$2
scratch=$3
shift 3
sections=${*:-transaction identity special signals leftovers npy limits messages mpi mpi_inputs}
data=$(cd "$(dirname "$0")/data" && pwd)

rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || exit 1
failures=0
ran=0
skipped=0
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect STATUS REGEX COMMAND...: the status and a line of the output.
expect() {
    local status=$1 pattern=$2
    shift 2
    local output code
    output=$("$@" 2>&1)
    code=$?
    if [ "$code" -ne "$status" ]; then
        fail "$* exited $code, expected $status"
        printf '%s\n' "$output" | sed 's/^/    /'
        return 1
    fi
    if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
        fail "$*: no line matches: $pattern"
        printf '%s\n' "$output" | sed 's/^/    /'
        return 1
    fi
    return 0
}

# no_temporaries FOLDER: no '.NAME.glccl-PID-N' is left in FOLDER.
no_temporaries() {
    local left
    left=$(find "${1:-.}" -maxdepth 1 -name '.*.glccl-*')
    if [ -n "$left" ]; then
        fail "temporaries left behind: $left"
        rm -f $left
        return 1
    fi
    return 0
}

# with_default_signals COMMAND...: runs COMMAND with SIGINT, SIGTERM, SIGHUP
# and SIGPIPE at their default action. A shell starts background jobs with
# SIGINT ignored, Python ignores SIGPIPE, and the tools keep a signal ignored
# that they start with ignored.
with_default_signals() {
    exec python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# signal_before_commit SIGNAL TRIES [WHERE]: waits (TRIES times 0.1 s at the
# most) for the run just started in the background ($!) to say in run.err
# that it pauses before its commit (WHERE "in": in its commit), sends it
# SIGNAL, and returns its exit status.
signal_before_commit() {
    local signal=$1 tries=$2 where=${3:-before} pid=$!
    for _ in $(seq "$tries"); do
        grep -q "test hook: pausing $where the commit" run.err 2>/dev/null && break
        sleep 0.1
    done
    # mpirun's ranks get the signal from it and may end after it: they are
    # waited for too, before the files are looked at.
    local family status
    family=$(descendants "$pid")
    kill -s "$signal" "$pid"
    # The run must end soon after the signal. One still there after 90 s is
    # reported with its processes and what it printed, then killed with its
    # descendants, rather than left to hold the test until its timeout.
    for _ in $(seq 900); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        # mpirun itself was seen to hang on a loaded machine after its ranks
        # had ended (they stay as zombies it never reaps): Open MPI's, not
        # glccl-mpi's. The run fails only while a process of ours still runs.
        if [ "$(ps -o comm= -p "$pid")" = mpirun ] && ! live_descendants "$pid"; then
            echo "note: mpirun outlived its ranks by 90 s after SIG$signal; killed"
        else
            fail "the run did not end within 90 s of SIG$signal"
            ps -o pid,ppid,stat,etime,args -p "$pid" $(descendants "$pid" | sed 's/^/-p /') 2>/dev/null
            cat run.err
        fi
        for victim in $(descendants "$pid") "$pid"; do kill -s KILL "$victim" 2>/dev/null; done
    fi
    wait "$pid"
    status=$?
    for child in $family; do
        for _ in $(seq 300); do
            kill -0 "$child" 2>/dev/null || break
            sleep 0.1
        done
    done
    return "$status"
}

# start_force_run HOOK=SECONDS MODE: 'keep' in s.csv and l.npy, then, in the
# background ($!), a --force run over them of mid.npy in one piece (MODE
# one) or in tiles (tiled), with the test hook HOOK and the signals at their
# default action; its output in run.out and run.err.
start_force_run() {
    echo keep > s.csv
    echo keep > l.npy
    local extra=""
    [ "$2" = tiled ] && extra="--tile 256"
    clear_run_output
    # shellcheck disable=SC2086
    (export "$1"; with_default_signals "$glccl" label mid.npy --backend cpu $extra --labels l.npy --stats s.csv \
        --force) >run.out 2>run.err &
}

# clear_run_output: empties run.out and run.err before a background run.
# The run's own redirections happen in the forked child, perhaps after
# signal_before_commit has already read run.err: without this, a previous
# run's "pausing" line there would send the signal too early.
clear_run_output() {
    : >run.out
    : >run.err
}

# descendants PID: the processes below PID, deepest first.
descendants() {
    local child
    for child in $(pgrep -P "$1"); do
        descendants "$child"
        echo "$child"
    done
}

# live_descendants PID: whether any process below PID has not ended (one
# that has ended and is not yet reaped is a zombie, state Z).
live_descendants() {
    local child
    for child in $(descendants "$1"); do
        case "$(ps -o stat= -p "$child" 2>/dev/null)" in
            Z* | "") ;;
            *) return 0 ;;
        esac
    done
    return 1
}

# mpi_runs SECTION: whether glccl-mpi can run here (else says why SECTION
# is skipped); mpirun refuses root without the variables it sets.
mpi_runs() {
    if [ "$mpi" = - ] || [ ! -x "$mpi" ]; then
        echo "skip: $1: glccl-mpi is not built"
        skipped=$((skipped + 1))
        return 1
    fi
    if ! command -v mpirun >/dev/null; then
        echo "skip: $1: mpirun is not installed"
        skipped=$((skipped + 1))
        return 1
    fi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

# same FILE TEXT: FILE still holds exactly TEXT.
same() {
    if [ "$(cat "$1" 2>/dev/null)" != "$2" ]; then
        fail "'$1' was changed or removed"
        return 1
    fi
    return 0
}

"$glccl" generate noise50 2000x2000 mid.npy >/dev/null || { echo "cannot generate mid.npy"; exit 1; }
"$glccl" generate spiral 40x30 small.png >/dev/null || exit 1

for section in $sections; do
    ran=$((ran + 1))
    case $section in
    transaction)
        # A full disk half-way through a --force run (the table fits, the
        # picture does not): every earlier output as it was, nothing new, no
        # temporary (issue 28, item 1).
        echo keep > s.csv
        echo keep > l.npy
        expect 1 "File too large" bash -c "trap '' XFSZ; ulimit -f 1000; exec \"\$0\" label mid.npy --backend cpu \
            --stats s.csv --color c.png --force" "$glccl" &&
            same s.csv keep && [ ! -e c.png ] && no_temporaries &&
            pass "a full disk leaves the files a --force run was to replace"
        expect 1 "File too large" bash -c "trap '' XFSZ; ulimit -f 1000; exec \"\$0\" label mid.npy --backend cpu \
            --labels l.npy --stats s.csv --force" "$glccl" &&
            same s.csv keep && same l.npy keep && no_temporaries &&
            pass "a full disk on the first output leaves every file"
        # The same for a tiled run, whose labels are streamed.
        expect 1 "File too large" bash -c "trap '' XFSZ; ulimit -f 1000; exec \"\$0\" label mid.npy --backend cpu \
            --tile 256 --labels l.npy --stats s.csv --force" "$glccl" &&
            same s.csv keep && same l.npy keep && no_temporaries &&
            pass "a full disk leaves the files a tiled --force run was to replace"
        # The same with SIGXFSZ at its default action, as a shell leaves it:
        # the tools ignore it, so the write fails with EFBIG and the run
        # cleans up rather than dies of the signal with its temporaries.
        for extra in "" "--tile 256"; do
            expect 1 "File too large" bash -c "ulimit -f 100; exec \"\$0\" label mid.npy --backend cpu $extra \
                --labels l.npy --stats s.csv --force" "$glccl" &&
                same s.csv keep && same l.npy keep && no_temporaries &&
                pass "ulimit -f without SIGXFSZ ignored (${extra:-one piece}): a write error, every file kept, no temporary"
        done
        # --force into a folder that takes no new file: refused before any
        # labeling, as without --force (the new file is written beside the
        # old one). Root writes anywhere: the run is made as nobody there.
        as_user=()
        if [ "$(id -u)" = 0 ]; then
            as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
        fi
        readonly_folder=$(mktemp -d) && chmod 755 "$readonly_folder" && cp mid.npy "$readonly_folder/in.npy" &&
            echo keep > "$readonly_folder/l.npy" && chmod 666 "$readonly_folder/l.npy" && chmod 555 "$readonly_folder"
        for extra in "" "--tile 256"; do
            expect 1 "cannot replace '$readonly_folder/l.npy': folder '$readonly_folder' is not writable" \
                "${as_user[@]}" "$glccl" label "$readonly_folder/in.npy" --backend cpu $extra \
                --labels "$readonly_folder/l.npy" --force &&
                same "$readonly_folder/l.npy" keep && no_temporaries "$readonly_folder" &&
                pass "--force into a read-only folder (${extra:-one piece}): refused before labeling"
        done
        chmod 755 "$readonly_folder" && rm -rf "$readonly_folder"
        # The outputs of a run that succeeds are all there.
        expect 0 "wrote s.csv" "$glccl" label small.png --backend cpu --labels l.npy --stats s.csv --color c.png \
            --force && [ -s l.npy ] && [ -s c.png ] && head -1 s.csv | grep -q '^label,' && no_temporaries &&
            pass "a run that succeeds commits every output"
        rm -f s.csv l.npy c.png
        ;;
    identity)
        # Two outputs that are one file, by any spelling (item 5).
        mkdir -p real && ln -sfn real link
        expect 2 "are one file" "$glccl" label small.png --backend cpu --color o.png --label-image ./o.png --force &&
            [ ! -e o.png ] && pass "two outputs, one by './': refused"
        expect 2 "are one file" "$glccl" label small.png --backend cpu --color real/o.png --label-image link/o.png \
            --force && [ ! -e real/o.png ] && pass "two outputs, one through a linked folder: refused"
        ln -sfn o.npy alias.csv
        expect 2 "are one file" "$glccl" label small.png --backend cpu --labels o.npy --stats alias.csv --force &&
            [ ! -e o.npy ] && pass "two outputs, one a link to the other: refused"
        # Over an input through '..' and a linked folder.
        cp small.png keep.png
        expect 2 "is the input" "$glccl" label small.png --backend cpu --color real/../small.png --force &&
            cmp -s small.png keep.png && pass "an output that is the input by '..': refused"
        cp mid.npy real/in.npy
        expect 2 "is the input" "$glccl" label real/in.npy --backend cpu --tile 512 --labels link/in.npy --force &&
            cmp -s mid.npy real/in.npy && pass "a tiled output that is the input through a link: refused"
        # bench --csv over the image it times (item 4).
        mkdir -p o
        expect 2 "is the input" "$glccl" bench small.png --backends cpu --csv ./o/../small.png --force &&
            cmp -s small.png keep.png && pass "bench --csv over its input: refused"
        rm -rf real link alias.csv o keep.png
        ;;
    special)
        # Only regular files are replaced, with or without --force (item 2).
        mkfifo pipe.csv
        for force in "" --force; do
            expect 1 "'pipe.csv' is a FIFO \(named pipe\); only a regular file is replaced" \
                timeout 20 "$glccl" label small.png --backend cpu --stats pipe.csv $force &&
                [ -p pipe.csv ] && pass "a FIFO output is refused ${force:-without --force}"
        done
        ln -sfn /dev/null null.csv
        expect 1 "is a symbolic link to a character device; only a regular file is replaced" \
            "$glccl" label small.png --backend cpu --stats null.csv --force &&
            [ -L null.csv ] && [ -c /dev/null ] && pass "a link to /dev/null is refused with --force"
        ln -sfn missing.csv dangling.csv
        expect 1 "is a symbolic link to a missing file" "$glccl" label small.png --backend cpu --stats dangling.csv \
            --force && [ -L dangling.csv ] && pass "a dangling link is refused"
        mkdir -p folder.csv
        expect 1 "is a directory" "$glccl" label small.png --backend cpu --stats folder.csv --force &&
            pass "a folder is refused"
        # A link to a regular file: the file is replaced, the link stays.
        echo old > target.csv && ln -sfn target.csv via.csv
        expect 0 "wrote via.csv" "$glccl" label small.png --backend cpu --stats via.csv --force &&
            [ -L via.csv ] && head -1 target.csv | grep -q '^label,' && no_temporaries &&
            pass "a link to a regular file: the file it names is replaced, the link kept"
        mkfifo pipe.png
        expect 1 "'pipe.png' is a FIFO \(named pipe\); only a regular file is replaced" \
            timeout 20 "$glccl" generate spiral 40x30 pipe.png --force && [ -p pipe.png ] &&
            pass "generate refuses a FIFO output"
        rm -rf pipe.csv pipe.png null.csv dangling.csv folder.csv target.csv via.csv
        ;;
    signals)
        # SIGINT, SIGTERM, SIGHUP before the commit: the earlier files as
        # they were, no temporary behind, the status of the signal (item 6).
        for signal in INT TERM HUP PIPE; do
            for mode in one tiled; do
                start_force_run GLCCL_TEST_PAUSE_BEFORE_COMMIT=20 "$mode"
                signal_before_commit "$signal" 300
                status=$?
                number=$(kill -l "$signal")
                if [ "$status" -ne $((128 + number)) ]; then
                    fail "SIG$signal ($mode): exit status $status, expected $((128 + number))"
                    cat run.err
                elif same s.csv keep && same l.npy keep && no_temporaries; then
                    pass "SIG$signal before the commit ($mode run) leaves the earlier files and no temporary"
                fi
            done
        done
        # SIGINT during the commit waits for its end: every output is
        # written, and the run says so before it ends with 130.
        for mode in one tiled; do
            start_force_run GLCCL_TEST_PAUSE_IN_COMMIT=3 "$mode"
            signal_before_commit INT 300 in
            status=$?
            if [ "$status" -ne 130 ]; then
                fail "SIGINT in the commit ($mode): exit status $status, expected 130"
                cat run.err
            elif ! grep -q "SIGINT arrived while the outputs took their names; every output was written first" run.err; then
                fail "SIGINT in the commit ($mode): no word that the outputs were written"
                cat run.err
            elif head -1 s.csv | grep -q '^label,' && [ "$(head -c 6 l.npy | tail -c 5)" = NUMPY ] && no_temporaries; then
                pass "SIGINT in the commit ($mode run): every output written, said so, status 130"
            else
                fail "SIGINT in the commit ($mode): the outputs are not the new ones"
            fi
        done
        # Started with SIGHUP ignored (nohup), the run ignores it and completes.
        rm -f nohup.csv
        clear_run_output
        (trap '' HUP; GLCCL_TEST_PAUSE_BEFORE_COMMIT=2 exec "$glccl" label small.png --backend cpu --stats nohup.csv) \
            >run.out 2>run.err &
        signal_before_commit HUP 300
        status=$?
        if [ "$status" -eq 0 ] && [ -s nohup.csv ] && no_temporaries; then
            pass "a SIGHUP ignored from the start (nohup) stays ignored"
        else
            fail "under nohup, SIGHUP ended the run (status $status)"
        fi
        rm -f s.csv l.npy run.out run.err nohup.csv
        ;;
    leftovers)
        # A SIGKILLed run's temporaries are removed by the next run, its
        # backups named (and kept).
        dead=$(sh -c 'echo $$')
        : > ".l.npy.glccl-$dead-0"
        echo earlier > ".s.csv.glccl-$dead-1.previous"
        expect 0 "removed '.l.npy.glccl-$dead-0', a temporary of an interrupted run" \
            "$glccl" label small.png --backend cpu --labels l.npy --stats s.csv --force &&
            [ ! -e ".l.npy.glccl-$dead-0" ] && pass "a dead run's temporary is removed and named"
        expect 0 "'.s.csv.glccl-$dead-1.previous' holds the earlier 's.csv'" \
            "$glccl" label small.png --backend cpu --labels l.npy --stats s.csv --force &&
            same ".s.csv.glccl-$dead-1.previous" earlier && pass "a dead run's backup is named and kept"
        rm -f l.npy s.csv ".s.csv.glccl-$dead-1.previous"
        ;;
    npy)
        # A header numpy would not write: two 'shape' keys (item 7).
        python3 - <<'EOF'
header = "{'descr': '|u1', 'fortran_order': False, 'shape': (77, 61), 'shape': (61, 77), }"
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
data = bytes((x * 7) % 2 for x in range(77 * 61))
with open("twice.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data)
EOF
        expect 1 "the key 'shape' twice in its header" "$glccl" label twice.npy --backend cpu &&
            pass "an .npy header with two 'shape' keys is refused"
        rm -f twice.npy
        ;;
    limits)
        # --tile 1x1 is raised to a size that makes progress (item 8).
        expect 0 "note: --tile 1x1 cuts the input into 4000000 pieces, too small to make progress; raised to 64x64" \
            "$glccl" label mid.npy --backend cpu --tile 1x1 --labels t.npy --force &&
            "$glccl" label mid.npy --backend cpu --labels r.npy --force >/dev/null && cmp -s t.npy r.npy &&
            pass "--tile 1x1 is raised with a note and labels as one piece does"
        # A FIFO as input is refused at once, not waited on.
        mkfifo in.png
        expect 1 "input 'in.png' is a FIFO \(named pipe\)" timeout 20 "$glccl" label in.png --backend cpu &&
            expect 1 "is a FIFO" timeout 20 "$glccl" label in.png --backend cpu --tile 64 &&
            pass "a FIFO input is refused without blocking"
        expect 1 "'/dev/zero' is a character device" timeout 20 "$glccl" label /dev/zero --backend cpu &&
            pass "/dev/zero is called a character device"
        expect 1 "reports a size of 0 bytes but has content" timeout 20 "$glccl" label /proc/self/status --backend cpu &&
            pass "a /proc file is not called empty"
        # --memory-limit bounds decoding: a small PNG of 16384^2 zeros.
        python3 - <<'EOF'
import struct, zlib
side = 16384
row = b"\0" * (side + 1)
compressor = zlib.compressobj(9)
data = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
with open("zeros.png", "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", data) + chunk(b"IEND", b""))
EOF
        expect 2 "decoded whole, its samples take 256 MiB, more than --memory-limit 64 MiB" \
            "$glccl" label zeros.png --backend cpu --memory-limit 64M &&
            pass "--memory-limit refuses a PNG whose decoding exceeds it"
        rm -f in.png zeros.png t.npy r.npy
        ;;
    messages)
        expect 2 "the memory limit of 1 KiB is too small" "$glccl" label mid.npy --backend cpu --memory-limit 1K &&
            pass "--memory-limit 1K is reported as 1 KiB"
        expect 2 "--devices: '0,,0' has an empty entry" "$glccl" label mid.npy --backend cpu --tile 64 --devices 0,,0 &&
            pass "--devices 0,,0 is refused"
        expect 2 "--tile: '16x16x16x16' is not a tile size; expected WxH, N \(a square\) or WxHxD" \
            "$glccl" label mid.npy --backend cpu --tile 16x16x16x16 &&
            pass "--tile of four sides is refused as a tile size, not as one of its parts"
        expect 2 "option --labels is given twice" "$glccl" label small.png --labels a.npy --labels b.npy &&
            expect 2 "option --stats is given twice" "$glccl" label small.png --stats a.csv --stats b.csv &&
            expect 2 "option --color is given twice" "$glccl" label small.png --color a.png --color b.png &&
            expect 2 "option --labels is given twice" "$glccl" label mid.npy --tile 64 --labels a.npy --labels b.npy &&
            pass "a repeated output option is refused"
        expect 2 "--labels 'x.png': the labels are written as .npy; give a name ending in .npy" \
            "$glccl" label small.png --labels x.png &&
            expect 2 "--color 'c.jpg': the colored labels are written as .png" "$glccl" label small.png --color c.jpg &&
            expect 2 "--stats 's.txt': the component table is written as .csv" "$glccl" label small.png --stats s.txt &&
            [ ! -e x.png ] && [ ! -e c.jpg ] && pass "an output name whose extension is not the format written is refused"
        # A TIFF too wide to read whole, whose one deflated strip the tiles
        # cannot read either: the strip is the reason given, not the width.
        python3 - <<'EOF'
import struct, zlib
width, height = 40000, 7000
compressor = zlib.compressobj(6)
row = bytes(width)
strip = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
directory = 8 + len(strip) + len(strip) % 2
entries = [(256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 8), (262, 3, 1), (273, 4, 8), (277, 3, 1),
           (278, 4, height), (279, 4, len(strip))]
with open("onestrip.tif", "wb") as f:
    f.write(b"II*\0" + struct.pack("<I", directory) + strip + b"\0" * (len(strip) % 2))
    f.write(struct.pack("<H", len(entries)))
    for tag, kind, value in entries:
        f.write(struct.pack("<HHIHH", tag, kind, 1, value, 0) if kind == 3 else struct.pack("<HHII", tag, kind, 1, value))
    f.write(struct.pack("<I", 0))
EOF
        expect 1 "its strips of 7000 rows of 40000 pixels decode to 280000000 bytes each" \
            "$glccl" label onestrip.tif --backend cpu && pass "a one-strip TIFF too large for both readers says why"
        rm -f onestrip.tif
        ;;
    mpi)
        mpi_runs mpi || continue
        run_mpi() { timeout 120 mpirun -n 2 --oversubscribe "$mpi" "$@"; }
        # glccl-mpi never writes over its input (item 3).
        cp mid.npy in.npy && mkdir -p sub
        for spelling in in.npy ./in.npy sub/../in.npy; do
            expect 2 "is the input" run_mpi label in.npy --backend cpu --labels "$spelling" --force &&
                cmp -s in.npy mid.npy && pass "glccl-mpi --labels $spelling over its input: refused"
        done
        ln -sfn q.npy q.csv
        expect 2 "are one file" run_mpi label in.npy --backend cpu --labels q.npy --stats q.csv --force &&
            [ ! -e q.npy ] && pass "glccl-mpi with two outputs that are one file: refused"
        mkfifo pipe.csv
        expect 1 "is a FIFO \(named pipe\); only a regular file is replaced" \
            timeout 60 mpirun -n 2 --oversubscribe "$mpi" label in.npy --backend cpu --stats pipe.csv --force &&
            pass "glccl-mpi refuses a FIFO output"
        # The options glccl label takes, parsed by the same rules.
        expect 2 "--tile: '16x16x16x16' is not a tile size" run_mpi label in.npy --backend cpu --tile 16x16x16x16 &&
            expect 2 "--devices: '0,,0' has an empty entry" run_mpi label in.npy --backend cpu --devices 0,,0 &&
            expect 2 "--memory-limit: '8Q' is not a memory size" run_mpi label in.npy --backend cpu --memory-limit 8Q &&
            pass "glccl-mpi refuses --tile, --devices and --memory-limit as glccl label does"
        expect 0 "wrote q2.npy" run_mpi label in.npy --backend cpu --labels q2.npy --force &&
            "$glccl" label in.npy --backend cpu --labels r.npy --force >/dev/null && cmp -s q2.npy r.npy &&
            pass "glccl-mpi still writes its labels"
        # A file past ulimit -f (a full disk to the writer): every rank's
        # short write is an error, exit 1, the earlier files kept. The limit
        # leaves room for Open MPI's own shared-memory files (4 MiB), not
        # for the labels (16 MB).
        echo keep > s.csv
        echo keep > l.npy
        expect 1 "cannot write 'l.npy' .*no space left on its device, or past a file size limit" \
            bash -c "ulimit -f 8192; exec timeout 120 mpirun -n 2 --oversubscribe \"\$0\" label in.npy --backend cpu \
            --labels l.npy --stats s.csv --force" "$mpi" &&
            same s.csv keep && same l.npy keep && no_temporaries &&
            pass "glccl-mpi past ulimit -f: a write error, every file kept, no temporary"
        # SIGTERM to mpirun before the commit: the earlier files as they
        # were, no temporary behind (rank 0 holds them until both are
        # complete).
        echo keep > s.csv
        echo keep > l.npy
        clear_run_output
        GLCCL_TEST_PAUSE_BEFORE_COMMIT=30 with_default_signals mpirun -n 2 --oversubscribe "$mpi" label in.npy --backend cpu \
            --labels l.npy --stats s.csv --force >run.out 2>run.err &
        signal_before_commit TERM 600
        if grep -q "^wrote" run.out; then
            fail "glccl-mpi went on past SIGTERM"
            cat run.out run.err
        elif same s.csv keep && same l.npy keep && no_temporaries; then
            pass "SIGTERM to mpirun before the commit leaves the earlier files and no temporary"
        fi
        rm -rf in.npy sub q.csv q.npy q2.npy r.npy pipe.csv s.csv l.npy run.out run.err
        ;;
    mpi_inputs)
        # glccl-mpi reads every input glccl label reads, with the same labels
        # (glccl label's cpu backend, the reference): PNG, JPEG, PGM, PPM, a
        # TIFF, a TIFF stack, .npy images, volumes and colour.
        mpi_runs mpi_inputs || continue
        python3 - <<'PYEOF'
import struct
def npy(path, descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data)
state = 7
def noise(count, levels):
    global state
    out = bytearray()
    for _ in range(count):
        state = (state * 1103515245 + 12345) % 2**31
        out.append((state >> 16) % levels * (250 // max(1, levels - 1)))
    return bytes(out)
npy("image.npy", "|u1", "(23, 31)", noise(23 * 31, 2))
npy("volume.npy", "|u1", "(6, 11, 13)", noise(6 * 11 * 13, 2))
npy("color.npy", "|u1", "(12, 17, 3)", noise(12 * 17 * 3, 3))
with open("gray.pgm", "wb") as f:
    f.write(b"P5 19 14 255\n" + noise(19 * 14, 3))
with open("rgb.ppm", "wb") as f:
    f.write(b"P6 15 9 255\n" + noise(15 * 9 * 3, 2))
PYEOF
        # TIFFs as glccl writes label images: a 32-bit page, a 32-bit stack.
        "$glccl" label small.png --backend cpu --label-image image.tif --force >/dev/null &&
            "$glccl" label volume.npy --backend cpu --label-image stack.tif --force >/dev/null || fail "cannot write the TIFFs"
        cp "$data/quadrants.jpg" photo.jpg
        for input in small.png photo.jpg gray.pgm rgb.ppm image.tif "stack.tif --criterion segments" \
                     "stack.tif --criterion segments --connectivity 6" image.npy volume.npy \
                     "volume.npy --connectivity 18" "color.npy --channel-axis -1 --criterion threshold:60" \
                     "rgb.ppm --criterion threshold:100"; do
            rm -f r.npy m.npy
            # shellcheck disable=SC2086
            if ! "$glccl" label $input --backend cpu --labels r.npy --force >r.out 2>&1; then
                fail "glccl label $input failed"
                cat r.out
                continue
            fi
            # shellcheck disable=SC2086
            if timeout 120 mpirun -n 2 --oversubscribe "$mpi" label $input --backend cpu --labels m.npy --force \
                    >m.out 2>&1 && cmp -s r.npy m.npy &&
                    [ "$(head -1 r.out | cut -d, -f1-2)" = "$(head -1 m.out | cut -d, -f1-2)" ]; then
                pass "glccl-mpi labels $input as glccl label does"
            else
                fail "glccl-mpi on $input differs from glccl label"
                head -3 r.out m.out
            fi
        done
        rm -f image.npy volume.npy color.npy gray.pgm rgb.ppm image.tif stack.tif photo.jpg r.npy m.npy r.out m.out
        ;;
    *)
        echo "unknown section $section"
        exit 2
        ;;
    esac
done

no_temporaries
if [ "$failures" -ne 0 ]; then
    echo "$failures failed"
    exit 1
fi
if [ "$skipped" -eq "$ran" ]; then
    echo "every section asked for was skipped"
    exit 77
fi
if [ "$skipped" -ne 0 ]; then
    echo "all passed; $skipped of $ran sections skipped"
else
    echo "all passed"
fi
