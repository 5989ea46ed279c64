"""`glccl label` on .npy files of the dtypes numpy writes by default (int64,
float64, bool, big-endian, uint64 segment ids past 2^32) against scipy:
binary against scipy.ndimage.label, segments against scikit-image's label,
delta:D against connected components of the graph of nonzero neighbours
within D (scipy.sparse.csgraph), numbered in raster order; on every backend
that takes the file (cuda where it runs), and the refusals of values a
criterion cannot take.

    gl_npy_dtypes_cli.py GLCCL SCRATCH

Reports through cli_check.py."""

import os

import numpy as np
from scipy import ndimage, sparse
from scipy.sparse import csgraph
from skimage import measure

from cli_check import RANKS, CliCheck

check = CliCheck()
run, report = check.run, check.report


def raster_numbered(labels):
    """Renumbers components 1..N in raster order of their first element."""
    flat = labels.ravel()
    ids, first = np.unique(flat, return_index=True)
    order = [i for _, i in sorted((f, i) for i, f in zip(ids, first)) if i != 0]
    mapping = np.zeros(int(flat.max()) + 1, np.uint32)
    mapping[order] = np.arange(1, len(order) + 1, dtype=np.uint32)
    return mapping[labels]


def delta_labels(image, connectivity, delta):
    """cc3d's delta from its definition: nonzero elements, joined to every
    neighbour of the structure that is nonzero and within delta."""
    values = image.astype(object) if image.dtype.kind in "ui" and image.dtype.itemsize == 8 else image
    structure = ndimage.generate_binary_structure(image.ndim, RANKS[connectivity])
    index = np.arange(image.size).reshape(image.shape)
    rows, cols = [], []
    for offset in np.argwhere(structure) - 1:
        if not offset.any():
            continue
        a = tuple(slice(max(0, -o), image.shape[k] - max(0, o)) for k, o in enumerate(offset))
        b = tuple(slice(max(0, o), image.shape[k] - max(0, -o)) for k, o in enumerate(offset))
        va, vb = values[a], values[b]
        joined = (va != 0) & (vb != 0) & (np.abs(va - vb) <= delta) if values.dtype == object else \
            (va != 0) & (vb != 0) & (np.abs(va.astype(np.float64) - vb.astype(np.float64)) <= delta)
        joined = joined.astype(bool)
        rows.append(index[a][joined])
        cols.append(index[b][joined])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    graph = sparse.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(image.size, image.size))
    _, component = csgraph.connected_components(graph, directed=False)
    labels = np.where((image != 0).ravel(), component + 1, 0).reshape(image.shape)
    return raster_numbered(labels)


def expected_labels(image, criterion, connectivity):
    if criterion == "binary":
        labels, _ = ndimage.label(image != 0, ndimage.generate_binary_structure(image.ndim, RANKS[connectivity]))
        return labels.astype(np.uint32)
    if criterion == "segments":
        # scikit-image compares int64; uint64 ids are mapped to small ones first
        # (equal ids stay equal, different ones different).
        _, ids = np.unique(image, return_inverse=True)
        ids = ids.reshape(image.shape) + (1 if image.min() > 0 else 0)
        ids[image == 0] = 0
        return measure.label(ids, background=0, connectivity=RANKS[connectivity]).astype(np.uint32)
    return delta_labels(image, connectivity, int(criterion.split(":")[1]))


