#!/usr/bin/python3
"""The I/O floor of labeling a file into a labels file, measured on this
machine now, and runs timed against it:

    io_floor.py floor INPUT LABEL_BYTES FOLDER   > floor.json
    io_floor.py run FLOOR.json OUT.json -- COMMAND...

floor: reads INPUT once from the disk (the page cache dropped first, where
this process may: /proc/sys/vm/drop_caches as root), then writes LABEL_BYTES
bytes (random, so that no layer below compresses them) in 64 MiB writes into
a file in FOLDER, with fsync, and removes it. Prints one JSON object: the
seconds of each, their sum (the floor), and whether the cache was dropped.

run: drops the page cache as floor does, runs COMMAND (a labeling that
reads INPUT and writes its labels), and prints one JSON object: its wall
seconds, its peak resident memory (getrusage of the child), the floor's
figures and wall / floor. COMMAND's standard output (glccl label --json)
goes to OUT.json.
"""
import json
import os
import resource
import subprocess
import sys
import time

CHUNK = 64 << 20


def drop_page_cache():
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as control:
            control.write("3\n")
        return True
    except OSError:
        return False


def floor(path, label_bytes, folder):
    dropped = drop_page_cache()
    start = time.monotonic()
    with open(path, "rb", buffering=0) as source:
        block = bytearray(CHUNK)
        while source.readinto(block):
            pass
    read = time.monotonic() - start

    data = os.urandom(CHUNK)
    target = os.path.join(folder, ".io_floor.%d" % os.getpid())
    start = time.monotonic()
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        left = label_bytes
        while left > 0:
            left -= os.write(descriptor, data[:min(left, CHUNK)])
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
        os.unlink(target)
    write = time.monotonic() - start
    return {"input_bytes": os.path.getsize(path), "label_bytes": label_bytes, "read_s": round(read, 3),
            "write_fsync_s": round(write, 3), "floor_s": round(read + write, 3), "cache_dropped": dropped}


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
