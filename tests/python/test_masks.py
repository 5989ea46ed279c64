"""Neighbourhood masks (scipy.ndimage's `structure`, any symmetric 3x3 or
3x3x3 block): glccl.ndimage.label against scipy.ndimage.label with every
symmetric 3x3 structure and random 3x3x3 ones, on random arrays (and arrays
with axes of length 1, whose offsets drop out), with scipy's errors; and
glccl.label(connectivity=mask) on the backends that take masks, against
the reference, and refused by the others with the reason."""

import itertools

import numpy as np
import pytest
from scipy import ndimage
from skimage import data

import glccl
import glccl.ndimage


def symmetric_structures(ndim):
    """Every 3**ndim bool block symmetric about its centre, the centre False
    (scipy reads no centre): one of each pair of opposite offsets chosen."""
    offsets = list(itertools.product((-1, 0, 1), repeat=ndim))
    firsts = offsets[:len(offsets) // 2]  # those before the centre, in C order
    for chosen in itertools.product((False, True), repeat=len(firsts)):
        block = np.zeros((3,) * ndim, bool)
        for offset, on in zip(firsts, chosen):
            if on:
                block[tuple(1 + o for o in offset)] = True
                block[tuple(1 - o for o in offset)] = True
        yield block


def random_structures(ndim, count, rng):
    """`count` random symmetric blocks of 3**ndim."""
    offsets = list(itertools.product((-1, 0, 1), repeat=ndim))
    firsts = offsets[:len(offsets) // 2]
    for _ in range(count):
        block = np.zeros((3,) * ndim, bool)
        for offset in firsts:
            if rng.random() < 0.4:
                block[tuple(1 + o for o in offset)] = True
                block[tuple(1 - o for o in offset)] = True
        block[(1,) * ndim] = rng.random() < 0.5  # the centre changes nothing
        yield block


def assert_like_scipy(image, structure, what):
    got_labels, got_n = glccl.ndimage.label(image, structure)
    want_labels, want_n = ndimage.label(image, structure)
    assert got_n == want_n, what
    assert got_labels.dtype == want_labels.dtype, what
    np.testing.assert_array_equal(got_labels, want_labels, err_msg=what)


def test_every_symmetric_3x3_structure_as_scipy():
    rng = np.random.default_rng(17)
    structures = list(symmetric_structures(2))
    assert len(structures) == 16
    for structure in structures:
        for shape in [(37, 41), (1, 30), (30, 1), (5, 70)]:
            for density in (0.3, 0.55, 0.8):
                image = rng.random(shape) < density
                assert_like_scipy(image, structure, f"{structure.astype(int).tolist()} {shape} {density}")
        # The centre set, an int structure and nested lists are the same structure.
        image = rng.random((19, 23)) < 0.5
        centred = structure.copy()
        centred[1, 1] = True
        assert_like_scipy(image, centred, "centre set")
        assert_like_scipy(image.astype(np.int16) * 7, structure.astype(int).tolist(), "lists")


def test_vertical_line_on_a_sample_image():
    coins = data.coins() > 110
    line = np.array([[0, 1, 0], [0, 0, 0], [0, 1, 0]])
    assert_like_scipy(coins, line, "coins, vertical line")
    diagonal = np.array([[1, 0, 0], [0, 0, 0], [0, 0, 1]])
    assert_like_scipy(coins, diagonal, "coins, one diagonal")
    # The line joins only along columns: columns of ones are one component each.
    columns = np.zeros((6, 19), bool)
    columns[1:5] = True
    labels, n = glccl.ndimage.label(columns, line)
    assert n == 19 == ndimage.label(columns, line)[1]


def test_random_3x3x3_structures_as_scipy():
    rng = np.random.default_rng(29)
    for structure in random_structures(3, 40, rng):
        for shape in [(9, 11, 13), (2, 17, 5), (1, 12, 9), (7, 1, 8), (6, 9, 1)]:
            image = rng.random(shape) < rng.choice([0.3, 0.6])
            assert_like_scipy(image, structure, f"{structure.astype(int).tolist()} {shape}")


def test_structures_of_arrays_with_axes_of_length_1():
    rng = np.random.default_rng(31)
    for structure in random_structures(4, 20, rng):
        for shape in [(2, 1, 5, 6), (1, 4, 1, 9), (3, 4, 5, 1)]:
            image = rng.random(shape) < 0.5
            assert_like_scipy(image, structure, f"4-D {shape}")
    for structure in symmetric_structures(1):
        image = rng.random(40) < 0.6
        assert_like_scipy(image, structure, f"1-D {structure.astype(int).tolist()}")


def test_structure_errors_as_scipy():
    image = np.eye(5)
    one_way = [[0, 1, 0], [1, 1, 0], [0, 0, 0]]
    one_way_3d = np.zeros((3, 3, 3), bool)
    one_way_3d[0, 1, 1] = True
    for arguments in [(image, one_way), (image.astype(np.float16), one_way), (np.ones((3, 3, 3)), one_way_3d)]:
        with pytest.raises(AssertionError) as want:
            ndimage.label(*arguments)
        with pytest.raises(AssertionError) as got:
            glccl.ndimage.label(*arguments)
        assert str(got.value) == f"glccl.ndimage.label(): {want.value}"
    # An empty input is returned before the structure is looked at, as scipy does.
    empty = np.zeros((0, 4))
    got, want = glccl.ndimage.label(empty, one_way), ndimage.label(empty, one_way)
    assert got[1] == want[1] == 0 and got[0].shape == want[0].shape
    for structure, kind in [(np.ones((3, 3, 3)), RuntimeError), (np.ones((3, 5)), ValueError)]:
        with pytest.raises(kind):
            ndimage.label(image, structure)
        with pytest.raises(kind):
            glccl.ndimage.label(image, structure)


def test_label_takes_a_mask_on_the_cpu_and_the_reference():
    rng = np.random.default_rng(37)
    image = rng.random((45, 70)) < 0.5
    volume = rng.random((6, 20, 30)) < 0.4
    for structure in symmetric_structures(2):
        want = ndimage.label(image, structure)
        for backend in ("auto", "cpu", "reference"):
            labels, n = glccl.label(image, connectivity=structure, backend=backend)
            assert n == want[1], (structure.astype(int).tolist(), backend)
            np.testing.assert_array_equal(labels, want[0])
    for structure in random_structures(3, 8, rng):
        want = ndimage.label(volume, structure)
        for backend in ("auto", "cpu", "reference"):
            labels, n = glccl.label(volume, connectivity=structure, backend=backend)
            assert n == want[1], (structure.astype(int).tolist(), backend)
            np.testing.assert_array_equal(labels, want[0])
    # The named connectivities' masks are those connectivities, on every backend that runs.
    backends = [b["name"] for b in glccl.backends() if b["available"] and b["name"] != "auto"]
    for backend in backends:
        for hops, named in [(1, 4), (2, 8)]:
            mask = ndimage.generate_binary_structure(2, hops)
            got = glccl.label(image, connectivity=mask, backend=backend)
            want = glccl.label(image, connectivity=named, backend="reference")
            assert got[1] == want[1], backend
            np.testing.assert_array_equal(got[0], want[0])


def test_label_masks_refused_with_the_reason():
    image = np.eye(6, dtype=bool)
    line = np.array([[0, 1, 0], [0, 0, 0], [0, 1, 0]])
    for backend in ("compute", "raster"):
        with pytest.raises(RuntimeError, match=rf"^glccl.label\(\): .*the {backend} backend labels the "
                                               r"connectivities 4, 8, 6, 18 and 26, not the neighbourhood "
                                               r"\[\[0, 1, 0\], \[0, 0, 0\], \[0, 1, 0\]\]: use the cpu or "
                                               r"reference backend"):
            glccl.label(image, connectivity=line, backend=backend)
    # The cuda backend refuses it too (or, in a build without CUDA, host memory at all).
    with pytest.raises(RuntimeError, match=r"^glccl.label\(\): .*the cuda backend"):
        glccl.label(image, connectivity=line, backend="cuda")
    with pytest.raises(ValueError, match=r"^glccl.label\(\): connectivity: the neighbourhood .* is not symmetric"):
        glccl.label(image, connectivity=[[0, 1, 0], [0, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match=r"^glccl.label\(\): a connectivity mask of this image is 3x3"):
        glccl.label(image, connectivity=np.ones((3, 3, 3)))
    with pytest.raises(ValueError, match=r"^glccl.label\(\): a connectivity mask of this volume is 3x3x3"):
        glccl.label(np.ones((2, 3, 4)), connectivity=line)
    with pytest.raises(TypeError, match=r"^glccl.label\(\): a connectivity mask holds bools or numbers"):
        glccl.label(image, connectivity=np.array([["a"] * 3] * 3))
