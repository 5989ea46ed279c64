#!/usr/bin/env python3
"""glccl.dask.regionprops_table beside glccl.dask.label: the wall time of
labeling a volume alone, of labeling it and measuring the common properties
in one graph, and of measuring labels already held by the workers, on one
LocalCluster worker process (its chunks labeled by `auto`: a GPU engine
where the worker has one).

    python3 bench/dask_measure.py VOLUME.npy [--chunks N] [--threads T] [--connectivity C] [--tasks] [--json OUT.json]

VOLUME.npy: a volume from `glccl generate` (e.g. balls 2048x2048x2048). The
workers read their chunks from the .npy themselves (memory-mapped); the
intensity is a pattern made in each chunk ((x + 2y + 3z) mod 251, uint8),
so no array passes through the client; the time of making it alone is a
row of its own, as reading an intensity from storage would be. With
--tasks, each run's compute seconds are also listed by kind of task (from
distributed's task stream), the busiest first. The properties are the 3-D ones of
the common set: label, area, bbox, centroid, moments, moments_central,
inertia_tensor_eigvals, axis_major_length, axis_minor_length, euler_number,
intensity_mean, intensity_min, intensity_max. Checks: one row per
component, and the areas add up to the volume's foreground.

On the GPU machine, with the bundle of bench/py311-bundle.sh as for
bench/dask_gpus.py.
"""
import argparse
import json
import os
import time

import numpy as np
import dask.array as da
import distributed
from dask.utils import key_split

import glccl
import glccl.dask

PROPERTIES = ["label", "area", "bbox", "centroid", "moments", "moments_central", "inertia_tensor_eigvals",
              "axis_major_length", "axis_minor_length", "euler_number", "intensity_mean", "intensity_min",
              "intensity_max"]


def read_block(path, block_info=None):
    where = tuple(slice(a, b) for a, b in block_info[None]["array-location"])
    return np.ascontiguousarray(np.load(path, mmap_mode="r")[where])


def pattern_block(block_info=None):
    (z0, z1), (y0, y1), (x0, x1) = block_info[None]["array-location"]
    # Each axis's share of x + 2y + 3z modulo 251 first, then a plane at a
    # time in 16 bits: no temporary of the chunk's size in 64-bit integers
    # (which took 20 times as long).
    x = (np.arange(x0, x1) % 251).astype(np.uint16)
    y = (2 * np.arange(y0, y1) % 251).astype(np.uint16)
    z = (3 * np.arange(z0, z1) % 251).astype(np.uint16)
    plane = (y[:, None] + x[None, :]) % 251
    out = np.empty((z1 - z0, y1 - y0, x1 - x0), np.uint8)
    for k, share in enumerate(z):
        np.remainder(plane + share, 251, out=out[k], casting="unsafe")
    return out


def foreground_block(block):
    return np.array([np.count_nonzero(block)], np.int64).reshape((1,) * block.ndim)


def task_seconds(tasks):
    """{kind: [tasks, compute seconds]} of a task stream's records (the kind
    dask's key_split gives: the key's name less its token), the busiest
    first."""
    kinds = {}
    for task in tasks:
        kind = key_split(task["key"])
        for part in task.get("startstops", ()):
            if part["action"] == "compute":
                entry = kinds.setdefault(kind, [0, 0.0])
                entry[0] += 1
                entry[1] += part["stop"] - part["start"]
    return {k: [c, round(s, 2)] for k, (c, s) in sorted(kinds.items(), key=lambda kv: -kv[1][1])}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("volume")
    parser.add_argument("--chunks", type=int, default=512)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--connectivity", type=int, default=26)
    parser.add_argument("--tasks", action="store_true", help="each run's compute seconds by kind of task")
    parser.add_argument("--json")
    args = parser.parse_args()
    path = os.path.abspath(args.volume)
    volume = np.load(path, mmap_mode="r")
    chunks = da.core.normalize_chunks((args.chunks,) * 3, volume.shape)
    rows = []
    with distributed.LocalCluster(n_workers=1, threads_per_worker=args.threads, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        client.run(lambda: glccl.backends())  # each worker's engines started before the clocks
        image = da.map_blocks(read_block, path, chunks=chunks, dtype=volume.dtype,
                              meta=np.empty((0, 0, 0), volume.dtype))
        intensity = da.map_blocks(pattern_block, chunks=chunks, dtype=np.uint8, meta=np.empty((0, 0, 0), np.uint8))
        foreground = int(image.map_blocks(foreground_block, dtype=np.int64,
                                          chunks=tuple((1,) * len(c) for c in chunks)).sum().compute())

        def timed(name, run):
            with distributed.get_task_stream(client) as stream:
                t = time.perf_counter()
                result = run()
                rows.append({"run": name, "wall_s": round(time.perf_counter() - t, 2)})
            print(f"{name}: {rows[-1]['wall_s']:.2f} s", flush=True)
            if args.tasks:
                kinds = task_seconds(stream.data)
                rows[-1]["task_s"] = kinds
                for kind, (count, seconds) in kinds.items():
                    print(f"    {kind:44s} {count:6d} tasks {seconds:9.2f} s", flush=True)
            return result

        def label_alone():
            labels, n = glccl.dask.label(image, args.connectivity)
            labels, n = client.persist([labels, n])
            distributed.wait([labels, n])
            return labels, int(n.compute())

        timed("the intensity pattern alone (made and summed)", lambda: int(intensity.sum(dtype=np.int64).compute()))
        labels, n = timed("glccl.dask.label (labels persisted)", label_alone)
        table = timed(f"glccl.dask.regionprops_table of the held labels ({len(PROPERTIES)} properties)",
                      lambda: glccl.dask.regionprops_table(labels, intensity, PROPERTIES).compute())
        del labels

        def label_and_measure():
            labels, n = glccl.dask.label(image, args.connectivity)
            return glccl.dask.regionprops_table(labels, intensity, PROPERTIES).compute()

        again = timed("glccl.dask.label and regionprops_table in one graph", label_and_measure)
    ok = (len(table["label"]) == n and int(np.sum(table["area"])) == foreground
          and all(np.array_equal(table[k], again[k], equal_nan=True) for k in table))
    print(f"{n} components, {foreground} foreground voxels; one row each, areas add up, both tables equal: {ok}")
    print(f"label and measure / label alone: {rows[3]['wall_s'] / rows[1]['wall_s']:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "components": n, "checks": ok}, f, indent=1)


if __name__ == "__main__":
    main()
