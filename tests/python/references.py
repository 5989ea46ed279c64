"""What the glccl tests compare against (scikit-image, and OpenCV where its
Python module imports), and which backends run here. Shared by the test files
of this folder (pytest puts the folder on sys.path: it has no __init__.py)."""

import os
import threading
import warnings

import numpy as np
import pytest
from skimage import measure, morphology

import glccl

try:
    import cv2
    WHY_NO_OPENCV = ""
except ImportError as error:  # the OpenCV tests are skipped with this reason
    cv2 = None
    WHY_NO_OPENCV = f"cv2 cannot be imported ({error}); tools/install-deps.sh installs python3-opencv"

AVAILABLE = {b["name"]: b for b in glccl.backends()}
# auto is the CPU reference on a software rasterizer; compute and raster are
# asked for by name so that the GL engines are exercised there too.
GL_BACKENDS = [name for name in ("compute", "raster") if AVAILABLE[name]["available"]]


def backend_params(names):
    """pytest parameters for backends, skipped with glccl's reason where one
    cannot run."""
    return [pytest.param(name, marks=pytest.mark.skipif(
        not AVAILABLE[name]["available"], reason=AVAILABLE[name]["reason"] or "unavailable"))
        for name in names]


BACKENDS = ["auto"] + backend_params(("compute", "raster"))
# Every backend that takes 16-, 32- and 64-bit samples: all of them.
DEEP_BACKENDS = backend_params(("cpu", "compute", "raster", "cuda"))
# Every backend by name: cpu, the GL engines (llvmpipe in CI) and cuda (skipped
# with its reason where there is no GPU or no CUDA build).
EVERY_BACKEND = backend_params(("cpu", "raster", "compute", "cuda"))
TABLE_COLUMNS = ("label", "left", "top", "width", "height", "area", "centroid_x", "centroid_y")


def skimage_labels(image, connectivity, segments=False, level=0):
    """scikit-image's labeling of what glccl sees: foreground = above `level`
    (nonzero by default), or equal-valued neighbours for segments (0
    background in both). Values are compared exactly, in int64 or uint64."""
    conn = 1 if connectivity == 4 else 2
    values = np.asarray(image)
    values = values.astype(np.uint64 if values.dtype == np.uint64 else np.int64)
    source = values if segments else (values > level)
    labels, n = measure.label(source, background=0, connectivity=conn, return_num=True)
    return labels, n


def skimage_table(labels):
    """The component table of a labeling, in glccl's columns, from
    scikit-image's regionprops (row i describes label i + 1)."""
    props = measure.regionprops(np.asarray(labels, dtype=np.int64))
    assert [p.label for p in props] == list(range(1, len(props) + 1))
    boxes = np.array([p.bbox for p in props], dtype=np.int64).reshape(-1, 4)  # min_row, min_col, max_row, max_col
    centroids = np.array([p.centroid for p in props], dtype=np.float64).reshape(-1, 2)  # row, col
    return {"label": np.array([p.label for p in props], dtype=np.int64),
            "left": boxes[:, 1], "top": boxes[:, 0], "width": boxes[:, 3] - boxes[:, 1],
            "height": boxes[:, 2] - boxes[:, 0], "area": np.array([p.area for p in props], dtype=np.int64),
            "centroid_x": centroids[:, 1], "centroid_y": centroids[:, 0]}


def opencv_labeling(image, connectivity):
    """OpenCV's labeling of a mask (nonzero is foreground) with the SAUF
    algorithm, whose numbering is glccl's: (labels, n, table) with the table in
    glccl's columns, the background row dropped."""
    mask = np.ascontiguousarray(np.asarray(image) != 0, dtype=np.uint8)
    count, labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask, connectivity, cv2.CV_32S, cv2.CCL_SAUF)
    stats, centroids = stats[1:].astype(np.int64), centroids[1:].astype(np.float64)
    table = {"label": np.arange(1, count, dtype=np.int64), "left": stats[:, cv2.CC_STAT_LEFT], "top": stats[:, cv2.CC_STAT_TOP],
             "width": stats[:, cv2.CC_STAT_WIDTH], "height": stats[:, cv2.CC_STAT_HEIGHT],
             "area": stats[:, cv2.CC_STAT_AREA], "centroid_x": centroids[:, 0], "centroid_y": centroids[:, 1]}
    return labels, count - 1, table


