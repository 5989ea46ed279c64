#!/usr/bin/env python3
"""The helpers on device arrays against the same helpers on the host and
against what CuPy and scipy offer, on one 2-D and one 3-D label array.

    python3 bench/device_helpers_bench.py --module-dir BUILD/python [options]

The labels: glccl.label of a CuPy mask of blobs (uniform noise smoothed by
cupyx.scipy.ndimage.uniform_filter, then thresholded: components of every
size), 8-connected in 2-D (default 1024x1024), 26-connected in 3-D
(default 256x256x256), uint32; relabel is timed on the same labels with
their values shuffled (not in raster order). Each helper is then timed as

  glccl_cupy   the helper on the CuPy labels: the result on the device, m
               (or the boxes) on the host
  glccl_host   the same helper on a numpy copy of the labels
  cupy         the nearest CuPy expression on the device, synchronized:
               relabel: cupy.unique(labels, return_inverse=True) (value
               order, not raster order); remove_small (relabel=False) and
               keep_largest (relabel=False): cupy.bincount and a mask;
               find_objects: cupyx.scipy.ndimage.find_objects where this
               CuPy has it
  host_peer    scipy / scikit-image on the numpy copy:
               relabel: skimage.segmentation.relabel_sequential (value
               order); remove_small: skimage.morphology.
               remove_small_objects; keep_largest: numpy bincount and a
               mask; find_objects: scipy.ndimage.find_objects

Every time is the median of --reps calls after --warmup, in milliseconds,
wall clock around the call (device work included). Before timing, each
glccl_cupy result is checked against glccl_host's; a difference is
printed and makes the exit status 1. Prints a short table; --csv writes
every row.
"""

import argparse
import csv
import statistics
import sys
import time
import warnings


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--module-dir", help="folder holding the glccl module (the build's python/ folder)")
    parser.add_argument("--image", default="1024x1024", help="the 2-D labels' shape, HxW (default 1024x1024)")
    parser.add_argument("--volume", default="256x256x256", help="the 3-D labels' shape, DxHxW (default 256x256x256)")
    parser.add_argument("--min-size", type=int, default=64, help="remove_small's min_size (default 64)")
    parser.add_argument("--k", type=int, default=5, help="keep_largest's k (default 5)")
    parser.add_argument("--reps", type=int, default=7, help="timed calls per measurement (default 7)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed calls before them (default 2)")
    parser.add_argument("--csv", help="write every row to this CSV file")
    return parser.parse_args()


def median_ms(run, reps, warmup, sync=lambda: None):
    for _ in range(warmup):
        run()
    sync()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        sync()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def blob_labels(np, cupy, cupyx_ndimage, glccl, shape, seed):
    """glccl's labels of a mask of blobs of every size, on the device."""
    noise = cupy.asarray(np.random.default_rng(seed).random(shape, dtype=np.float32))
    smooth = cupyx_ndimage.uniform_filter(noise, size=5)
    labels, n = glccl.label(smooth > 0.52, connectivity=8 if len(shape) == 2 else 26)
    return labels, n


def main():
    args = parse_args()
    if args.module_dir:
        sys.path.insert(0, args.module_dir)
    import numpy as np
    import glccl
    try:
        import cupy
        import cupyx.scipy.ndimage as cupyx_ndimage
    except ImportError as error:
        print(f"device_helpers_bench: needs CuPy: {error}", file=sys.stderr)
        return 2
    from scipy import ndimage
    from skimage import morphology, segmentation

    sync = cupy.cuda.Device().synchronize
    failed = False
    rows = []
    for name, text, seed in (("image", args.image, 1), ("volume", args.volume, 2)):
        shape = tuple(int(side) for side in text.split("x"))
        labels, n = blob_labels(np, cupy, cupyx_ndimage, glccl, shape, seed)
        values = np.concatenate(([0], np.random.default_rng(seed).permutation(n) + 1)).astype(np.uint32)
        shuffled = cupy.asarray(values)[labels]
        host, host_shuffled = cupy.asnumpy(labels), cupy.asnumpy(shuffled)
        print(f"{name} {text}: {n} components", file=sys.stderr, flush=True)

        def bincount_mask(device, keep):
            counts = cupy.bincount(device.ravel())
            return cupy.where(keep(counts)[device], device, 0)

        def largest_mask(counts):
            counts = counts.copy()
            counts[0] = 0
            keep = cupy.zeros(counts.shape, bool)
            keep[cupy.argsort(-counts, kind="stable")[: args.k]] = True
            return keep & (counts > 0)

        def host_largest(array):
            counts = np.bincount(array.ravel())
            counts[0] = 0
            keep = np.zeros(counts.shape, bool)
            keep[np.argsort(-counts, kind="stable")[: args.k]] = True
            return np.where((keep & (counts > 0))[array], array, 0)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cases = [
                ("relabel", lambda: glccl.relabel(shuffled), lambda: glccl.relabel(host_shuffled),
                 lambda: cupy.unique(shuffled, return_inverse=True),
                 lambda: segmentation.relabel_sequential(host_shuffled)),
                (f"remove_small {args.min_size}", lambda: glccl.remove_small(labels, args.min_size),
                 lambda: glccl.remove_small(host, args.min_size),
                 lambda: bincount_mask(labels, lambda counts: counts >= args.min_size),
                 lambda: morphology.remove_small_objects(host, args.min_size)),
                (f"keep_largest {args.k}", lambda: glccl.keep_largest(labels, args.k),
                 lambda: glccl.keep_largest(host, args.k), lambda: bincount_mask(labels, largest_mask),
                 lambda: host_largest(host)),
                ("find_objects", lambda: glccl.find_objects(labels), lambda: glccl.find_objects(host),
                 (lambda: cupyx_ndimage.find_objects(labels)) if hasattr(cupyx_ndimage, "find_objects") else None,
                 lambda: ndimage.find_objects(host)),
            ]
            for helper, on_device, on_host, cupy_peer, host_peer in cases:
                got, want = on_device(), on_host()
                same = (got == want) if helper == "find_objects" else (
                    got[1] == want[1] and np.array_equal(cupy.asnumpy(got[0]), want[0]))
                if not same:
                    print(f"MISMATCH: {helper} on the {name}: the device result differs from the host helper's",
                          file=sys.stderr)
                    failed = True
                row = {"array": name, "shape": text, "components": n, "helper": helper,
                       "glccl_cupy": median_ms(on_device, args.reps, args.warmup, sync),
                       "glccl_host": median_ms(on_host, args.reps, args.warmup),
                       "cupy": median_ms(cupy_peer, args.reps, args.warmup, sync) if cupy_peer else None,
                       "host_peer": median_ms(host_peer, args.reps, args.warmup), "same": same}
                rows.append(row)
                print(f"  {helper}: done", file=sys.stderr, flush=True)

    def cell(value):
        return "—" if value is None else "%.2f" % value

    print("| array | helper | glccl on CuPy (ms) | glccl on numpy (ms) | CuPy expression (ms) | "
          "scipy/skimage (ms) | host/device |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        ratio = row["glccl_host"] / row["glccl_cupy"] if row["glccl_cupy"] else 0
        print(f"| {row['array']} {row['shape']} ({row['components']}) | {row['helper']}"
              f"{'' if row['same'] else ' MISMATCH'} | {cell(row['glccl_cupy'])} | {cell(row['glccl_host'])} | "
              f"{cell(row['cupy'])} | {cell(row['host_peer'])} | {ratio:.1f}x |")
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
