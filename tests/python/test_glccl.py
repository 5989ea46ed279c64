"""Tests of the glccl Python module against scikit-image and hand-computed
expectations. Run with the built module on PYTHONPATH (CTest sets it)."""

import re

import numpy as np
import pytest

import glccl
from references import (BACKENDS, AVAILABLE, GL_BACKENDS, assert_tables_equal, label_in_threads, random_binary,
                        rss_bytes, skimage_labels, skimage_table)


def check(image, connectivity=8, backend="auto", criterion="binary", expected_from=None):
    labels, n = glccl.label(image, connectivity=connectivity, criterion=criterion, backend=backend)
    want, want_n = skimage_labels(image if expected_from is None else expected_from,
                                  connectivity, segments=criterion == "segments")
    assert labels.dtype == np.uint32
    assert labels.shape == np.shape(image)[:2]
    assert n == want_n
    np.testing.assert_array_equal(labels, want)
    return labels, n


# ---- labels against scikit-image ------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("connectivity", [4, 8])
def test_random_binary(backend, connectivity):
    rng = np.random.default_rng(14 + connectivity)
    sizes = [(32, 48), (7, 61), (64, 64)] if backend == "auto" else [(31, 45), (16, 64)]
    for h, w in sizes:
        for p in (0.3, 0.5, 0.7):
            check(random_binary(rng, h, w, p), connectivity, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("connectivity", [4, 8])
def test_random_segments(backend, connectivity):
    rng = np.random.default_rng(100 + connectivity)
    for values in (2, 4, 256):
        image = rng.integers(0, values, size=(29, 37), dtype=np.uint8)
        check(image, connectivity, backend, criterion="segments")


def test_large_auto():
    rng = np.random.default_rng(7)
    check(random_binary(rng, 300, 517, 0.55), 8)
    check(random_binary(rng, 300, 517, 0.45), 4)


@pytest.mark.parametrize("connectivity", [1, 2])
def test_skimage_connectivity_numbers(connectivity):
    image = np.array([[1, 0], [0, 1]], dtype=np.uint8)
    labels, n = glccl.label(image, connectivity=connectivity)
    assert n == (2 if connectivity == 1 else 1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_thin_shapes(backend):
    rng = np.random.default_rng(3)
    for shape in [(1, 1), (1, 50), (50, 1), (1, 200), (2, 3)]:
        image = (rng.random(shape) < 0.5).astype(np.uint8)
        for connectivity in (4, 8):
            check(image, connectivity, backend)
    labels, n = glccl.label(np.ones((1, 1), np.uint8), backend=backend)
    assert n == 1 and labels[0, 0] == 1
    labels, n = glccl.label(np.zeros((1, 9), np.uint8), backend=backend)
    assert n == 0 and not labels.any()


# ---- dtypes and layouts ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.uint16, np.int32, np.float32,
                                   np.int8, np.int16, np.int64, np.uint32, np.float64])
def test_dtypes(dtype):
    rng = np.random.default_rng(5)
    values = rng.integers(0, 4 if dtype != np.bool_ else 2, size=(23, 31))
    image = values.astype(dtype)
    check(image, 8)
    check(image, 4, criterion="segments", expected_from=values)


def test_byteswapped():
    values = np.random.default_rng(6).integers(0, 3, size=(12, 17))
    check(values.astype(">u2"), 8, criterion="segments", expected_from=values)


def test_full_8bit_range():
    image = np.arange(256, dtype=np.uint16).reshape(16, 16)
    labels, n = glccl.label(image, criterion="segments")
    assert n == 255  # every nonzero value is its own component


@pytest.mark.parametrize("backend", BACKENDS)
def test_layouts(backend):
    rng = np.random.default_rng(9)
    base = random_binary(rng, 40, 60)
    views = [
        np.asfortranarray(base),
        base[::2, ::3],
        base[5:30, 7:50],
        base[::-1, ::-2],
        base.T,
        np.ascontiguousarray(base.T).T,
        np.stack([base, base], axis=-1)[:, :, 1],
    ]
    for view in views:
        check(view, 8, backend)
        check(view.astype(np.float32), 4, backend)


def test_lists_are_converted():
    labels, n = glccl.label([[1, 0, 1], [1, 0, 1]], connectivity=4)
    assert n == 2
    np.testing.assert_array_equal(labels, [[1, 0, 2], [1, 0, 2]])


# ---- threshold (hand-computed expectations) -------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("channels", [3, 4])
def test_threshold_color(backend, channels):
    image = np.zeros((6, 8, channels), np.uint8)
    image[:, :4] = 10
    image[:, 4:] = 100
    if channels == 4:
        image[..., 3] = 255
    labels, n = glccl.label(image, criterion=("threshold", 89), backend=backend, channel_axis=-1)
    assert n == 2
    expected = np.ones((6, 8), np.uint32)
    expected[:, 4:] = 2
    np.testing.assert_array_equal(labels, expected)
    labels, n = glccl.label(image, criterion=("threshold", 90), backend=backend, channel_axis=-1)
    assert n == 1 and (labels == 1).all()
    # One channel alone separates the halves.
    image[:, 4:] = 10
    image[:, 4:, 1] = 50
    if channels == 4:
        image[..., 3] = 255
    assert glccl.label(image, criterion=("threshold", 39), backend=backend, channel_axis=-1)[1] == 2
    assert glccl.label(image, criterion="threshold:40", backend=backend, channel_axis=-1)[1] == 1


