#!/usr/bin/python3
"""The I/O floor of labeling a file into a labels file, measured on this
machine now, and runs timed against it:

    io_floor.py floor INPUT LABEL_BYTES FOLDER   > floor.json
    io_floor.py run FLOOR.json OUT.json -- COMMAND...

floor: reads INPUT once from the disk (the page cache dropped first, where
this process may: /proc/sys/vm/drop_caches as root), then writes LABEL_BYTES
bytes (random, so that no layer below compresses them) into a file in
FOLDER, with fsync, and removes it. Both run as a labeling can: several
threads (THREADS, default the smaller of 8 and the processor count), each
a contiguous share of the file in 64 MiB reads or writes at their offsets,
and the writers start each chunk's writeback as soon as it is written
(sync_file_range, where libc has it), so that the disk is kept busy rather
than the page cache filled and flushed at the end. Prints one JSON object:
the seconds of each, their sum (the floor), the threads, and whether the
cache was dropped.

run: drops the page cache as floor does, runs COMMAND (a labeling that
reads INPUT and writes its labels), and prints one JSON object: its wall
seconds, its peak resident memory (getrusage of the child), the floor's
figures and wall / floor. COMMAND's standard output (glccl label --json)
goes to OUT.json.
"""
import ctypes
import ctypes.util
import json
import os
import resource
import subprocess
import sys
import threading
import time

CHUNK = 64 << 20
THREADS = int(os.environ.get("THREADS", "0")) or min(8, os.cpu_count() or 1)
SYNC_FILE_RANGE_WRITE = 2


def drop_page_cache():
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as control:
            control.write("3\n")
        return True
    except OSError:
        return False


def start_writeback():
    """sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE) from libc,
    or a function that does nothing where there is none."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        call = libc.sync_file_range
        call.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    except (OSError, AttributeError):
        return lambda descriptor, offset, length: None
    return lambda descriptor, offset, length: call(descriptor, offset, length, SYNC_FILE_RANGE_WRITE)


def shares(total):
    """THREADS contiguous (offset, length) shares of `total` bytes, in whole chunks."""
    chunks = (total + CHUNK - 1) // CHUNK
    per = (chunks + THREADS - 1) // THREADS
    return [(i * per * CHUNK, min(total, (i + 1) * per * CHUNK) - i * per * CHUNK)
            for i in range(THREADS) if i * per * CHUNK < total]


def in_threads(work, parts):
    threads = [threading.Thread(target=work, args=part) for part in parts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def floor(path, label_bytes, folder):
    dropped = drop_page_cache()
    size = os.path.getsize(path)
    start = time.monotonic()
    source = os.open(path, os.O_RDONLY)
    try:
        def read_share(offset, length):
            block = bytearray(CHUNK)
            end = offset + length
            while offset < end:
                got = os.preadv(source, [memoryview(block)[:min(CHUNK, end - offset)]], offset)
                if got <= 0:
                    break
                offset += got
        in_threads(read_share, shares(size))
    finally:
        os.close(source)
    read = time.monotonic() - start

    data = os.urandom(CHUNK)
    writeback = start_writeback()
    target = os.path.join(folder, ".io_floor.%d" % os.getpid())
    start = time.monotonic()
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        def write_share(offset, length):
            end = offset + length
            while offset < end:
                count = os.pwrite(descriptor, memoryview(data)[:min(CHUNK, end - offset)], offset)
                writeback(descriptor, offset, count)
                offset += count
        in_threads(write_share, shares(label_bytes))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
        os.unlink(target)
    write = time.monotonic() - start
    return {"input_bytes": size, "label_bytes": label_bytes, "read_s": round(read, 3),
            "write_fsync_s": round(write, 3), "floor_s": round(read + write, 3), "threads": THREADS,
            "cache_dropped": dropped}


def run(floor_file, out_file, command):
    with open(floor_file) as text:
        measured = json.load(text)
    dropped = drop_page_cache()
    start = time.monotonic()
    with open(out_file, "w") as out:
        status = subprocess.call(command, stdout=out)
    wall = time.monotonic() - start
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = {"status": status, "wall_s": round(wall, 3), "peak_rss_gib": round(peak_kib / 2**20, 2),
              "floor_s": measured["floor_s"], "read_s": measured["read_s"],
              "write_fsync_s": measured["write_fsync_s"], "ratio": round(wall / measured["floor_s"], 2),
              "cache_dropped": dropped and measured["cache_dropped"]}
    print(json.dumps(result))
    return status


def main(argv):
    if len(argv) >= 5 and argv[1] == "floor":
        print(json.dumps(floor(argv[2], int(argv[3]), argv[4])))
        return 0
    if len(argv) >= 6 and argv[1] == "run" and argv[4] == "--":
        return run(argv[2], argv[3], argv[5:])
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
