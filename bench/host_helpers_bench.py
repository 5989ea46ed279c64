#!/usr/bin/env python3
"""The helpers on numpy label arrays against scipy and scikit-image, on one
2-D and one 3-D label array; optionally against another revision's
helpers.

    python3 bench/host_helpers_bench.py --module-dir BUILD/python [options]

The labels: scipy.ndimage.label of a mask of blobs (uniform noise smoothed
by scipy.ndimage.uniform_filter, size 5, then thresholded at 0.52:
components of every size), 8-connected in 2-D (default 1024x1024),
26-connected in 3-D (default 256x256x256), uint32; relabel is timed on
the same labels with their values shuffled (not in raster order). Each
helper is timed as

  glccl      the helper of this build
  baseline   the same helper of --baseline FILE, a glccl/_helpers.py of
             another revision (git show REV:python/glccl/_helpers.py >
             FILE) run with this build's module; its results must equal
             glccl's
  peer       scipy / scikit-image: relabel: skimage.segmentation.
             relabel_sequential (value order, not raster order);
             remove_small: skimage.morphology.remove_small_objects;
             keep_largest: numpy bincount, argsort and a mask;
             find_objects: scipy.ndimage.find_objects

Every time is the median of --reps calls after --warmup, in milliseconds.
Prints a Markdown table; a baseline result that differs is printed and
makes the exit status 1.
"""

import argparse
import importlib.util
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
    parser.add_argument("--baseline", help="a glccl/_helpers.py of another revision to time beside this one")
    return parser.parse_args()


def median_ms(run, reps, warmup):
    for _ in range(warmup):
        run()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def load_baseline(path):
    """The helpers of `path` as a module of the glccl package (their
    `from . import _glccl` finds this build's module)."""
    spec = importlib.util.spec_from_file_location("glccl._baseline_helpers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def same(a, b):
    if isinstance(a, list):
        return a == b
    return a[1] == b[1] and a[0].dtype == b[0].dtype and (a[0] == b[0]).all()


def main():
    args = parse_args()
    if args.module_dir:
        sys.path.insert(0, args.module_dir)
    import numpy as np
    from scipy import ndimage
    from skimage import morphology, segmentation

    import glccl
    baseline = load_baseline(args.baseline) if args.baseline else None

    def largest_mask(labels):
        counts = np.bincount(labels.ravel())
        counts[0] = 0
        keep = np.zeros(counts.shape, bool)
        keep[np.argsort(-counts, kind="stable")[: args.k]] = True
        return np.where((keep & (counts > 0))[labels], labels, 0)

    failed = False
    print("| labels | helper | glccl (ms) | baseline (ms) | scipy / scikit-image (ms) |")
    print("|---|---|---:|---:|---:|")
    for text, seed in ((args.image, 1), (args.volume, 2)):
        shape = tuple(int(side) for side in text.split("x"))
        rng = np.random.default_rng(seed)
        smooth = ndimage.uniform_filter(rng.random(shape, dtype=np.float32), size=5)
        labels, n = ndimage.label(smooth > 0.52, structure=np.ones((3,) * len(shape)))
        labels = labels.astype(np.uint32)
        shuffled = np.concatenate(([0], rng.permutation(n) + 1)).astype(np.uint32)[labels]
        cases = [
            ("relabel", lambda h: h.relabel(shuffled), lambda: segmentation.relabel_sequential(shuffled)),
            (f"remove_small {args.min_size}", lambda h: h.remove_small(labels, args.min_size),
             lambda: morphology.remove_small_objects(labels, args.min_size)),
            (f"keep_largest {args.k}", lambda h: h.keep_largest(labels, args.k), lambda: largest_mask(labels)),
            ("find_objects", lambda h: h.find_objects(labels), lambda: ndimage.find_objects(labels)),
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for index, (helper, run, peer) in enumerate(cases):
                mine = median_ms(lambda: run(glccl), args.reps, args.warmup)
                theirs = "—"
                if baseline is not None:
                    if not same(run(glccl), run(baseline)):
                        print(f"MISMATCH: {helper} on {text}: the baseline's result differs", file=sys.stderr)
                        failed = True
                    theirs = "%.2f" % median_ms(lambda: run(baseline), args.reps, args.warmup)
                first = f"{text}, {n} labels" if index == 0 else ""
                print(f"| {first} | {helper} | {mine:.2f} | {theirs} | "
                      f"{median_ms(peer, args.reps, args.warmup):.2f} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