def test_threshold_gray_gradient():
    # Steps of 3 between columns: T=2 splits every column, T=3 joins all.
    image = np.tile(np.arange(0, 30, 3, dtype=np.uint8), (4, 1))
    assert glccl.label(image, criterion=("threshold", 2), connectivity=4)[1] == 10
    assert glccl.label(image, criterion=("threshold", 3), connectivity=4)[1] == 1


# ---- the component table against regionprops --------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("connectivity", [4, 8])
def test_table(backend, connectivity):
    image = random_binary(np.random.default_rng(11), 33, 47, 0.45)
    labels, n, table = glccl.label(image, connectivity=connectivity, backend=backend, return_table=True)
    for key in table:
        assert table[key].shape == (n,)
    want, _ = skimage_labels(image, connectivity)
    assert_tables_equal(table, skimage_table(want), "regionprops")


def test_tables_of_calls_in_turn():
    # glccl.label keeps a table's storage for the next call: a large table,
    # then smaller ones and an empty one, each against regionprops.
    rng = np.random.default_rng(12)
    for h, w, p in [(300, 280, 0.5), (40, 30, 0.2), (1, 1, 0.0), (90, 70, 0.45), (300, 280, 0.5)]:
        image = random_binary(rng, h, w, p)
        labels, n, table = glccl.label(image, connectivity=4, return_table=True)
        want, want_n = skimage_labels(image, 4)
        assert n == want_n
        np.testing.assert_array_equal(labels, want)
        assert_tables_equal(table, skimage_table(want), "regionprops")


def test_table_empty():
    labels, n, table = glccl.label(np.zeros((4, 4), np.uint8), return_table=True)
    assert n == 0 and all(len(v) == 0 for v in table.values())


# ---- wrong input ----------------------------------------------------------------------------

@pytest.mark.parametrize("image, kwargs, error", [
    (np.ones((4, 4, 3), np.uint8), {"channel_axis": -1}, ValueError),     # color for binary
    (np.ones((4, 4, 3), np.uint8), {"criterion": "segments", "channel_axis": -1}, ValueError),
    (np.ones((4, 4, 2), np.uint8), {"criterion": ("threshold", 1), "channel_axis": -1}, ValueError),
    (np.ones((4, 4, 3), np.complex64), {"criterion": ("threshold", 1)}, TypeError),
    (np.ones((4, 4), np.float16), {}, TypeError),
    (np.ones((4, 4), np.complex64), {}, TypeError),
    (np.ones((4, 4), object), {}, TypeError),
    (np.ones((0, 4), np.uint8), {}, ValueError),
    (np.ones((4, 0), np.uint8), {}, ValueError),
    (np.ones(5, np.uint8), {}, ValueError),
    (np.ones((2, 2, 2, 2), np.uint8), {}, ValueError),
    (np.uint8(1), {}, ValueError),
    (np.array(1, np.uint8), {}, ValueError),  # 0-d arrays: not a ZeroDivisionError of the segments warning
    (np.array(7, np.int32), {}, ValueError),
    (np.array(True), {}, ValueError),
    (np.full((3, 3), -2**40, np.int64), {}, ValueError),
    (np.full((3, 3), 2.0**64, np.float64), {}, ValueError),
    (np.full((3, 3), -1, np.int32), {}, ValueError),
    (np.full((3, 3), -1, np.int8), {}, ValueError),
    (np.full((3, 3), -1.0, np.float32), {}, ValueError),
    (np.full((3, 3), 0.5, np.float32), {}, ValueError),
    (np.full((3, 3), 2.0**32, np.float32), {}, ValueError),
    (np.full((3, 3), 0.5 + 2**51, np.float64), {}, ValueError),
    (np.full((3, 3), np.nan, np.float32), {}, ValueError),
    (np.full((3, 3), np.inf, np.float64), {}, ValueError),
    (np.ones((3, 3), np.uint8), {"criterion": "blobs"}, ValueError),
    (np.ones((3, 3), np.uint8), {"criterion": ("threshold", 256)}, ValueError),
    (np.ones((3, 3), np.uint8), {"criterion": ("threshold", -1)}, ValueError),
    (np.ones((3, 3), np.uint16), {"criterion": ("threshold", 65536)}, ValueError),
    (np.ones((3, 3), np.uint8), {"criterion": ("binary", 256)}, ValueError),
    (np.ones((3, 3), np.uint8), {"criterion": "binary:256"}, ValueError),
    (np.ones((3, 3), np.uint32), {"criterion": ("threshold", 2**32)}, ValueError),
    (np.ones((3, 3), np.uint8), {"criterion": ("threshold", 2**70)}, ValueError),
    (np.ones((3, 3), np.uint8), {"criterion": ("threshold",)}, ValueError),
    (np.ones((3, 3), np.uint8), {"criterion": ("binary", 1.5)}, TypeError),
    (np.ones((3, 3), np.uint8), {"criterion": ("threshold", "1")}, TypeError),
    (np.ones((3, 3), np.uint8), {"criterion": 3}, TypeError),
    (np.ones((3, 3), np.uint8), {"backend": "vulkan"}, ValueError),
    (np.ones((3, 3), np.uint8), {"backend": 1}, TypeError),
    (np.ones((3, 3), np.uint8), {"connectivity": 6}, ValueError),
    (np.ones((3, 3), np.uint8), {"connectivity": 0}, ValueError),
    (np.ones((3, 3), np.uint8), {"connectivity": "8"}, TypeError),
    (np.ones((3, 3), np.uint8), {"connectivity": 8.0}, TypeError),
    (np.ones((3, 3), np.uint8), {"connectivity": True}, TypeError),
])
def test_wrong_input(image, kwargs, error):
    with pytest.raises(error):
        glccl.label(image, **kwargs)


