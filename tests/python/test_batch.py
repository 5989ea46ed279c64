"""glccl.label_batch on host stacks: every image of a stack labeled as if
alone, against scikit-image image by image (both connectivities, every
criterion, N of 1, uneven content, empty images), and stacks handed over
through the DLPack protocol. Runs everywhere (the host route); the GPU
batches are test_gpu_batches.py's."""

import numpy as np
import pytest

import glccl
from references import skimage_labels, skimage_table, TABLE_COLUMNS


def uneven_stack(n, height, width, seed, levels=2):
    """n images of one size: empty, full, sparse and dense ones side by side."""
    rng = np.random.default_rng(seed)
    stack = np.zeros((n, height, width), np.uint8)
    for i in range(n):
        density = (0.0, 1.0, 0.15, 0.55)[i % 4]
        values = rng.integers(1, levels, size=(height, width), endpoint=True).astype(np.uint8)
        stack[i] = np.where(rng.random((height, width)) < density, values, 0)
    return stack


def check_against_skimage(stack, labels, counts, connectivity, segments=False):
    """Every image of the stack against scikit-image (labels and counts as
    host arrays)."""
    assert labels.shape == stack.shape and labels.dtype == np.uint32
    assert counts.shape == (len(stack),)
    for i, image in enumerate(stack):
        expected, n = skimage_labels(image, connectivity, segments=segments)
        assert int(counts[i]) == n, f"image {i}"
        np.testing.assert_array_equal(labels[i], expected, err_msg=f"image {i}")


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("n", [1, 2, 7])
def test_binary_stacks_match_skimage(connectivity, n):
    stack = uneven_stack(n, 37, 53, seed=n * 10 + connectivity)
    labels, counts = glccl.label_batch(stack, connectivity)
    check_against_skimage(stack, labels, counts, connectivity)


@pytest.mark.parametrize("connectivity", [4, 8])
def test_segment_stacks_match_skimage(connectivity):
    stack = uneven_stack(5, 41, 29, seed=7 + connectivity, levels=4)
    labels, counts = glccl.label_batch(stack, connectivity, criterion="segments")
    check_against_skimage(stack, labels, counts, connectivity, segments=True)


@pytest.mark.parametrize("connectivity", [4, 8])
def test_threshold_stacks_match_labeling_alone(connectivity):
    rng = np.random.default_rng(31)
    stack = rng.integers(0, 60, size=(4, 23, 31), dtype=np.uint8)
    labels, counts = glccl.label_batch(stack, connectivity, criterion=("threshold", 20))
    for i, image in enumerate(stack):
        alone, n = glccl.label(image, connectivity, criterion=("threshold", 20), backend="cpu")
        assert counts[i] == n
        np.testing.assert_array_equal(labels[i], alone)


def test_binary_level_stacks_match_skimage():
    stack = (np.arange(3 * 16 * 16).reshape(3, 16, 16) * 37 % 256).astype(np.uint8)
    labels, counts = glccl.label_batch(stack, 8, criterion=("binary", 100))
    for i, image in enumerate(stack):
        expected, n = skimage_labels(image, 8, level=100)
        assert counts[i] == n
        np.testing.assert_array_equal(labels[i], expected)


def test_empty_images_and_an_empty_stack():
    labels, counts = glccl.label_batch(np.zeros((3, 8, 9), np.uint8))
    assert labels.shape == (3, 8, 9) and not labels.any() and list(counts) == [0, 0, 0]
    labels, counts = glccl.label_batch(np.zeros((0, 8, 9), np.uint8))
    assert labels.shape == (0, 8, 9) and counts.shape == (0,)


def test_tables_come_one_per_image():
    stack = uneven_stack(4, 20, 24, seed=5)
    labels, counts, tables = glccl.label_batch(stack, 8, return_table=True)
    assert len(tables) == 4
    for i in range(4):
        expected = skimage_table(labels[i])
        for column in TABLE_COLUMNS:
            np.testing.assert_allclose(tables[i][column], expected[column], err_msg=f"image {i}, {column}")


def test_bad_stacks_are_refused_with_the_entry():
    with pytest.raises(ValueError, match=r"glccl\.label_batch\(\).*\(N, H, W\)"):
        glccl.label_batch(np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError, match=r"glccl\.label_batch\(\)"):
        glccl.label_batch(np.zeros((2, 4, 4), np.uint8), connectivity=26)
    # A 4-D stack is colour, channels last: refused in the batch's words,
    # not glccl.Labeler.label()'s.
    with pytest.raises(ValueError, match=r"^glccl\.label_batch\(\): a stack of colour images is \(N, H, W, C\) "
                                         r"with C 1, 3 or 4; got C = 2$"):
        glccl.label_batch(np.zeros((2, 2, 2, 2), np.uint8))
    with pytest.raises(ValueError, match=r"^glccl\.label_batch\(\): a stack of colour images \(N, H, W, 3\) is only "
                                         r"for criterion=\(\"threshold\", T\)"):
        glccl.label_batch(np.zeros((2, 4, 4, 3), np.uint8))
    # An image's own error names the batch and the image.
    stack = np.zeros((3, 4, 5), np.int16)
    stack[2, 1, 3] = -7
    with pytest.raises(ValueError, match=r"^glccl\.label_batch\(\): image 2 of the stack: the value -7 at \[1, 3\]"):
        glccl.label_batch(stack)


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_colour_stacks_match_labeling_each_image_alone(channels):
    rng = np.random.default_rng(channels)
    stack = (rng.integers(0, 3, size=(3, 17, 13, channels)) * 60).astype(np.uint8)
    labels, counts = glccl.label_batch(stack, 4, criterion=("threshold", 59))
    assert labels.shape == (3, 17, 13)
    for i, image in enumerate(stack):
        # Colour regions: equal colours (channels 60 apart) are scikit-image's
        # regions of equal value, every pixel foreground.
        codes = image.astype(np.int64) @ (256 ** np.arange(channels))
        expected, n = skimage_labels(codes + 1, 4, segments=True)
        assert counts[i] == n
        np.testing.assert_array_equal(labels[i], expected)


class HostDlpack:
    """A CPU array that offers only the DLPack protocol (what a library
    other than numpy hands over)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


@pytest.mark.skipif(not hasattr(np.zeros(1), "__dlpack__"), reason="this numpy has no __dlpack__ (numpy < 1.22)")
def test_a_cpu_dlpack_producer_is_labeled_like_its_array():
    stack = uneven_stack(3, 30, 30, seed=9)
    labels, counts = glccl.label_batch(HostDlpack(stack), 8)
    check_against_skimage(stack, labels, counts, 8)