rng = np.random.default_rng(27)
above = 2 ** 32
# Segment ids past 2^32 whose low halves collide (1 and 2^32 + 1), values one
# apart across the halves' carry (2^32 - 1, 2^32), and 0 background.
centres = np.array([0, 1, above + 1, above - 1, above, 2 ** 62], dtype=np.int64)
ids = centres[rng.integers(0, len(centres), (37, 29))] + rng.integers(0, 2, (37, 29))
ids[ids == 1] = 0
volume_ids = centres[rng.integers(0, len(centres), (7, 13, 11))] + rng.integers(0, 3, (7, 13, 11))
small = rng.integers(0, 6, (41, 33))
files = {
    "i8.npy": (ids.astype("<i8"), ids),
    "i8_be.npy": (ids.astype(">i8"), ids),
    "u8.npy": (ids.astype("<u8"), ids),
    "u8_be.npy": (ids.astype(">u8"), ids),
    "f8.npy": (small.astype("<f8"), small),
    "f8_be.npy": (small.astype(">f8"), small),
    "bool.npy": ((small > 2), (small > 2).astype(np.int64)),
    "u2_be.npy": ((small * 300).astype(">u2"), small * 300),
    "i4_be.npy": ((small * 70000).astype(">i4"), small * 70000),
    "volume_i8.npy": (volume_ids.astype("<i8"), volume_ids),
}
for path, (array, _) in files.items():
    np.save(path, array)

# cuda where it runs (elsewhere it says that it cannot, and is left out).
probe = run("label", "f8.npy", "--backend", "cuda", "--labels", "l.npy", "--force")
report("cuda labels or says why it cannot run", probe.returncode == 0 or "cannot run here" in probe.stderr,
       probe.stderr)
backends = ["cpu", "compute", "raster"] + (["cuda"] if probe.returncode == 0 else [])
# One run of the command labels every file of a kind (the 2-D ones, the
# volume) into an output folder: a process and a GL context per criterion,
# connectivity and backend rather than per file as well.
images = [path for path, (array, _) in files.items() if array.ndim == 2]
volumes = [path for path, (array, _) in files.items() if array.ndim == 3]
for paths, connectivities in ((images, (4, 8)), (volumes, (6, 26))):
    volume = paths is volumes
    for criterion in ("binary", "segments", "delta:0", "delta:1", "delta:2"):
        for connectivity in connectivities:
            expected = {path: expected_labels(files[path][1], criterion, connectivity) for path in paths}
            # auto on the 2-D files: the backend it picks takes every dtype.
            for backend in backends + ([] if volume else ["auto"]):
                what = f"{criterion} {connectivity} {backend}"
                out = f"out {what}".replace(" ", "_").replace(":", "")
                os.makedirs(out)
                result = run("label", *paths, "--criterion", criterion, "--connectivity", str(connectivity),
                             "--backend", backend, "--out-dir", out, "--labels")
                if backend == "raster" and volume:
                    # Volumes are refused there, in one sentence.
                    report(f"{paths[0]} {what} refused",
                           result.returncode == 1 and "raster backend" in result.stderr, result.stderr)
                    continue
                report(f"{what} exit status", result.returncode == 0, result.stderr)
                for path in paths:
                    labels_path = os.path.join(out, path[:-len(".npy")] + "_labels.npy")
                    if not os.path.exists(labels_path):
                        report(f"{path} {what}", False, "no labels written")
                        continue
                    labels, values = np.load(labels_path), files[path][1]
                    report(f"{path} {what}", labels.shape == values.shape and np.array_equal(labels, expected[path]),
                           f"{int(labels.max())} components, expected {int(expected[path].max())}")

# Values a criterion cannot take: refused with the value and its position.
negative = np.zeros((3, 4), "<i8")
negative[2, 1] = -9
np.save("negative.npy", negative)
result = run("label", "negative.npy", "--criterion", "segments")
report("negative int64 refused", result.returncode == 1 and "the value -9 at [2, 1]" in result.stderr,
       result.stderr)
fraction = np.ones((2, 2, 3), ">f8")
fraction[1, 0, 2] = np.nan
np.save("nan.npy", fraction)
result = run("label", "nan.npy")
report("NaN in a volume refused", result.returncode == 1 and "nan at [1, 0, 2]" in result.stderr, result.stderr)
result = run("label", "f8.npy", "--criterion", "delta:256", "--backend", "compute")
report("delta:256 on 64-bit samples taken", result.returncode == 0, result.stderr)
np.save("u1.npy", small.astype(np.uint8))
result = run("label", "u1.npy", "--criterion", "delta:256")
report("delta past 8-bit samples refused", result.returncode == 1 and "the delta 256 is outside 0..255" in result.stderr,
       result.stderr)

check.finish()
