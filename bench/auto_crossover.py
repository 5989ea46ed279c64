#!/usr/bin/env python3
"""Where auto should leave the CPU engine for a GPU engine on host memory,
and whether it does: glccl.label(numpy image) timed with the cpu engine,
each GPU engine that runs here, and auto, on the families of `glccl
generate` from small to large, the same arrays for every backend.

    source .gl/prelude.sh && python3 bench/auto_crossover.py \\
        --glccl BUILD/tools/glccl --module-dir MODULE [--sizes 256,...] [--volumes 64,...]

Each cell is the median of --reps calls after one warm-up (the backends'
calls interleaved, in an order shuffled each round), of
glccl.label(image, backend=B) with a Labeler-free call as a user makes it
(a new label array each call). Prints, per family and size, the times, the
faster of cpu and the best GPU engine, what auto chose (glccl.Labeler's
last_backend for images; the backend that ran) and auto over the faster:
the router's rule (core/include/glccl/route.hpp, cpuPredictedFaster)
should keep that at or below 1.10. The last lines give
the smallest size from which the GPU engine is faster in every family:
the crossover to put in the router.

The router's rule for host memory compares two predicted times, each linear
in the elements and in the runs (row stretches that join along the row,
which the Session samples), the cpu engine's scaled by the thread count it
runs with (kCpuSerialFraction, Amdahl's law). The last lines fit those
constants to this run (least squares, each cell weighted by the inverse of
its faster time), for images and for volumes, in the form route.hpp
declares them, and say what auto over the faster would be under them.
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--glccl", required=True, help="the glccl command of the build (to generate the images)")
    parser.add_argument("--module-dir", help="folder holding the glccl module; default: the installed one")
    parser.add_argument("--sizes", default="256,512,768,1024,1448,2048,2896,4096,8192,16384")
    parser.add_argument("--families", default="noise50,sparse_disks,dense_disks,large")
    parser.add_argument("--volumes", default="32,48,64,96,128,192,256,384,512", help="cube sides of the volumes")
    parser.add_argument("--volume-families", default="noise30,balls")
    parser.add_argument("--connectivity", type=int, default=8)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--gpu", default="cuda,compute", help="the GPU engines to time")
    return parser.parse_args()


def generated(glccl, folder, family, size):
    path = os.path.join(folder, "%s_%s.npy" % (family, size))
    if not os.path.exists(path):
        subprocess.run([glccl, "generate", family, size, path], check=True, stdout=subprocess.DEVNULL)
    return np.load(path)


SERIAL_FRACTION = 0.04  # route.hpp's kCpuSerialFraction
MIN_ELEMENTS_PER_THREAD = 1 << 16  # cpu_labeler.hpp's kMinElementsPerThread


def runs_per_element(image):
    """Stretches of foreground along the rows (the last axis), per element."""
    foreground = image != 0
    starts = np.count_nonzero(foreground[..., 1:] & ~foreground[..., :-1]) + np.count_nonzero(foreground[..., 0])
    return starts / image.size


def fit(cells, threads):
    """route.hpp's HostCost constants for the cpu engine on one thread and for
    the GPU route, from cells (elements, runs, cpu ms, gpu ms)."""
    def used(elements):  # cpu::threadsFor
        return max(1, min(threads, elements // MIN_ELEMENTS_PER_THREAD))

    def scale(elements):
        return SERIAL_FRACTION + (1 - SERIAL_FRACTION) / used(elements)

    design = np.array([[1.0, e / 1e6, r / 1e6] for e, r, _, _ in cells])
    threaded = np.array([[1.0, scale(e) * e / 1e6, scale(e) * r / 1e6] for e, r, _, _ in cells])
    weight = np.array([1.0 / min(c, g) for _, _, c, g in cells])
    cpu = np.linalg.lstsq(threaded * weight[:, None], np.array([c for _, _, c, _ in cells]) * weight, rcond=None)[0]
    gpu = np.linalg.lstsq(design * weight[:, None], np.array([g for _, _, _, g in cells]) * weight, rcond=None)[0]
    cpu, gpu = np.maximum(cpu, 0), np.maximum(gpu, 0)
    worst = 1.0
    for (e, r, c, g), cpu_row, gpu_row in zip(cells, threaded, design):
        pick = c if cpu_row @ cpu < gpu_row @ gpu else g
        worst = max(worst, pick / min(c, g))
    return cpu, gpu, worst


def timed(glccl_module, image, backends, connectivity, reps):
    """Median ms of each backend, the calls interleaved (one of each backend
    per round, in an order shuffled each round) so that a drift of the
    machine's clock or load, and what one call leaves to the next (the cpu
    engine's threads asleep after a GPU call and awake after one of their
    own, the GPU switched between GL and CUDA), fall on all of them alike."""
    for backend in backends:
        glccl_module.label(image, connectivity, backend=backend)  # warm-up: engine, context, buffers
    times = {backend: [] for backend in backends}
    order = list(backends)
    shuffle = random.Random(len(backends) * 1000 + reps)
    for _ in range(reps):
        shuffle.shuffle(order)
        for backend in order:
            start = time.perf_counter()
            glccl_module.label(image, connectivity, backend=backend)
            times[backend].append((time.perf_counter() - start) * 1000.0)
    return {backend: statistics.median(values) for backend, values in times.items()}


def chosen(glccl_module, image, connectivity):
    """The backend auto runs for this image (a Labeler says, for 2-D)."""
    if image.ndim == 2:
        labeler = glccl_module.Labeler(connectivity)
        labeler.label(image)
        return labeler.last_backend
    return ""


def main():
    args = parse_args()
    if args.module_dir:
        sys.path.insert(0, args.module_dir)
    import glccl

    available = {row["name"] for row in glccl.backends() if row["available"]}
    gpus = [b for b in args.gpu.split(",") if b in available]
    rows = []
    crossover = {}
    cells = {"image": [], "volume": []}
    with tempfile.TemporaryDirectory() as folder:
        work = [(family, "%sx%s" % (s, s), args.connectivity) for s in args.sizes.split(",")
                for family in args.families.split(",")]
        work += [(family, "%sx%sx%s" % (s, s, s), 26) for s in args.volumes.split(",") if s
                 for family in args.volume_families.split(",")]
        for family, size, connectivity in work:
            image = generated(args.glccl, folder, family, size)
            times = timed(glccl, image, ["cpu"] + gpus + ["auto"], connectivity, args.reps)
            best_gpu = min(gpus, key=lambda b: times[b]) if gpus else None
            faster = min(times["cpu"], times[best_gpu]) if best_gpu else times["cpu"]
            ratio = times["auto"] / faster
            row = (family, size, times["cpu"], best_gpu or "-", times.get(best_gpu, float("nan")), times["auto"],
                   chosen(glccl, image, connectivity), ratio)
            rows.append(row)
            print("%-12s %-15s cpu %9.3f  %-7s %9.3f  auto %9.3f (%s)  auto/faster %.2f" % row, flush=True)
            kind = "volume" if "x" in size[size.index("x") + 1:] else "image"
            if best_gpu:
                cells[kind].append((image.size, image.size * runs_per_element(image), times["cpu"], times[best_gpu]))
            if best_gpu and times[best_gpu] < times["cpu"]:
                crossover.setdefault((kind, family), size)
    print()
    print("| family | size | cpu ms | best GPU | GPU ms | auto ms | auto ran | auto / faster |")
    print("|---|---|---:|---|---:|---:|---|---:|")
    for row in rows:
        print("| %s | %s | %.3f | %s | %.3f | %.3f | %s | %.2f |" % row)
    print()
    for (kind, family), size in sorted(crossover.items()):
        print("first %s size where the GPU engine was faster: %s %s" % (kind, family, size))
    worst = max(rows, key=lambda r: r[-1])
    print("worst auto / faster: %.2f (%s %s)" % (worst[-1], worst[0], worst[1]))
    threads = len(os.sched_getaffinity(0))
    for kind, found in cells.items():
        if len(found) < 3:
            continue
        cpu, gpu, worst = fit(found, threads)
        name = "Volume" if kind == "volume" else "Image"
        print("fitted on %d %ss, %d threads: kCpu%sCost{%.4f, %.4f, %.3f}, kGpu%sCost{%.4f, %.4f, %.3f}"
              " (ms, ms per million elements, ms per million runs); auto / faster under them at most %.2f"
              % (len(found), kind, threads, name, *cpu, name, *gpu, worst))


if __name__ == "__main__":
    main()
