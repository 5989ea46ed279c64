#!/usr/bin/env python3
"""cupyx.scipy.ndimage.label on the volumes glccl bench labels, for the
comparison in docs/benchmarks.md.

    python3 bench/volume_peers.py GLCCL --sizes 512,1024 --connectivity 6,26 --csv peers.csv

Each volume family (noise30, blobs, balls, hilbert) is written by
`glccl generate FAMILY NxNxN` (seed 1, the volumes glccl bench generates),
copied to the GPU once, and labeled by cupyx with the structure of the
connectivity (scipy.ndimage.generate_binary_structure(3, 1) for 6, (3, 2) for
18, (3, 3) for 26), int32 labels. The device time is the median of --reps
calls between CUDA events, after one warm-up call; the component count is
cupyx's.

With --module-dir (the build's python/ folder, a module built with CUDA for
this python3), glccl.label(device, connectivity=C) on the same CuPy array is
timed too, end to end as a CuPy user calls it: wall time from the call to
its labels on the device, synchronized, median of --reps after a warm-up
call; and cupyx's call the same way. glccl's labels are compared with
cupyx's voxel for voxel (both number components in raster order of their
first voxel) and a difference is printed and makes the exit status 1.

One CSV row per family, size and connectivity:
family,side,connectivity,components,cupyx_median_ms,cupyx_min_ms
and with --module-dir also cupyx_wall_ms,glccl_wall_ms,identical.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("glccl", help="the glccl program (generates the volumes)")
    parser.add_argument("--sizes", default="512,1024", help="sides N of N^3 volumes (default 512,1024)")
    parser.add_argument("--families", default="noise30,blobs,balls,hilbert")
    parser.add_argument("--connectivity", default="6,26", help="6, 18 and/or 26 (default 6,26)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--csv", help="write the rows here too")
    parser.add_argument("--module-dir", help="also time glccl.label on the CuPy arrays, from this module folder")
    parser.add_argument("--volume-dir", help="take FAMILY_N.npy from this folder where it is there (the same volumes "
                        "glccl generate writes), instead of generating it again")
    args = parser.parse_args()
    glccl = None
    if args.module_dir:
        sys.path.insert(0, args.module_dir)
        import glccl

    import cupy
    import cupyx.scipy.ndimage as cnd
    import scipy.ndimage as nd

    def wall_ms(call, reps):
        """Median wall time of call() with the device synchronized after it."""
        call()
        cupy.cuda.Device().synchronize()
        walls = []
        for _ in range(reps):
            start = time.perf_counter()
            result = call()
            cupy.cuda.Device().synchronize()
            walls.append((time.perf_counter() - start) * 1e3)
            del result
        return statistics.median(walls)

    rank = {"6": 1, "18": 2, "26": 3}
    rows = []
    failures = 0
    with tempfile.TemporaryDirectory(prefix="glccl-volume-peers-") as scratch:
        for side in [int(s) for s in args.sizes.split(",")]:
            for family in args.families.split(","):
                kept = os.path.join(args.volume_dir, f"{family}_{side}.npy") if args.volume_dir else None
                if kept and os.path.exists(kept):
                    device = cupy.asarray(np.load(kept))
                else:
                    path = os.path.join(scratch, f"{family}_{side}.npy")
                    subprocess.run([args.glccl, "generate", family, f"{side}x{side}x{side}", path], check=True,
                                   stdout=subprocess.DEVNULL)
                    device = cupy.asarray(np.load(path))
                    os.remove(path)
                for connectivity in args.connectivity.split(","):
                    structure = cupy.asarray(nd.generate_binary_structure(3, rank[connectivity]))
                    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
                    labels, count = cnd.label(device, structure)  # warm-up: kernels compiled
                    del labels
                    times = []
                    for _ in range(args.reps):
                        start.record()
                        labels, count = cnd.label(device, structure)
                        stop.record()
                        stop.synchronize()
                        times.append(cupy.cuda.get_elapsed_time(start, stop))
                        del labels
                    row = (family, side, connectivity, int(count), statistics.median(times), min(times))
                    line = (f"{family:8s} {side:5d}^3 c{connectivity:2s} {int(count):10d} components  "
                            f"cupyx {statistics.median(times):9.3f} ms")
                    if glccl is not None:
                        expected = cnd.label(device, structure)[0]
                        ours, n = glccl.label(device, connectivity=int(connectivity))
                        identical = int(n) == int(count) and bool(cupy.array_equal(ours.astype(cupy.int64),
                                                                                   expected.astype(cupy.int64)))
                        del ours, expected
                        if not identical:
                            failures += 1
                            print(f"{family} {side}^3 c{connectivity}: glccl's labels differ from cupyx's "
                                  f"({n} against {int(count)} components)", flush=True)
                        cupyx_wall = wall_ms(lambda: cnd.label(device, structure), args.reps)
                        glccl_wall = wall_ms(lambda: glccl.label(device, connectivity=int(connectivity)), args.reps)
                        row += (cupyx_wall, glccl_wall, identical)
                        line += (f", end to end: cupyx {cupyx_wall:9.3f} ms, glccl {glccl_wall:9.3f} ms "
                                 f"({cupyx_wall / glccl_wall:.2f}x){'' if identical else ', DIFFERENT'}")
                    rows.append(row)
                    print(line, flush=True)
                del device
                cupy.get_default_memory_pool().free_all_blocks()
    if args.csv:
        with open(args.csv, "w") as out:
            out.write("family,side,connectivity,components,cupyx_median_ms,cupyx_min_ms" +
                      (",cupyx_wall_ms,glccl_wall_ms,identical" if glccl is not None else "") + "\n")
            for row in rows:
                extra = f",{row[6]:.4f},{row[7]:.4f},{int(row[8])}" if len(row) > 6 else ""
                out.write(",".join(str(v) for v in row[:4]) + f",{row[4]:.4f},{row[5]:.4f}" + extra + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
