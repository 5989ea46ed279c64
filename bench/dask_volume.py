#!/usr/bin/env python3
"""glccl.dask.label on a Zarr volume through a dask.distributed LocalCluster,
beside `glccl label` on the same volume as .npy and beside dask-image's
algorithm, for the figures of docs/benchmarks.md.

    python3 bench/dask_volume.py --volume balls_2048.npy --connectivity 26 --chunks 512 --workers 1 \\
        --out /scratch/dask --glccl build/tools/glccl --module-dir build/python

The volume (uint8 (D, H, W), from `glccl generate balls 2048x2048x2048
balls_2048.npy`) is written into OUT/volume.zarr in chunks of --chunks
(not timed). Then, each timed from start to end:

  glccl label     the command line: VOLUME.npy to OUT/reference.npy
                  (--labels), its wall time and peak RSS (the child's).
  glccl.dask      glccl.dask.label(da.from_zarr(OUT/volume.zarr)) written
                  with to_zarr into OUT/glccl.zarr, the count computed in the
                  same run, on a fresh LocalCluster of --workers processes;
                  then compared with reference.npy chunk by chunk, byte for
                  byte (values and dtype; the labels' dtype is asked to be
                  the reference's). Twice (--relabel): the chunks' labels
                  kept in memory between the passes (keep_labels=True), and
                  read and labeled again (keep_labels=False).
  dask-image      dask-image's algorithm, written out here: scipy.ndimage.label
                  per chunk with int32 labels offset by a serial sum of the
                  chunks' counts, the label pairs across every chunk face
                  (edges and corners through the faces' margins), ONE task
                  that joins all pairs (scipy.sparse.csgraph
                  .connected_components) into one relabeling table, and each
                  chunk relabeled through that table, into OUT/dask_image.zarr;
                  its components are checked to be the reference's (chunk by
                  chunk, the pairs of labels; its numbering is another).

Each Dask run gets its own cluster (no --memory-limit: Dask's default, the
machine's memory shared among the workers, spilling past it); each worker's
peak RSS is its process's ru_maxrss when the run ends. One table is printed,
and --json writes its rows.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def parse_chunks(text, ndim):
    sides = [int(side) for side in text.split(",")]
    return tuple(sides * ndim if len(sides) == 1 else sides)


def peak_rss():
    """This process's peak RSS, bytes: VmHWM, which starts again at exec
    (ru_maxrss keeps the parent's high-water mark across fork and exec, so
    a worker started late would report the parent's)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def worker_peaks(client):
    """Peak RSS of every worker process, bytes."""
    peaks = client.run(peak_rss)
    return [peaks[address] for address in sorted(peaks)]


def cluster(workers, threads):
    from distributed import Client, LocalCluster

    local = LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True, dashboard_address=None)
    return local, Client(local)


# ---- dask-image's algorithm ------------------------------------------------------------------------------

def scipy_label(block, structure):
    from scipy import ndimage

    labels, n = ndimage.label(block, structure, output=np.int32)
    return labels, n


def offset_labels(labeled, offset):
    labels, _ = labeled
    return np.where(labels > 0, labels + np.int32(offset), np.int32(0))


def pairs_across(region, axis, hops):
    """The label pairs joined across the middle of a 2-thick region along
    `axis` (its other sides carry a margin of one: edges and corners)."""
    low, high = region.take(0, axis=axis), region.take(1, axis=axis)
    found = []
    for offset in np.ndindex(*(3,) * low.ndim):
        offset = np.array(offset) - 1
        if np.count_nonzero(offset) + 1 > hops:
            continue
        a = tuple(slice(max(0, -o), side - max(0, o)) for o, side in zip(offset, low.shape))
        b = tuple(slice(max(0, o), side + min(0, o)) for o, side in zip(offset, low.shape))
        first, second = low[a].ravel(), high[b].ravel()
        both = (first != 0) & (second != 0)
        found.append(np.stack([first[both], second[both]], axis=1))
    return np.unique(np.concatenate(found), axis=0)


def relabel_block(block, table):
    return table[block]


def join_all(total, *pairs):
    """The one merge task: every pair, one sparse graph, one table."""
    from scipy import sparse
    from scipy.sparse import csgraph

    pairs = np.concatenate(pairs) if pairs else np.zeros((0, 2), np.int32)
    size = int(total) + 1
    graph = sparse.coo_matrix((np.ones(len(pairs), bool), (pairs[:, 0], pairs[:, 1])), shape=(size, size))
    count, components = csgraph.connected_components(graph, directed=False)
    order = np.arange(count)
    order[[0, components[0]]] = order[[components[0], 0]]  # the background's component first
    return order[components].astype(np.int32), count - 1


