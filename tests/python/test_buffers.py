"""Host memory: images labeled where they are (C-contiguous arrays of the
sample types) give the labels of the same values copied (every other layout);
labels go straight into a C-contiguous out= and through a copy into any
other; glccl.label() recycles the storage of label arrays numpy has freed,
never one a view still reads."""

import resource

import numpy as np
import pytest

import glccl
from references import DEEP_BACKENDS, GL_BACKENDS, label_in_threads, random_binary, skimage_labels

# The dtypes whose C-contiguous arrays are labeled in place.
VIEW_DTYPES = [np.bool_, np.uint8, np.uint16, np.uint32]


def layouts(image):
    """The same values as a C-ordered array, a Fortran-ordered one and a
    strided view of a larger array (the last two are copied)."""
    c = np.ascontiguousarray(image)
    fortran = np.asfortranarray(image)
    larger = np.zeros((image.shape[0] * 2, image.shape[1] * 3) + image.shape[2:], image.dtype)
    strided = larger[::2, ::3]
    strided[...] = image
    assert c.flags.c_contiguous and not fortran.flags.c_contiguous and not strided.flags.c_contiguous
    return {"C": c, "F": fortran, "strided": strided}


def segment_ids(rng, shape, dtype):
    """Segment ids that use the dtype's range: few values, so that regions
    form, spread over the top of the range where the dtype allows."""
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    top = np.iinfo(dtype).max
    choices = np.array([0, 1, 2, top - 1, top], dtype=dtype)
    return choices[rng.integers(0, len(choices), shape)]


@pytest.mark.parametrize("backend", DEEP_BACKENDS)
@pytest.mark.parametrize("dtype", VIEW_DTYPES)
@pytest.mark.parametrize("criterion", ["binary", "segments"])
def test_in_place_equals_copied(backend, dtype, criterion):
    rng = np.random.default_rng(5)
    image = segment_ids(rng, (37, 53), dtype)
    want, want_n = skimage_labels(image, 8, segments=criterion == "segments")
    for name, array in layouts(image).items():
        labels, n = glccl.label(array, criterion=criterion, backend=backend)
        assert n == want_n, name
        np.testing.assert_array_equal(labels, want, err_msg=name)
        labels, n = glccl.Labeler(criterion=criterion, backend=backend).label(array)
        assert n == want_n, name
        np.testing.assert_array_equal(labels, want, err_msg=name)


@pytest.mark.parametrize("backend", DEEP_BACKENDS)
def test_gray_with_a_plane_axis(backend):
    image = random_binary(np.random.default_rng(6), 29, 41)
    want = skimage_labels(image, 4)[0]
    labels, _ = glccl.label(image[:, :, np.newaxis], connectivity=4, backend=backend, channel_axis=-1)
    np.testing.assert_array_equal(labels, want)


@pytest.mark.parametrize("backend", DEEP_BACKENDS)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_color_in_place_equals_copied(backend, dtype):
    # Two-valued channels: threshold 0 joins equal colours only.
    rng = np.random.default_rng(7)
    image = (rng.integers(0, 2, (31, 45, 4)) * np.iinfo(dtype).max).astype(dtype)
    ids = image.astype(np.int64) @ np.array([1, 2, 4, 8])
    want, want_n = skimage_labels(ids + 1, 8, segments=True)
    for name, array in layouts(image).items():
        labels, n = glccl.label(array, criterion=("threshold", 0), backend=backend, channel_axis=-1)
        assert n == want_n, name
        np.testing.assert_array_equal(labels, want, err_msg=name)


@pytest.mark.parametrize("backend", DEEP_BACKENDS)
def test_bool_bytes_past_one(backend):
    # numpy's bool arrays may hold bytes other than 0 and 1 (a uint8 array
    # viewed as bool); each is True, as in a copy: one segment id, and never
    # above a binary level of 1.
    rng = np.random.default_rng(8)
    raw = rng.integers(0, 4, (33, 47)).astype(np.uint8)
    mask = raw.view(np.bool_)
    assert mask.flags.c_contiguous and raw.max() > 1
    want, want_n = skimage_labels(raw != 0, 8, segments=True)
    for criterion in ("binary", "segments"):
        labels, n = glccl.label(mask, criterion=criterion, backend=backend)
        assert n == want_n, criterion
        np.testing.assert_array_equal(labels, want, err_msg=criterion)
    labels, n = glccl.label(mask, criterion=("binary", 1), backend=backend)
    assert n == 0 and not labels.any()
    labels, n = glccl.label(mask, criterion=("threshold", 0), backend=backend)
    want, want_n = skimage_labels((raw != 0) + 1, 8, segments=True)
    assert n == want_n
    np.testing.assert_array_equal(labels, want)


def test_array_changed_between_calls():
    # The image is read on each call, never remembered from the last one.
    image = np.zeros((20, 30), np.uint8)
    labeler = glccl.Labeler()
    assert labeler.label(image)[1] == 0
    image[5, 5] = image[10, 10] = 1
    assert labeler.label(image)[1] == 2
    assert glccl.label(image)[1] == 2


