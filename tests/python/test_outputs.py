"""out= and output=: labels written into an array of the caller's, also when
that array is the image itself or overlaps it (numpy's may_share_memory),
against scipy.ndimage.label of an untouched copy of the image; and the
dtypes and layouts of out= that glccl.label fills."""

import numpy as np
import pytest
from scipy import ndimage

import glccl
from references import AVAILABLE

try:
    import cupy
except Exception:  # ImportError, or a CuPy that finds no CUDA at import
    cupy = None

HOST_BACKENDS = ["auto", "cpu", "reference"] + [
    pytest.param(name, marks=pytest.mark.skipif(not AVAILABLE[name]["available"],
                                                reason=AVAILABLE[name]["reason"] or "unavailable"))
    for name in ("compute", "raster")]
LABELER_BACKENDS = [b for b in HOST_BACKENDS if b != "reference"]


def expected(image, connectivity=8):
    """scipy's labels of `image != 0` (a copy taken before glccl writes)."""
    image = np.asarray(image)
    rank = 1 if connectivity in (4, 6) else (2 if connectivity in (8, 18) else 3)
    return ndimage.label(image != 0, ndimage.generate_binary_structure(image.ndim, rank))


def mask(shape, seed, dtype=np.uint32):
    """A random mask of 0 and 1 with many components, in `dtype`."""
    return (np.random.default_rng(seed).random(shape) < 0.45).astype(dtype)


# ---- the output is the image, or overlaps it -----------------------------------------------

@pytest.mark.parametrize("backend", LABELER_BACKENDS)
def test_labeler_out_is_the_image(backend):
    labeler = glccl.Labeler(connectivity=8, backend=backend)
    image = mask((40, 50), 1)
    want, want_n = expected(image)
    labels, n = labeler.label(image, out=image)
    assert labels is image and n == want_n
    np.testing.assert_array_equal(image, want)


@pytest.mark.parametrize("backend", LABELER_BACKENDS)
def test_labeler_out_overlaps_the_image(backend):
    # Two C-contiguous views of one buffer, one row apart: every row the
    # labels are written to is a row of the image still to be read.
    labeler = glccl.Labeler(connectivity=4, backend=backend)
    buffer = mask((41, 37), 2)
    image, out = buffer[:-1], buffer[1:]
    want, want_n = expected(image.copy(), 4)
    labels, n = labeler.label(image, out=out)
    assert labels is out and n == want_n
    np.testing.assert_array_equal(out, want)
    # The other way: labels one row before the image.
    buffer = mask((41, 37), 3)
    image, out = buffer[1:], buffer[:-1]
    want, want_n = expected(image.copy(), 4)
    labels, n = labeler.label(image, out=out)
    assert n == want_n
    np.testing.assert_array_equal(out, want)


def test_labeler_relabels_its_own_labels_in_place():
    # An array the Labeler handed out, passed back as both image and out.
    labeler = glccl.Labeler(connectivity=4, backend="cpu")
    first, _ = labeler.label(mask((30, 33), 4, np.uint8))
    want, want_n = expected(first.copy(), 4)
    labels, n = labeler.label(first, out=first)
    assert labels is first and n == want_n
    np.testing.assert_array_equal(first, want)


@pytest.mark.parametrize("backend", HOST_BACKENDS)
@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint64, np.int64])
def test_label_out_is_the_image(backend, dtype):
    image = mask((40, 50), 5, dtype)
    want, want_n = expected(image)
    labels, n = glccl.label(image, backend=backend, out=image)
    assert labels is image and n == want_n
    np.testing.assert_array_equal(image, want)


@pytest.mark.parametrize("backend", ["auto", "cpu", "reference"])
def test_label_out_is_the_volume(backend):
    volume = mask((9, 17, 13), 6)
    want, want_n = expected(volume, 26)
    labels, n = glccl.label(volume, backend=backend, out=volume)
    assert labels is volume and n == want_n
    np.testing.assert_array_equal(volume, want)


@pytest.mark.parametrize("backend", ["auto", "cpu"])
def test_label_out_overlaps_the_image(backend):
    buffer = mask((61, 43), 7, np.int32)
    for image, out in ((buffer[:-1], buffer[1:]), (buffer[1:], buffer[:-1])):
        want, want_n = expected(image.copy())
        labels, n = glccl.label(image, backend=backend, out=out)
        assert labels is out and n == want_n
        np.testing.assert_array_equal(out, want)


def test_ndimage_output_is_the_input():
    # scipy labels in place when output is input; so does the drop-in.
    image = mask((40, 50), 8, np.int32)
    want, want_n = expected(image, 4)
    n = glccl.ndimage.label(image, output=image)
    assert n == want_n
    np.testing.assert_array_equal(image, want)


@pytest.mark.skipif(cupy is None or not (glccl.has_cuda and AVAILABLE["cuda"]["available"]),
                    reason="needs CuPy and a cuda backend that runs")
def test_device_out_is_the_image():
    host = mask((40, 50), 9)
    want, want_n = expected(host)
    image = cupy.asarray(host)
    labels, n = glccl.Labeler(connectivity=8, backend="cuda").label(image, out=image)
    assert n == want_n
    np.testing.assert_array_equal(cupy.asnumpy(image), want)
    buffer = cupy.asarray(mask((41, 37), 10))
    want, want_n = expected(cupy.asnumpy(buffer[:-1]), 4)
    labels, n = glccl.Labeler(connectivity=4, backend="cuda").label(buffer[:-1], out=buffer[1:])
    assert n == want_n
    np.testing.assert_array_equal(cupy.asnumpy(buffer[1:]), want)


# ---- what out= takes -----------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["auto", "cpu", "reference"])
@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint64, np.int64, np.uint16])
@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_label_fills_out(backend, dtype, order):
    image = mask((33, 47), 11, np.uint8)
    want, want_n = expected(image)
    if order == "strided":
        out = np.full((66, 94), 7, dtype)[::2, ::2]
    else:
        out = np.full((33, 47), 7, dtype, order=order)
    labels, n = glccl.label(image, backend=backend, out=out)
    assert labels is out and n == want_n and out.dtype == dtype
    np.testing.assert_array_equal(out, want)


def test_label_out_too_small_is_refused_before_writing():
    many = np.zeros((40, 20), np.uint8)
    many[::2, ::2] = 1  # 200 components: past int8
    out = np.full((40, 20), 7, np.int8)
    with pytest.raises(TypeError, match=r"glccl\.label\(\): out must have an integer dtype that holds 200"):
        glccl.label(many, connectivity=4, out=out)
    assert (out == 7).all()


def test_label_read_only_out_is_refused():
    out = np.zeros((5, 5), np.uint32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match=r"glccl\.label\(\): out is read-only"):
        glccl.label(np.ones((5, 5), np.uint8), out=out)
