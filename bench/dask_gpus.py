#!/usr/bin/env python3
"""glccl.dask on one GPU and on every GPU of the machine: one worker process
per GPU (glccl.dask.gpu_cluster), the labels compared with `glccl label`'s on
the same .npy value for value, the wall time of each, the workers' devices, and
nvidia-smi's compute processes (each worker on its own GPU).

    python3 bench/dask_gpus.py VOLUME.npy GLCCL [GPU,...] [--chunks N] [--json OUT.json]

VOLUME.npy: a volume from `glccl generate` (e.g. balls 2048x2048x2048);
GLCCL: the glccl command; the GPUs default to 0 and 1; chunks default to 512
a side. The workers read their chunks from the .npy themselves (memory-mapped),
so no chunk passes through the client; the labels stay in the workers
(persisted) and each chunk is compared there with the same block of `glccl
label`'s labels. The wall time of a run is from the input's graph to the
labels persisted in the workers and the component count known.

On the GPU machine with the bundle of bench/py311-bundle.sh: after `bash
bench/dask-device.sh OUT env`, run it with the bundle's variables (`source
/tmp/py311/env.sh dask-carry`) and /tmp/py311/usr/bin/python3.11.
"""
import argparse
import json
import os
import subprocess
import time

import numpy as np
import dask.array as da
import distributed

import glccl
import glccl.dask


def read_block(path, block_info=None):
    """The block of the .npy at `path` that block_info locates (run in a worker)."""
    where = tuple(slice(a, b) for a, b in block_info[None]["array-location"])
    return np.ascontiguousarray(np.load(path, mmap_mode="r")[where])


def same_block(labels, path, block_info=None):
    """Whether a block of labels holds the values of the same block of the
    .npy at `path` (the dtypes may differ: glccl.dask fixes its labels' dtype
    before the count is known, uint64 past 2^32 elements)."""
    where = tuple(slice(a, b) for a, b in block_info[0]["array-location"])
    want = np.load(path, mmap_mode="r")[where]
    return np.full((1,) * labels.ndim, np.array_equal(labels, want))


def compute_apps():
    try:
        return subprocess.run(["nvidia-smi", "--query-compute-apps=pid,gpu_bus_id,used_memory",
                               "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except OSError as error:
        return f"(nvidia-smi: {error})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("volume")
    parser.add_argument("glccl")
    parser.add_argument("gpus", nargs="?", default="0,1")
    parser.add_argument("--chunks", type=int, default=512)
    parser.add_argument("--threads", type=int, default=16,
                        help="threads in all, shared by the workers, so that runs differ in GPUs only (default 16)")
    parser.add_argument("--every-first", action="store_true", help="run on every GPU first, then on one")
    parser.add_argument("--connectivity", type=int, default=26)
    parser.add_argument("--rounds", type=int, default=1,
                        help="times the pair of runs (one GPU, every GPU) is made, to see the order's effect")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    all_gpus = [int(g) for g in args.gpus.split(",")]
    volume = np.load(args.volume, mmap_mode="r")
    reference = args.volume + ".labels.npy"
    t = time.perf_counter()
    subprocess.run([args.glccl, "label", args.volume, "--connectivity", str(args.connectivity), "--labels", reference,
                    "--force"], check=True, stdout=subprocess.DEVNULL)
    os.sync()  # the reference's writeback is not charged to the first run
    rows = [{"run": "glccl label (.npy to .npy)", "wall_s": round(time.perf_counter() - t, 2)}]
    print(f"glccl label (.npy to .npy): {rows[0]['wall_s']:.2f} s", flush=True)
    chunks = (args.chunks,) * volume.ndim
    reference_dtype = str(np.load(reference, mmap_mode="r").dtype)
    pair = (all_gpus, all_gpus[:1]) if args.every_first else (all_gpus[:1], all_gpus)
    for gpus in pair * args.rounds:
        with glccl.dask.gpu_cluster(gpus=gpus, threads_per_worker=max(1, args.threads // len(gpus))) as cluster, \
                distributed.Client(cluster) as client:
            client.wait_for_workers(len(gpus))
            client.run(lambda: glccl.backends())  # start each worker's engines before the clock
            array = da.map_blocks(read_block, os.path.abspath(args.volume), chunks=da.core.normalize_chunks(
                chunks, volume.shape), dtype=volume.dtype, meta=np.empty((0,) * volume.ndim, volume.dtype))
            t = time.perf_counter()
            labels, n = glccl.dask.label(array, args.connectivity)
            labels, n = client.persist([labels, n])
            distributed.wait([labels, n])
            n = int(n.compute())
            wall = time.perf_counter() - t
            apps = compute_apps()
            seen = client.run(lambda: (os.getpid(), os.environ.get("CUDA_VISIBLE_DEVICES"), glccl.backends()))
            t = time.perf_counter()
            same = bool(labels.map_blocks(same_block, os.path.abspath(reference), dtype=bool,
                                          chunks=tuple((1,) * len(c) for c in labels.chunks)).all().compute())
            check_s = time.perf_counter() - t
            dtype = str(labels.dtype)
            del labels
        row = {"run": f"glccl.dask on GPUs {gpus}", "gpus": gpus, "threads_per_worker": max(1, args.threads // len(gpus)), "wall_s": round(wall, 2), "components": n,
               "identical_to_glccl_label": same, "dtype": dtype, "glccl_label_dtype": reference_dtype,
               "check_s": round(check_s, 1),
               "workers": sorted((pid, dev) for pid, dev, _ in seen.values()),
               "worker_backends": sorted({str(b) for _, _, b in seen.values()}), "nvidia_smi_apps": apps}
        rows.append(row)
        print(f"GPUs {gpus}: {wall:.2f} s, {n} components, the same values as glccl label's: {same} "
              f"({row['dtype']} against {reference_dtype}; checked in {check_s:.1f} s)", flush=True)
        print(f"  workers (pid, CUDA_VISIBLE_DEVICES): {row['workers']}", flush=True)
        print("  nvidia-smi compute apps while the labels were held (pid, bus, memory):\n    "
              + apps.replace("\n", "\n    "), flush=True)
    for a, b in zip(rows[1::2], rows[2::2]):
        one, every = (b, a) if args.every_first else (a, b)
        print(f"speed-up of {len(all_gpus)} GPUs over 1: {one['wall_s'] / every['wall_s']:.2f}x", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    os.remove(reference)


if __name__ == "__main__":
    main()
