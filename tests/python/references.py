"""What the glccl tests compare against (scikit-image), and which backends
run here. Shared by the test files of this folder (pytest puts the folder on
sys.path: it has no __init__.py)."""

import os

import numpy as np
import pytest
from skimage import measure

import glccl

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
# Every backend that takes 16- and 32-bit samples (cuda reads 8-bit ones).
DEEP_BACKENDS = backend_params(("cpu", "compute", "raster"))


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


def random_binary(rng, h, w, p=0.5):
    return (rng.random((h, w)) < p).astype(np.uint8)


def rss_bytes():
    """The process's resident memory now (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