def assert_tables_equal(table, want, who):
    """glccl's table against a reference's: boxes and areas exactly, centroids
    as float64 to 1e-12 of their value."""
    assert set(table) == set(TABLE_COLUMNS)
    for column in TABLE_COLUMNS:
        got, expected = np.asarray(table[column]), np.asarray(want[column])
        assert got.shape == expected.shape, f"{column}: {got.shape[0]} rows, {who} {expected.shape[0]}"
        if column.startswith("centroid"):
            assert got.dtype == np.float64
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0, err_msg=f"{column} against {who}")
        else:
            np.testing.assert_array_equal(got.astype(np.int64), expected, err_msg=f"{column} against {who}")


def check_device_labels(device_image, image, connectivity, to_host):
    """glccl.label on `device_image`, a GPU copy of the host `image`: the
    count and the labels (read back by `to_host`) against scikit-image.
    Returns the labels as they came, for the caller's checks of their kind."""
    labels, n = glccl.label(device_image, connectivity=connectivity)
    want, want_n = skimage_labels(image, connectivity)
    assert n == want_n
    np.testing.assert_array_equal(to_host(labels), want)
    return labels


def random_binary(rng, h, w, p=0.5):
    return (rng.random((h, w)) < p).astype(np.uint8)


def rss_bytes():
    """The process's resident memory now (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def label_in_threads(label, images, expected, repeats):
    """Each image labeled `repeats` times by label(image) -> (labels, n), one
    thread per image, all at once; the indices (or (index, error)) of the
    threads whose labels differed from `expected` or that raised."""
    failures = []

    def work(i):
        try:
            for _ in range(repeats):
                labels, _ = label(images[i])
                if not np.array_equal(labels, expected[i]):
                    failures.append(i)
        except Exception as error:  # reported with the thread's index
            failures.append((i, repr(error)))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(images))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failures


# ---- the label helpers' references (relabel, remove_small, keep_largest), from np.unique ----

def present(labels):
    """(values, counts) of the nonzero labels, by value."""
    flat = np.asarray(labels).ravel()
    return np.unique(flat[flat != 0], return_counts=True)


def numbered(labels, kept):
    """Elements of a label in `kept` numbered 1..m in the raster order of
    each label's first element, the others 0: (labels, m), from np.unique's
    first indices."""
    labels = np.asarray(labels)
    values, first, inverse = np.unique(labels.ravel(), return_index=True, return_inverse=True)
    chosen = np.flatnonzero(np.isin(values, kept) & (values != 0))
    order = chosen[np.argsort(first[chosen], kind="stable")]
    number = np.zeros(len(values), np.uint64)
    number[order] = np.arange(1, len(order) + 1, dtype=np.uint64)
    return number[inverse].reshape(labels.shape).astype(labels.dtype), len(order)


def as_is(labels, kept):
    """Elements of a label in `kept` as they are, the others 0: (labels, m)."""
    labels = np.asarray(labels)
    out = np.where(np.isin(labels, kept), labels, 0).astype(labels.dtype, copy=False)
    return out, len(np.intersect1d(kept, present(labels)[0]))


def at_least(labels, min_size):
    values, counts = present(labels)
    return values[counts >= min_size]


def largest(labels, k):
    values, counts = present(labels)
    return values[np.lexsort((values, -counts))][:k]


def skimage_removes_fewer_than_min_size():
    """Whether this scikit-image's remove_small_objects(labels, n) drops the
    labels of fewer than n elements (it changed its rule across versions)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = morphology.remove_small_objects(np.array([1, 1, 0, 2, 3, 3, 3]), 2)
    return kept.tolist() == [1, 1, 0, 0, 3, 3, 3]
