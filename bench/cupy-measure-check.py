"""glccl.cupyx's mean, maximum and center_of_mass against
cupyx.scipy.ndimage's on the same CuPy arrays: noise labels of scipy.ndimage.label
and an intensity, labels 1..K as index (K of --index-sizes; every label
with "all", which cupyx is timed for only with --cupyx-all: its sum and
mean kernels scan the index once per element), timed by CUDA events on CuPy's
current stream (device time, which includes what glccl waits for between
its passes) and by the wall clock (the call until its result is complete),
side by side, median of --repeats after one warm-up call; the results
compared with cupyx's (and, with --scipy, with scipy.ndimage's on host
copies). Prints a table; exits 1 where a result differs.

    PYTHONPATH=BUILD/python python3 bench/cupy-measure-check.py [--sizes 2048 8192] [--index-sizes 16 256 all]
        [--repeats 3] [--scipy] [--cupyx-all]

Intensities: int32 (measured on the GPU; one of the dtypes of cupyx's
atomic kernels, so that neither side takes a slow path) and float32 (which glccl.cupyx
measures on the host after one copy: its sums are double-double sums in
the host's order)."""

import argparse
import statistics
import sys
import time

import numpy as np
import scipy.ndimage as ndi


def timed(call, cupy, repeats):
    """(result, median device ms, median wall ms) of call()."""
    stream = cupy.cuda.get_current_stream()
    result = call()  # warm-up: kernels compiled, memory pools filled
    stream.synchronize()
    device, wall = [], []
    for _ in range(repeats):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        began = time.perf_counter()
        start.record(stream)
        result = call()
        stop.record(stream)
        stop.synchronize()
        wall.append((time.perf_counter() - began) * 1e3)
        device.append(cupy.cuda.get_elapsed_time(start, stop))
    return result, statistics.median(device), statistics.median(wall)


def as_host(value, cupy):
    if isinstance(value, (list, tuple)):
        return np.array([as_host(v, cupy) for v in value], dtype=float)
    return cupy.asnumpy(value) if isinstance(value, cupy.ndarray) else np.asarray(value)


def same(a, b, exact):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    if exact:
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2048, 8192])
    parser.add_argument("--index-sizes", nargs="+", default=["16", "256", "all"],
                        help="labels 1..K as index, or 'all' (every label)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scipy", action="store_true", help="compare with scipy.ndimage on host copies too")
    parser.add_argument("--cupyx-all", action="store_true",
                        help="time cupyx with every label as index too (its sum and mean kernels scan the index "
                             "once per element: hours for millions of labels)")
    arguments = parser.parse_args()

    import cupy
    import cupyx.scipy.ndimage as cupyx_ndimage

    import glccl
    import glccl.cupyx

    if not glccl.has_cuda:
        print("cupy-measure-check: the cuda backend does not run here", file=sys.stderr)
        return 2
    print(f"# glccl {glccl.__version__}, CuPy {cupy.__version__}, "
          f"{cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)['name'].decode()}")
    print()
    print("| size | regions | function | input | index | glccl device ms | glccl wall ms | cupyx device ms | "
          "cupyx wall ms | cupyx / glccl (wall) | same as |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    failed = False
    for side in arguments.sizes:
        rng = np.random.default_rng(side)
        labels, n = ndi.label(rng.random((side, side)) < 0.5)
        d_labels = cupy.asarray(labels)
        for input_name, values in (("int32", rng.integers(0, 65535, labels.shape, dtype=np.int32)),
                                   ("float32", rng.random(labels.shape, dtype=np.float32))):
            d_values = cupy.asarray(values)
            for size in arguments.index_sizes:
                count = n if size == "all" else min(int(size), n)
                index = cupy.arange(1, count + 1)
                for name in ("mean", "maximum", "center_of_mass"):
                    ours = getattr(glccl.cupyx, name)
                    got, ours_device, ours_wall = timed(lambda: ours(d_values, d_labels, index), cupy,
                                                        arguments.repeats)
                    exact = name == "maximum"
                    checked, equal = [], True
                    if size != "all" or arguments.cupyx_all:
                        theirs = getattr(cupyx_ndimage, name)
                        want, their_device, their_wall = timed(lambda: theirs(d_values, d_labels, index), cupy,
                                                               arguments.repeats)
                        equal = same(as_host(got, cupy), as_host(want, cupy), exact)
                        checked.append("cupyx")
                        timing = f"{their_device:.2f} | {their_wall:.2f} | {their_wall / ours_wall:.1f}x"
                    else:
                        timing = "- | - | -"
                    if arguments.scipy:
                        reference = getattr(ndi, name)(values, labels, np.arange(1, count + 1))
                        equal = equal and same(as_host(got, cupy), np.asarray(reference, dtype=float), exact)
                        checked.append("scipy")
                    failed = failed or not equal
                    verdict = (" and ".join(checked) if equal else "NOT " + " and ".join(checked)) if checked \
                        else "(unchecked)"
                    print(f"| {side}² | {n} | {name} | {input_name} | {count} | {ours_device:.2f} | "
                          f"{ours_wall:.2f} | {timing} | {verdict} |", flush=True)
            del d_values
        del d_labels
        cupy.get_default_memory_pool().free_all_blocks()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