def test_a_0d_array_is_refused_for_its_dimensions():
    for image in (np.array(1, np.uint8), np.array(300, np.int64), np.array(True), 5):
        with pytest.raises(ValueError, match=r"^glccl\.label\(\): image must be 2-D .* got 0-D$"):
            glccl.label(image)


def test_unavailable_backend_is_runtime_error():
    for name, info in AVAILABLE.items():
        if not info["available"]:
            with pytest.raises(RuntimeError, match=re.escape(name) + "|" + re.escape(info["reason"][:40])):
                glccl.label(np.ones((3, 3), np.uint8), backend=name)


# ---- module surface -------------------------------------------------------------------------

def test_backends():
    rows = glccl.backends()
    assert rows[0]["name"] == "auto"
    assert sorted(r["name"] for r in rows) == ["auto", "compute", "cpu", "cuda", "raster", "reference"]
    for r in rows:
        assert set(r) == {"name", "available", "reason", "device", "gpu", "software_renderer", "note"}
        assert isinstance(r["available"], bool) and isinstance(r["reason"], str)
        assert r["available"] == (r["reason"] == "")
    assert AVAILABLE["auto"]["available"] and AVAILABLE["cpu"]["available"] and AVAILABLE["reference"]["available"]


def test_version_and_docs():
    assert re.fullmatch(r"\d+\.\d+\.\d+", glccl.__version__)
    doc = glccl.label.__doc__
    for word in ("connectivity", "criterion", "backend", "return_table", "Thread-safety", "RuntimeError"):
        assert word in doc
    assert "available" in glccl.backends.__doc__


# ---- threads and memory ---------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["auto"] + GL_BACKENDS[:1])
def test_threads(backend):
    rng = np.random.default_rng(21)
    images = [random_binary(rng, 24, 40) for _ in range(4)]
    expected = [skimage_labels(im, 8)[0] for im in images]
    assert label_in_threads(lambda image: glccl.label(image, backend=backend), images, expected, 5) == []


def test_no_leak():
    image = random_binary(np.random.default_rng(1), 16, 16)
    for _ in range(50):  # warm up allocators and the shared context
        glccl.label(image, return_table=True)
    before = rss_bytes()
    for i in range(1000):
        labels, n, table = glccl.label(image, return_table=True)
        if i % 100 == 0:  # errors must not leak either
            with pytest.raises(ValueError):
                glccl.label(np.full((2, 2), -1, np.int32))
    grown = rss_bytes() - before
    assert grown < 8 * 1024 * 1024, f"RSS grew by {grown} bytes over 1000 labelings"


def test_segment_ids_left_at_the_binary_default_warn():
    # The trap of an integer image of segment ids labeled as binary (one
    # component where scikit-image finds the regions) is said, not silent.
    import warnings
    import skimage.measure

    rng = np.random.default_rng(21)
    segments = np.repeat(np.repeat(rng.integers(1, 6, (8, 8)), 9, axis=0), 9, axis=1).astype(np.int32)
    with pytest.warns(UserWarning, match="criterion='segments'"):
        labels, n = glccl.label(segments)
    assert n == 1 and np.array_equal(labels, skimage.measure.label(segments > 0, connectivity=2))
    expected = skimage.measure.label(segments, connectivity=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        labels, n = glccl.label(segments, criterion="segments")
        assert n == expected.max() and np.array_equal(labels, expected)
        glccl.label(segments, criterion="binary")                       # named: no warning
        glccl.label((segments > 2).astype(np.uint8) * 255)              # a mask: 0 and one value
        glccl.label(segments > 2)                                       # bool
        glccl.skimage.label(segments)                                   # the drop-in takes regions
