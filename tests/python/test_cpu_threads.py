"""The cpu engine from Python: the labels of scikit-image and the table of
the reference (the oracle) at every `threads=` count, images and volumes,
binary and segments; and auto runs it on a small array."""

import os

import numpy as np
import pytest
from skimage.measure import label as sk_label

import glccl

THREAD_COUNTS = [1, 2, 3, 7, 16, None]
IMAGES = [((700, 913), 0.5), ((1031, 517), 0.2), ((3, 40000), 0.6), ((40000, 2), 0.5)]
_expected = {}


def expected(index, connectivity):
    """scikit-image's labels and the reference's table, computed once."""
    key = (index, connectivity)
    if key not in _expected:
        image = image_of(index)
        want = sk_label(image, connectivity=1 if connectivity == 4 else 2)
        _, _, table = glccl.label(image, connectivity, backend="reference", return_table=True)
        _expected[key] = (want, table)
    return _expected[key]


def image_of(index):
    shape, p = IMAGES[index]
    return (np.random.default_rng(11 + index).random(shape) < p).astype(np.uint8)


@pytest.mark.parametrize("threads", THREAD_COUNTS)
def test_images_at_every_thread_count(threads):
    for index in range(len(IMAGES)):
        image = image_of(index)
        for connectivity in (4, 8):
            want, want_table = expected(index, connectivity)
            labels, n, table = glccl.label(image, connectivity, backend="cpu", return_table=True, threads=threads)
            assert n == want.max()
            assert np.array_equal(labels, want), (image.shape, connectivity, threads)
            for column in want_table:  # byte for byte, centroids too
                assert np.array_equal(np.asarray(table[column]), np.asarray(want_table[column])), column


@pytest.mark.parametrize("threads", THREAD_COUNTS)
def test_volumes_and_segments_at_every_thread_count(threads):
    rng = np.random.default_rng(12)
    volume = (rng.random((37, 61, 45)) < 0.3).astype(np.uint8)
    for connectivity, sk in ((6, 1), (18, 2), (26, 3)):
        labels, n = glccl.label(volume, connectivity, backend="cpu", threads=threads)
        want = sk_label(volume, connectivity=sk)
        assert n == want.max()
        assert np.array_equal(labels, want), (connectivity, threads)
    segments = rng.integers(0, 4, (301, 257)).astype(np.uint16) * 1000
    labels, n = glccl.label(segments, 8, criterion="segments", backend="cpu", threads=threads)
    want = sk_label(segments, connectivity=2, background=0)
    assert n == want.max()
    assert np.array_equal(labels, want)


@pytest.mark.parametrize("threads", [0, -1, 2.5, "2"])
def test_bad_thread_counts_are_refused(threads):
    image = np.ones((4, 4), np.uint8)
    with pytest.raises((ValueError, TypeError)):
        glccl.label(image, backend="cpu", threads=threads)


def test_auto_runs_the_cpu_engine_on_a_small_array():
    # A small array: the bus costs a GPU engine more than the cpu engine's
    # labeling, wherever this runs; auto says so through Labeler.last_backend.
    image = (np.random.default_rng(3).random((48, 64)) < 0.5).astype(np.uint8)
    labeler = glccl.Labeler(8)
    labels, n = labeler.label(image)
    assert labeler.last_backend == "cpu"
    want = sk_label(image, connectivity=2)
    assert n == want.max() and np.array_equal(labels, want)