# ---- out= ------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["auto"] + DEEP_BACKENDS)
def test_contiguous_out_is_filled_in_place(backend):
    rng = np.random.default_rng(9)
    images = [random_binary(rng, 35, 49) for _ in range(3)]
    labeler = glccl.Labeler(backend=backend)
    # Rows 1..35 of a larger array: C-contiguous, and the rows around it
    # must stay as they are.
    larger = np.full((37, 49), 0xDEADBEEF, np.uint32)
    out = larger[1:-1]
    assert out.flags.c_contiguous
    for image in images:
        labels, n = labeler.label(image, out=out)
        assert labels is out and np.shares_memory(labels, larger)
        want, want_n = skimage_labels(image, 8)
        assert n == want_n
        np.testing.assert_array_equal(out, want)
        assert (larger[0] == 0xDEADBEEF).all() and (larger[-1] == 0xDEADBEEF).all()


@pytest.mark.parametrize("backend", ["auto"] + DEEP_BACKENDS)
def test_other_outs_get_a_copy(backend):
    rng = np.random.default_rng(10)
    image = random_binary(rng, 27, 38)
    want = skimage_labels(image, 4)[0]
    labeler = glccl.Labeler(connectivity=4, backend=backend)
    # Every other column of a larger array: the columns between stay.
    larger = np.full((27, 76), 0xDEADBEEF, np.uint32)
    labels, _ = labeler.label(image, out=larger[:, ::2])
    np.testing.assert_array_equal(larger[:, ::2], want)
    assert (larger[:, 1::2] == 0xDEADBEEF).all()
    # Unaligned (C-contiguous, but its elements start at an odd address).
    unaligned = np.frombuffer(bytearray(4 * want.size + 1), np.uint32, offset=1).reshape(want.shape)
    assert unaligned.flags.c_contiguous and not unaligned.flags.aligned and unaligned.flags.writeable
    labels, _ = labeler.label(image, out=unaligned)
    assert labels is unaligned
    np.testing.assert_array_equal(unaligned, want)


# ---- glccl.label()'s recycled label storage --------------------------------------------------

def test_results_held_in_a_loop_stay_independent():
    rng = np.random.default_rng(11)
    images = [random_binary(rng, 1024, 1024, 0.3) for _ in range(5)]
    expected = [skimage_labels(image, 8)[0] for image in images]
    held = []  # (image index, labels)
    for i in range(50):
        labels, _ = glccl.label(images[i % 5])
        held.append((i % 5, labels))
        if i % 10 == 9:
            del held[-3:-1]  # two results released: later calls take their storage
    assert len({labels.ctypes.data for _, labels in held}) == len(held)
    for k, labels in held:
        assert labels.flags.writeable and labels.flags.c_contiguous
        np.testing.assert_array_equal(labels, expected[k])
    held[1][1][...] = 7
    np.testing.assert_array_equal(held[0][1], expected[held[0][0]])
    np.testing.assert_array_equal(held[2][1], expected[held[2][0]])


def test_released_storage_is_taken_again():
    # A size no other test uses, so that the pool holds no other buffer of it.
    image = random_binary(np.random.default_rng(12), 333, 517)
    want = skimage_labels(image, 8)[0]
    labels, _ = glccl.label(image)
    address = labels.ctypes.data
    labels[...] = 0
    del labels
    again, _ = glccl.label(image)
    assert again.ctypes.data == address
    np.testing.assert_array_equal(again, want)


def test_storage_under_a_view_is_never_taken():
    rng = np.random.default_rng(13)
    image, other = random_binary(rng, 311, 523), random_binary(rng, 311, 523)
    labels, _ = glccl.label(image)
    address = labels.ctypes.data
    view = labels[::2]
    kept = view.copy()
    del labels
    for _ in range(4):
        again, _ = glccl.label(other)
        assert again.ctypes.data != address
        del again
    np.testing.assert_array_equal(view, kept)
    del view
    again, _ = glccl.label(other)
    assert again.ctypes.data == address


@pytest.mark.parametrize("dtype", [np.uint8, np.int32])
def test_threads_take_their_own_buffers(dtype):
    # int32 images are copied: each call copies into a buffer of its own.
    rng = np.random.default_rng(14)
    images = [random_binary(rng, 64, 96).astype(dtype) for _ in range(6)]
    expected = [skimage_labels(im, 8)[0] for im in images]
    for backend in ["auto"] + GL_BACKENDS[:1]:
        assert label_in_threads(lambda image: glccl.label(image, backend=backend), images, expected, 8) == []


@pytest.mark.parametrize("backend", GL_BACKENDS[:1])
def test_loop_does_not_fault_in_fresh_memory(backend):
    # A loop that releases each result: the label storage and the host copy
    # of the (int32, so copied) image are taken again by the next call
    # instead of being allocated and touched anew. 2900 x 2900 x 4 bytes is
    # above glibc's largest mmap threshold (32 MiB), below which malloc would
    # reuse the freed memory by itself. (The cpu backend's reference labeler
    # allocates its own labels, so only a GL backend is counted.)
    image = random_binary(np.random.default_rng(15), 2900, 2900).astype(np.int32)
    glccl.label(image, backend=backend)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(3):
        labels, _ = glccl.label(image, backend=backend)
        del labels
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    pages_per_call = image.size * 4 // resource.getpagesize()
    assert faults < pages_per_call // 4, f"{faults} page faults over 3 calls of 2 x {pages_per_call} pages"