def dask_image_label(array, hops):
    import dask
    import dask.array as da
    from scipy import ndimage

    structure = ndimage.generate_binary_structure(array.ndim, hops)
    blocks = array.to_delayed()
    labeled = np.empty(blocks.shape, object)
    total = 0
    for index in np.ndindex(blocks.shape):
        result = dask.delayed(scipy_label)(blocks[index], structure)
        labeled[index] = da.from_delayed(dask.delayed(offset_labels)(result, total),
                                         tuple(c[i] for c, i in zip(array.chunks, index)), np.int32)
        total = dask.delayed(lambda t, r: t + r[1])(total, result)
    labels = da.block(labeled.tolist())
    pairs = []
    bounds = [np.cumsum((0,) + c) for c in array.chunks]
    for axis in range(array.ndim):
        for boundary in bounds[axis][1:-1]:
            others = [range(len(array.chunks[a])) if a != axis else [0] for a in range(array.ndim)]
            for index in np.ndindex(*[len(r) for r in others]):
                region = tuple(slice(boundary - 1, boundary + 1) if a == axis else
                               slice(max(0, bounds[a][i] - 1), min(array.shape[a], bounds[a][i + 1] + 1))
                               for a, i in enumerate(index))
                pairs.append(dask.delayed(pairs_across)(labels[region], axis, hops))
    joined = dask.delayed(join_all, nout=2)(total, *pairs)
    table, count = joined[0], joined[1]
    relabeled = labels.map_blocks(relabel_block, table, dtype=np.int32, meta=np.empty((0,) * array.ndim, np.int32))
    return relabeled, count


# ---- the runs -------------------------------------------------------------------------------------------

def write_zarr(volume_path, store, chunks):
    import dask.array as da

    volume = np.load(volume_path, mmap_mode="r")
    chunks = parse_chunks(chunks, volume.ndim)
    start = time.perf_counter()
    da.from_array(volume, chunks=chunks).to_zarr(store, overwrite=True, compute=True)
    return volume.shape, time.perf_counter() - start


