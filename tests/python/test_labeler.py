"""glccl.Labeler: many images through one object, against scikit-image; the
arrays it hands out and refills; wrong input; threads; memory."""

import numpy as np
import pytest

import glccl
from references import DEEP_BACKENDS, GL_BACKENDS, label_in_threads, random_binary, rss_bytes, skimage_labels

LABELER_BACKENDS = ["auto"] + DEEP_BACKENDS


def frames(seed, shape, count, p=0.5):
    rng = np.random.default_rng(seed)
    return [random_binary(rng, *shape, p) for _ in range(count)]


@pytest.mark.parametrize("backend", LABELER_BACKENDS)
@pytest.mark.parametrize("connectivity", [4, 8])
def test_shapes_in_turn(backend, connectivity):
    # Many frames of one shape, then another shape, then the first again: the
    # buffers of each size are re-made and every result stays right.
    labeler = glccl.Labeler(connectivity=connectivity, backend=backend)
    for seed, shape, count in [(1, (48, 64), 12), (2, (31, 77), 6), (3, (48, 64), 12), (4, (1, 50), 3)]:
        for image in frames(seed, shape, count):
            labels, n = labeler.label(image)
            want, want_n = skimage_labels(image, connectivity)
            assert n == want_n
            np.testing.assert_array_equal(labels, want)
    assert labeler.last_backend in ("cpu", "compute", "raster")
    if backend != "auto":
        assert labeler.last_backend == backend


@pytest.mark.parametrize("backend", LABELER_BACKENDS)
def test_held_results_are_never_overwritten(backend):
    # Results the caller keeps (in a list, or through a view) must survive
    # later calls; only released arrays may be refilled.
    labeler = glccl.Labeler(backend=backend)
    images = frames(7, (40, 56), 10)
    kept = [labeler.label(image)[0] for image in images]
    view = labeler.label(images[0])[0][2:, 3:]
    for image in images[::-1]:
        labeler.label(image)
    for image, labels in zip(images, kept):
        np.testing.assert_array_equal(labels, skimage_labels(image, 8)[0])
    np.testing.assert_array_equal(view, skimage_labels(images[0], 8)[0][2:, 3:])


def test_released_arrays_are_refilled():
    # The video loop: the array of the frame before the previous one is free
    # again and reused, so a steady loop allocates no label array.
    labeler = glccl.Labeler(backend="cpu")
    images = frames(8, (20, 30), 6)
    addresses = []
    labels = None
    for image in images:
        labels, n = labeler.label(image)
        addresses.append(labels.ctypes.data)
        np.testing.assert_array_equal(labels, skimage_labels(image, 8)[0])
    assert len(set(addresses[2:])) == 2, addresses


@pytest.mark.parametrize("backend", LABELER_BACKENDS)
def test_out(backend):
    labeler = glccl.Labeler(connectivity=4, backend=backend)
    images = frames(9, (33, 47), 4)
    out = np.full((33, 47), 7, np.uint32)
    for image in images:
        labels, n = labeler.label(image, out=out)
        assert labels is out
        np.testing.assert_array_equal(out, skimage_labels(image, 4)[0])
    # Any strides: a Fortran-ordered array and a strided view of a larger one.
    for target in (np.zeros((33, 47), np.uint32, order="F"), np.zeros((66, 94), np.uint32)[::2, ::2]):
        labels, n = labeler.label(images[0], out=target)
        assert labels is target
        np.testing.assert_array_equal(target, skimage_labels(images[0], 4)[0])
    # An array the labeler returned, passed back: filled in place.
    first, _ = labeler.label(images[1])
    again, _ = labeler.label(images[2], out=first)
    assert again is first
    np.testing.assert_array_equal(first, skimage_labels(images[2], 4)[0])


@pytest.mark.parametrize("backend", LABELER_BACKENDS)
def test_table_and_depths(backend):
    labeler = glccl.Labeler(criterion="segments", backend=backend)
    rng = np.random.default_rng(10)
    for dtype in (np.uint8, np.uint16, np.int32, np.float32, np.uint16, np.uint8):
        values = rng.integers(0, 4, size=(21, 26)) * (1 if dtype == np.uint8 else 300)
        labels, n, table = labeler.label(values.astype(dtype), return_table=True)
        want, want_n = skimage_labels(values, 8, segments=True)
        assert n == want_n and all(len(column) == n for column in table.values())
        np.testing.assert_array_equal(labels, want)
        areas = np.bincount(want.ravel(), minlength=n + 1)[1:]
        np.testing.assert_array_equal(table["area"], areas)


