"""glccl.ndimage's measurements against scipy.ndimage's on labels of very many
tiny regions: scipy.ndimage.label of noise (rng.random(shape) < 0.3), an
intensity of random float64, index=np.arange(1, n + 1) and index=None.
Prints the best of `--repeats` runs of each, the speed-up over scipy, and
whether the results agree (within 1e-9).

    python3 bench/ndimage_vs_scipy.py [--sizes 2048 4096] [--threads 1 0]
"""
import argparse
import os
import time

import numpy as np
import scipy.ndimage as ndi

import glccl.ndimage as gnd

FUNCTIONS = ["sum_labels", "mean", "center_of_mass", "maximum"]


def best(f, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - t)
    return min(times), result


def agree(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 0],
                        help="glccl thread counts, as the cores it may run on (0: every core)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--functions", nargs="+", default=FUNCTIONS)
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    print(f"cores: {len(cores)}")
    for side in args.sizes:
        rng = np.random.default_rng(1)
        labels, n = ndi.label(rng.random((side, side)) < 0.3)
        image = rng.random((side, side))
        for form, index in (("index=arange", np.arange(1, n + 1)), ("index=None", None)):
            print(f"{side}x{side}, {n} regions, {form}")
            for name in args.functions:
                t_scipy, expected = best(lambda: getattr(ndi, name)(image, labels, index), args.repeats)
                line = f"  {name:15s} scipy {t_scipy * 1e3:8.1f} ms"
                for threads in args.threads:
                    # glccl.ndimage measures on every core the process may run on.
                    os.sched_setaffinity(0, cores[:threads] if threads else cores)
                    t, got = best(lambda: getattr(gnd, name)(image, labels, index), args.repeats)
                    os.sched_setaffinity(0, cores)
                    line += f" | t={threads}: {t * 1e3:8.1f} ms {t_scipy / t:5.2f}x {'ok' if agree(got, expected) else 'DIFFERS'}"
                print(line, flush=True)


if __name__ == "__main__":
    main()
