"""16-, 32- and 64-bit images: every dtype keeps its values (never reduced to
8 bits), on every backend that runs here, against scikit-image."""

import numpy as np
import pytest

import glccl
from references import AVAILABLE, DEEP_BACKENDS, skimage_labels


def check(image, backend, connectivity=8, criterion="binary", expected_from=None, level=0):
    labels, n = glccl.label(image, connectivity=connectivity, criterion=criterion, backend=backend)
    want, want_n = skimage_labels(image if expected_from is None else expected_from, connectivity,
                                  segments=criterion == "segments", level=level)
    assert labels.dtype == np.uint32 and labels.shape == np.shape(image)[:2]
    assert n == want_n
    np.testing.assert_array_equal(labels, want)
    return labels, n


def segment_ids(rng, shape, ids):
    """Blocky segment maps (runs of equal ids) drawn from `ids`, 0 included,
    so that equal neighbours are common."""
    coarse = rng.choice(np.asarray(ids), size=(shape[0] // 3 + 1, shape[1] // 3 + 1))
    image = np.repeat(np.repeat(coarse, 3, axis=0), 3, axis=1)[: shape[0], : shape[1]]
    noise = rng.random(shape) < 0.15
    image = image.copy()
    image[noise] = rng.choice(np.asarray(ids), size=int(noise.sum()))
    return image


# ---- segment ids past 255 ----------------------------------------------------------

@pytest.mark.parametrize("backend", DEEP_BACKENDS)
@pytest.mark.parametrize("dtype", [np.uint16, np.int16, np.int32, np.uint32, np.float32, np.int64, np.float64])
def test_ids_256_and_257_are_two_segments(backend, dtype):
    # Reduced to 8 bits, 256 and 257 would read as 0 and 1.
    image = np.array([[256, 256, 257, 257],
                      [256, 256, 257, 257],
                      [0, 512, 512, 1]], dtype=dtype)
    labels, n = check(image, backend, criterion="segments")
    assert n == 4
    np.testing.assert_array_equal(labels, [[1, 1, 2, 2], [1, 1, 2, 2], [0, 3, 3, 4]])


@pytest.mark.parametrize("backend", DEEP_BACKENDS)
@pytest.mark.parametrize("connectivity", [4, 8])
def test_uint16_segments(backend, connectivity):
    rng = np.random.default_rng(16 + connectivity)
    ids = [0, 1, 255, 256, 257, 511, 512, 65279, 65280, 65535]
    for shape in [(37, 53), (1, 40), (40, 1)]:
        check(segment_ids(rng, shape, ids).astype(np.uint16), backend, connectivity, criterion="segments")


@pytest.mark.parametrize("backend", DEEP_BACKENDS)
@pytest.mark.parametrize("dtype, ids", [
    (np.uint32, [0, 1, 65536, 65537, 2**24, 2**31, 2**32 - 1, 2**32 - 2]),
    (np.int32, [0, 1, 65536, 65537, 2**24, 2**31 - 1, 2**31 - 2]),
    (np.float32, [0, 1, 65536, 65537, 2**24, 2**24 + 2, 2**31, 4294967040]),  # exact in float32
    (np.int64, [0, 1, 70000, 70001, 2**32 - 1, 2**32 - 2]),
    (np.uint64, [0, 1, 70000, 70001, 2**32 - 1, 2**32 - 2]),
    (np.float64, [0, 1, 70000, 70001, 2**32 - 1, 2**32 - 2]),
])
def test_32bit_segments(backend, dtype, ids):
    rng = np.random.default_rng(32)
    image = segment_ids(rng, (29, 41), ids)
    check(image.astype(dtype), backend, 8, criterion="segments", expected_from=image)
    check(image.astype(dtype), backend, 4, criterion="segments", expected_from=image)


@pytest.mark.parametrize("backend", DEEP_BACKENDS)
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_64bit_segments(backend, dtype):
    """64-bit arrays are 64-bit samples: ids past 2^32 whose low halves
    collide (1 and 2^32 + 1) are different segments."""
    rng = np.random.default_rng(64)
    image = segment_ids(rng, (29, 41), [0, 1, 2**32 + 1, 2**32 - 1, 2**32, 2**62 + 5])
    check(image.astype(dtype), backend, 8, criterion="segments", expected_from=image)
    check(image.astype(dtype), backend, 4, criterion="segments", expected_from=image)


# ---- 16-bit masks ---------------------------------------------------------------------

@pytest.mark.parametrize("backend", DEEP_BACKENDS)
@pytest.mark.parametrize("connectivity", [4, 8])
def test_uint16_mask_values(backend, connectivity):
    # A mask whose foreground values include ones past 255: binary reads every
    # nonzero value as foreground, segments keeps 1, 2 and 300 apart.
    rng = np.random.default_rng(300 + connectivity)
    image = rng.choice(np.array([0, 1, 2, 300], np.uint16), size=(31, 45), p=[0.5, 0.2, 0.2, 0.1])
    image[0, :3] = [300, 0, 256]  # 256 and 300 are foreground, not 0 and 44
    check(image, backend, connectivity)
    check(image, backend, connectivity, criterion="segments")


@pytest.mark.parametrize("backend", DEEP_BACKENDS)
def test_binary_level(backend):
    rng = np.random.default_rng(5)
    image = rng.integers(0, 1000, size=(27, 33)).astype(np.uint16)
    for level in (0, 255, 256, 700):
        check(image, backend, criterion=("binary", level), level=level)
    check(image, backend, criterion="binary:500", level=500)


@pytest.mark.parametrize("backend", DEEP_BACKENDS)
def test_threshold_uint16(backend):
    # Steps of 300 between columns: T=299 splits every column, T=300 joins all.
    image = np.tile(np.arange(0, 3000, 300, dtype=np.uint16), (4, 1))
    assert glccl.label(image, criterion=("threshold", 299), connectivity=4, backend=backend)[1] == 10
    assert glccl.label(image, criterion=("threshold", 300), connectivity=4, backend=backend)[1] == 1
    # Reduced to 8 bits, 256 and 0 would be equal.
    image = np.array([[0, 256]], np.uint16)
    assert glccl.label(image, criterion=("threshold", 0), backend=backend)[1] == 2


@pytest.mark.parametrize("backend", DEEP_BACKENDS)
@pytest.mark.parametrize("channels", [3, 4])
def test_threshold_uint16_color(backend, channels):
    image = np.zeros((5, 6, channels), np.uint16)
    image[:, 3:, 1] = 1000
    if channels == 4:
        image[..., 3] = 65535
    assert glccl.label(image, criterion=("threshold", 999), backend=backend, channel_axis=-1)[1] == 2
    assert glccl.label(image, criterion=("threshold", 1000), backend=backend, channel_axis=-1)[1] == 1


# ---- layouts of deep images -----------------------------------------------------------

@pytest.mark.parametrize("backend", DEEP_BACKENDS)
@pytest.mark.parametrize("dtype", [np.uint16, np.int32, np.float32])
def test_deep_layouts(backend, dtype):
    rng = np.random.default_rng(9)
    base = segment_ids(rng, (70, 90), [0, 255, 256, 257, 40000]).astype(dtype)
    for view in (np.asfortranarray(base), base[::2, ::3], base[::-1, 5:], base.T,
                 np.ascontiguousarray(base.T).T, base.astype(base.dtype.newbyteorder(">"))):
        check(view, backend, criterion="segments", expected_from=np.asarray(view, dtype=np.float64))


def test_fortran_tiles_cover_every_pixel():
    # Fortran-ordered images are copied in tiles of 32 x 8: sizes around the
    # tile edges, on the cpu backend (the copy is the same for every backend).
    rng = np.random.default_rng(12)
    for shape in [(31, 7), (32, 8), (33, 9), (65, 17), (1, 9), (40, 1)]:
        image = rng.integers(0, 5, size=shape).astype(np.int32) * 1000
        check(np.asfortranarray(image), "cpu", criterion="segments", expected_from=image)


# ---- what is refused ------------------------------------------------------------------

@pytest.mark.parametrize("image, place", [
    (np.array([[0, 1], [2, -3]], np.int32), "[1, 1]"),
    (np.array([[0, 1.5]], np.float32), "[0, 1]"),
    (np.array([[np.nan, 0]], np.float32), "[0, 0]"),
    (np.array([[0, -2**40]], np.int64), "[0, 1]"),
    (np.asfortranarray(np.array([[0, 0, 0], [0, 0, -1]], np.int16)), "[1, 2]"),
])
def test_invalid_value_is_named(image, place):
    with pytest.raises(ValueError, match=r"value .* at " + place.replace("[", r"\[").replace("]", r"\]")):
        glccl.label(image)


def test_threshold_past_depth():
    with pytest.raises(ValueError, match="0..255"):
        glccl.label(np.zeros((3, 3), np.uint8), criterion=("threshold", 256))
    assert glccl.label(np.zeros((3, 3), np.uint16), criterion=("threshold", 256))[1] == 1


@pytest.mark.skipif(not AVAILABLE["cuda"]["available"], reason="the cuda backend cannot run here: " +
                    AVAILABLE["cuda"]["reason"])
def test_cuda_refuses_64bit_color():
    # Color of 8, 16 and 32 bits, gray of every depth; 64-bit color goes to cpu.
    image = np.ones((8, 8, 4), np.uint64)
    with pytest.raises(RuntimeError, match="color of 8-, 16- or 32-bit samples, not 64-bit"):
        glccl.label(image, criterion=("threshold", 1), channel_axis=-1, backend="cuda")
    assert glccl.label(image, criterion=("threshold", 1), channel_axis=-1)[1] == 1
