#!/usr/bin/env python3
"""glccl.dask on one GPU and on every GPU of the machine: one worker process
per GPU (glccl.dask.gpu_cluster), the labels against `glccl label` on the
same .npy byte for byte, the wall time of each, the workers' devices, and
nvidia-smi's compute processes (each worker on its own GPU).

    python3 bench/dask_gpus.py VOLUME.npy GLCCL [GPU,...]

VOLUME.npy: a volume from `glccl generate` (e.g. balls 1024x1024x1024);
GLCCL: the glccl command; the GPUs default to 0 and 1. On the GPU machine
with the bundle of bench/py311-bundle.sh: after `bash bench/dask-device.sh
OUT env`, run it with the bundle's variables (`source /tmp/py311/env.sh
dask-carry`) and /tmp/py311/usr/bin/python3.11.
"""
import os
import subprocess
import sys
import time

import numpy as np
import dask.array as da
import distributed

import glccl
import glccl.dask


def main():
    volume_path, glccl_cli = sys.argv[1], sys.argv[2]
    all_gpus = [int(g) for g in (sys.argv[3] if len(sys.argv) > 3 else "0,1").split(",")]
    volume = np.load(volume_path, mmap_mode="r")
    array = da.from_array(volume, chunks=256)
    reference = volume_path + ".labels.npy"
    t = time.perf_counter()
    subprocess.run([glccl_cli, "label", volume_path, "--connectivity", "26", "--labels", reference, "--force"],
                   check=True, stdout=subprocess.DEVNULL)
    print(f"glccl label (.npy): {time.perf_counter() - t:.2f} s", flush=True)
    want = np.load(reference, mmap_mode="r")
    rows = []
    for gpus in (all_gpus[:1], all_gpus):
        with glccl.dask.gpu_cluster(gpus=gpus, threads_per_worker=8) as cluster, distributed.Client(cluster) as client:
            client.run(lambda: glccl.backends())  # start each worker's engines
            labels, n = glccl.dask.label(array, 26)
            t = time.perf_counter()
            labels, n = client.compute([labels, n], sync=True)
            wall = time.perf_counter() - t
            seen = client.run(lambda: (os.getpid(), os.environ.get("CUDA_VISIBLE_DEVICES")))
            try:
                apps = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,gpu_bus_id,used_memory",
                                       "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
            except OSError as error:
                apps = f"(nvidia-smi: {error})"
            same = bool(np.array_equal(labels, want))
            print(f"gpus {gpus}: {wall:.2f} s, {int(n)} components, identical to glccl label: {same}", flush=True)
            print(f"  workers (pid, CUDA_VISIBLE_DEVICES): {sorted(seen.values())}", flush=True)
            print("  nvidia-smi compute apps (pid, bus, memory):\n    " + apps.replace("\n", "\n    "), flush=True)


if __name__ == "__main__":
    main()