def run_cli(glccl, volume, connectivity, reference):
    start = time.perf_counter()
    done = subprocess.run([glccl, "label", volume, "--connectivity", str(connectivity), "--labels", reference,
                           "--force", "--json"], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    summary = json.loads(done.stdout)[0]
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return {"method": "glccl label (.npy)", "wall_s": wall, "components": summary["components"],
            "backend": summary["backend"], "peaks": [peak], "identical": "reference"}


def run_on_cluster(args, method, labeling, source, target):
    """labeling(da.from_zarr(source)) -> (labels, n) written to `target`
    with the count computed in the same run, on a fresh LocalCluster."""
    import dask.array as da

    local, client = cluster(args.workers, args.threads_per_worker)
    try:
        start = time.perf_counter()
        labels, n = labeling(da.from_zarr(source))
        stored = labels.to_zarr(target, overwrite=True, compute=False)
        _, n = client.compute([stored, n], sync=True)
        wall = time.perf_counter() - start
        peaks = worker_peaks(client)
    finally:
        client.close()
        local.close()
    return {"method": method, "wall_s": wall, "components": int(n), "peaks": peaks}


def run_glccl_dask(args, source, target, dtype, keep_labels):
    import glccl.dask

    def labeling(volume):
        return glccl.dask.label(volume, connectivity=args.connectivity, dtype=dtype, keep_labels=keep_labels)

    method = "glccl.dask" + (" (kept)" if keep_labels else " (again)")
    return run_on_cluster(args, method, labeling, source, target)


def run_dask_image(args, source, target):
    hops = {6: 1, 18: 2, 26: 3}[args.connectivity]
    return run_on_cluster(args, "dask-image's algorithm", lambda volume: dask_image_label(volume != 0, hops),
                          source, target)


def zarr_chunks(labels):
    """The regions of a Zarr array's chunks."""
    grid = [range(0, side, chunk) for side, chunk in zip(labels.shape, labels.chunks)]
    for corner in np.ndindex(*[len(r) for r in grid]):
        yield tuple(slice(r[i], r[i] + c) for r, i, c in zip(grid, corner, labels.chunks))


def same_as_reference(store, reference):
    """The Zarr labels equal the .npy's, chunk by chunk: (equal, note)."""
    import zarr

    labels = zarr.open(store, mode="r")
    expected = np.load(reference, mmap_mode="r")
    if labels.shape != expected.shape or labels.dtype != expected.dtype:
        return False, f"{labels.shape} {labels.dtype} against {expected.shape} {expected.dtype}"
    for region in zarr_chunks(labels):
        if not np.array_equal(labels[region], expected[region]):
            return False, f"differs in the chunk at {tuple(s.start for s in region)}"
    return True, ""


def same_components(store, reference, n):
    """The Zarr labels are the .npy's components under another numbering:
    the pairs (reference label, label) seen chunk by chunk pair each of the
    n components with one label, and the other way round."""
    import zarr

    labels = zarr.open(store, mode="r")
    expected = np.load(reference, mmap_mode="r")
    pairs = []
    for region in zarr_chunks(labels):
        keys = expected[region].astype(np.uint64) << np.uint64(32) | labels[region].astype(np.uint64)
        pairs.append(np.unique(keys))
    pairs = np.unique(np.concatenate(pairs))
    pairs = pairs[pairs != 0]
    return (len(pairs) == n and len(np.unique(pairs >> np.uint64(32))) == n
            and len(np.unique(pairs & np.uint64(2**32 - 1))) == n and not np.any(pairs & np.uint64(2**32 - 1) == 0))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--volume", required=True, help="a uint8 .npy volume (D, H, W), e.g. from glccl generate")
    parser.add_argument("--connectivity", type=int, default=26, choices=(6, 18, 26))
    parser.add_argument("--chunks", default="256", help="Zarr and Dask chunk sides: N or D,H,W (default 256)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes of the LocalCluster (default 1)")
    parser.add_argument("--threads-per-worker", type=int, default=1)
    parser.add_argument("--out", required=True, help="folder for the Zarr stores and the reference labels")
    parser.add_argument("--glccl", default="build/tools/glccl", help="the glccl command (default build/tools/glccl)")
    parser.add_argument("--module-dir", help="the folder holding the glccl package (build/python), for this "
                        "process and the workers")
    parser.add_argument("--relabel", default="kept,again", help="glccl.dask runs: kept (keep_labels=True: the "
                        "chunks' labels wait in memory), again (keep_labels=False: read and labeled again); "
                        "default both")
    parser.add_argument("--skip-dask-image", action="store_true", help="leave dask-image's algorithm out")
    parser.add_argument("--json", help="write the rows here too")
    args = parser.parse_args()
    if args.module_dir:
        module_dir = os.path.abspath(args.module_dir)
        sys.path.insert(0, module_dir)
        # Workers are spawned: they import glccl through the environment.
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [module_dir, os.environ.get("PYTHONPATH")]))
    os.makedirs(args.out, exist_ok=True)
    source = os.path.join(args.out, "volume.zarr")
    reference = os.path.join(args.out, "reference.npy")

    # The command line first, while this process is small: its peak RSS is
    # the child's ru_maxrss, which starts at this process's.
    rows = [run_cli(args.glccl, args.volume, args.connectivity, reference)]
    shape, writing = write_zarr(args.volume, source, args.chunks)
    print(f"{args.volume}: {'x'.join(map(str, shape[::-1]))}, written to {source} in chunks of {args.chunks} "
          f"in {writing:.1f} s", flush=True)
    dtype = np.load(reference, mmap_mode="r").dtype.name
    print(f"glccl label: {rows[0]['wall_s']:.2f} s", flush=True)
    for way in args.relabel.split(","):
        rows.append(run_glccl_dask(args, source, os.path.join(args.out, "glccl.zarr"), dtype, way == "kept"))
        equal, note = same_as_reference(os.path.join(args.out, "glccl.zarr"), reference)
        rows[-1]["identical"] = "yes" if equal else f"NO: {note}"
        print(f"{rows[-1]['method']}: {rows[-1]['wall_s']:.2f} s", flush=True)
    if not args.skip_dask_image:
        rows.append(run_dask_image(args, source, os.path.join(args.out, "dask_image.zarr")))
        same = rows[-1]["components"] == rows[0]["components"] and same_components(
            os.path.join(args.out, "dask_image.zarr"), reference, rows[0]["components"])
        rows[-1]["identical"] = "renumbered" if same else "NO: other components"

    print(f"\n{args.connectivity}-connectivity, chunks {args.chunks}, {args.workers} worker(s) x "
          f"{args.threads_per_worker} thread(s)")
    print(f"{'method':<24} {'wall s':>8} {'components':>11}  {'labels':<12} peak RSS per worker, GiB")
    for row in rows:
        peaks = ", ".join(f"{peak / 2**30:.2f}" for peak in row["peaks"])
        print(f"{row['method']:<24} {row['wall_s']:>8.2f} {row['components']:>11}  {row['identical']:<12} {peaks}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"volume": args.volume, "connectivity": args.connectivity, "chunks": args.chunks,
                       "workers": args.workers, "rows": rows}, out, indent=1)
    return 0 if all(not str(row["identical"]).startswith("NO") for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
