#!/usr/bin/python3
"""Writes a large binary uint8 .npy image (0 / 255) band by band, so that
images past host memory can be made for tiled labeling and its benchmarks:

    make_huge_npy.py FAMILY WIDTH HEIGHT OUT.npy [--seed S]

FAMILY:
  noise<P>  each pixel foreground with probability P percent (noise45: near
            the 8-connected percolation threshold, one giant component
            winding through every tile and many small ones)
  waves     smooth stripes and blobs of every size (sums of sines with random
            phases), components that cross hundreds of tile borders
Deterministic for a seed: the same arguments give the same bytes.
"""
import sys

import numpy as np

BAND = 1024  # rows generated at once


def band_of(family, width, top, rows, seed):
    rng = np.random.default_rng([seed, top])
    if family.startswith("noise"):
        return rng.random((rows, width), dtype=np.float32) < float(family[5:]) / 100.0
    if family == "waves":
        y = np.arange(top, top + rows, dtype=np.float32)[:, None]
        x = np.arange(width, dtype=np.float32)[None, :]
        phases = np.random.default_rng(seed).random(6, dtype=np.float32) * 6.2832
        field = (np.sin(x / 97.0 + phases[0]) * np.sin(y / 131.0 + phases[1])
                 + 0.6 * np.sin((x + y) / 53.0 + phases[2])
                 + 0.4 * np.sin((x - 2 * y) / 211.0 + phases[3]))
        return field > 0.35
    raise SystemExit("make_huge_npy.py: unknown family '%s'; expected noise<P> or waves" % family)


def main(argv):
    if len(argv) < 5:
        raise SystemExit(__doc__)
    family, width, height, out = argv[1], int(argv[2]), int(argv[3]), argv[4]
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 1
    image = np.lib.format.open_memmap(out, mode="w+", dtype=np.uint8, shape=(height, width))
    for top in range(0, height, BAND):
        rows = min(BAND, height - top)
        image[top:top + rows] = band_of(family, width, top, rows, seed).astype(np.uint8) * 255
    image.flush()
    del image


if __name__ == "__main__":
    main(sys.argv)