def test_properties():
    labeler = glccl.Labeler(connectivity=1, criterion=("threshold", 12), backend="cpu")
    assert labeler.connectivity == 4
    assert labeler.criterion == "threshold:12"
    assert labeler.backend == "cpu"
    assert labeler.last_backend is None
    assert "threshold:12" in repr(labeler)
    labeler.label(np.zeros((2, 2), np.uint8))
    assert labeler.last_backend == "cpu"
    assert glccl.Labeler().connectivity == 8 and glccl.Labeler().criterion == "binary"
    assert glccl.Labeler(criterion=("binary", 9)).criterion == "binary:9"


def test_docs():
    doc = glccl.Labeler.__doc__
    for word in ("Thread-safety", "out=", "CuPy", "GIL"):
        assert word in doc
    assert "out" in glccl.Labeler.label.__doc__


@pytest.mark.parametrize("kwargs, error", [
    ({"connectivity": 6}, ValueError),
    ({"connectivity": "8"}, TypeError),
    ({"criterion": "blobs"}, ValueError),
    ({"criterion": ("threshold", -1)}, ValueError),
    ({"backend": "vulkan"}, ValueError),
    ({"backend": None}, TypeError),
])
def test_wrong_construction(kwargs, error):
    with pytest.raises(error):
        glccl.Labeler(**kwargs)


@pytest.mark.parametrize("image, kwargs, error", [
    (np.ones((4, 5, 3), np.uint8), {}, ValueError),          # 3-D where 2-D is needed
    (np.ones((2, 4, 5, 3), np.uint8), {}, ValueError),
    (np.ones((4, 5), np.complex128), {}, TypeError),
    (np.ones((0, 5), np.uint8), {}, ValueError),
    (np.ones((4, 0), np.uint8), {}, ValueError),
    (np.full((4, 5), -1, np.int32), {}, ValueError),
    (np.full((4, 5), 0.25, np.float32), {}, ValueError),
    (np.ones((4, 5), np.uint8), {"out": np.zeros((4, 5), np.int32)}, TypeError),
    (np.ones((4, 5), np.uint8), {"out": np.zeros((5, 4), np.uint32)}, ValueError),
    (np.ones((4, 5), np.uint8), {"out": np.zeros(20, np.uint32)}, ValueError),
    (np.ones((4, 5), np.uint8), {"out": [[0] * 5] * 4}, TypeError),
])
def test_wrong_input(image, kwargs, error):
    labeler = glccl.Labeler(backend="cpu")
    with pytest.raises(error):
        labeler.label(image, **kwargs)
    # The labeler still works after a refused call.
    labels, n = labeler.label(np.eye(4, 5, dtype=np.uint8))
    assert n == 1


def test_read_only_out():
    out = np.zeros((3, 3), np.uint32)
    out.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        glccl.Labeler().label(np.ones((3, 3), np.uint8), out=out)


@pytest.mark.parametrize("backend", ["auto"] + GL_BACKENDS[:1])
def test_threads_share_one_labeler(backend):
    labeler = glccl.Labeler(backend=backend)
    images = frames(21, (24, 40), 4)
    expected = [skimage_labels(image, 8)[0] for image in images]
    assert label_in_threads(labeler.label, images, expected, 6) == []


@pytest.mark.parametrize("backend", ["auto"] + GL_BACKENDS[:1])
def test_thousand_frames_do_not_grow_the_process(backend):
    labeler = glccl.Labeler(backend=backend)
    images = frames(1, (32, 48), 8) + [np.zeros((32, 48), np.uint16), np.ones((32, 48), np.float32)]
    out = np.empty((32, 48), np.uint32)

    def one(i):
        image = images[i % len(images)]
        if i % 3 == 0:
            return labeler.label(image, return_table=True)
        if i % 3 == 1:
            return labeler.label(image, out=out)
        return labeler.label(image)

    for i in range(100):  # warm up allocators, the context and the kept arrays
        one(i)
    before = rss_bytes()
    for i in range(1000):
        one(i)
        if i % 100 == 0:  # refused calls must not leak either
            with pytest.raises(ValueError):
                labeler.label(np.full((2, 2), -1, np.int32))
    grown = rss_bytes() - before
    assert grown < 8 * 1024 * 1024, f"RSS grew by {grown} bytes over 1000 frames"
