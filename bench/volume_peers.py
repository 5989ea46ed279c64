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
cupyx's. One CSV row per family, size and connectivity:
family,side,connectivity,components,cupyx_median_ms,cupyx_min_ms.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("glccl", help="the glccl program (generates the volumes)")
    parser.add_argument("--sizes", default="512,1024", help="sides N of N^3 volumes (default 512,1024)")
    parser.add_argument("--families", default="noise30,blobs,balls,hilbert")
    parser.add_argument("--connectivity", default="6,26", help="6, 18 and/or 26 (default 6,26)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--csv", help="write the rows here too")
    args = parser.parse_args()

    import cupy
    import cupyx.scipy.ndimage as cnd
    import scipy.ndimage as nd

    rank = {"6": 1, "18": 2, "26": 3}
    rows = []
    with tempfile.TemporaryDirectory(prefix="glccl-volume-peers-") as scratch:
        for side in [int(s) for s in args.sizes.split(",")]:
            for family in args.families.split(","):
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
                    rows.append((family, side, connectivity, int(count), statistics.median(times), min(times)))
                    print(f"{family:8s} {side:5d}^3 c{connectivity:2s} {int(count):10d} components  "
                          f"cupyx {statistics.median(times):9.3f} ms", flush=True)
                del device
                cupy.get_default_memory_pool().free_all_blocks()
    if args.csv:
        with open(args.csv, "w") as out:
            out.write("family,side,connectivity,components,cupyx_median_ms,cupyx_min_ms\n")
            for row in rows:
                out.write(",".join(str(v) for v in row[:4]) + f",{row[4]:.4f},{row[5]:.4f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
