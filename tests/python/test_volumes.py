"""glccl.label on numpy volumes (D, H, W), byte for byte against
scipy.ndimage.label with the matching structure (6: the cross, 18: the cube
without its corners, 26: the full cube) and scikit-image's label; the table
against scipy.ndimage's find_objects and sums."""

import numpy as np
import pytest
from scipy import ndimage
from skimage import measure

import glccl

# glccl's connectivity -> scipy's structure rank and scikit-image's connectivity.
RANKS = {6: 1, 18: 2, 26: 3}


def scipy_labels(foreground, connectivity):
    labels, n = ndimage.label(foreground, ndimage.generate_binary_structure(3, RANKS[connectivity]))
    return labels, n


def scipy_table(labels, n):
    """glccl's table columns from scipy.ndimage: the box (find_objects), the
    count and the centroid (exact integer sums, one division)."""
    index = np.arange(1, n + 1)
    boxes = ndimage.find_objects(labels)
    z, y, x = np.indices(labels.shape, dtype=np.int64)
    area = ndimage.sum_labels(np.ones_like(labels, dtype=np.int64), labels, index).astype(np.int64)
    sums = [np.rint(ndimage.sum_labels(axis, labels, index)).astype(np.int64) for axis in (x, y, z)]
    return {
        "label": index,
        "left": np.array([b[2].start for b in boxes]), "top": np.array([b[1].start for b in boxes]),
        "front": np.array([b[0].start for b in boxes]),
        "width": np.array([b[2].stop - b[2].start for b in boxes]),
        "height": np.array([b[1].stop - b[1].start for b in boxes]),
        "depth": np.array([b[0].stop - b[0].start for b in boxes]),
        "area": area,
        "centroid_x": sums[0] / area, "centroid_y": sums[1] / area, "centroid_z": sums[2] / area,
    }


def check_volume(volume, connectivity, criterion="binary", foreground=None, reference=None):
    """glccl's labels, count and table equal scipy's (or `reference`'s labels)."""
    labels, n, table = glccl.label(volume, connectivity=connectivity, criterion=criterion, return_table=True)
    if reference is None:
        reference, expected_n = scipy_labels(np.asarray(volume) != 0 if foreground is None else foreground,
                                             connectivity)
    else:
        expected_n = int(reference.max())
    assert labels.shape == np.shape(volume)
    assert labels.dtype == np.uint32
    assert n == expected_n
    np.testing.assert_array_equal(labels, reference)
    expected = scipy_table(np.asarray(reference), n) if n else None
    assert set(table) == {"label", "left", "top", "width", "height", "area", "centroid_x", "centroid_y",
                          "front", "depth", "centroid_z"}
    for key, column in table.items():
        assert len(column) == n
        if n:
            np.testing.assert_array_equal(column, expected[key], err_msg=key)
    return labels, n


@pytest.mark.parametrize("connectivity", [6, 18, 26])
@pytest.mark.parametrize("seed", range(4))
def test_random_volumes_equal_scipy_and_skimage(connectivity, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 23, 3))
    density = (0.1, 0.3, 0.5, 0.8)[seed]
    volume = (rng.random(shape) < density).astype(np.uint8)
    labels, _ = check_volume(volume, connectivity)
    np.testing.assert_array_equal(labels, measure.label(volume, connectivity=RANKS[connectivity]))
    # scikit-image's numbering of the connectivity means the same.
    same, _ = glccl.label(volume, connectivity=RANKS[connectivity])
    np.testing.assert_array_equal(same, labels)


@pytest.mark.parametrize("shape", [(1, 1, 37), (37, 1, 1), (1, 37, 1), (1, 13, 17), (1, 1, 1)])
@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_thin_volumes_and_one_slice(shape, connectivity):
    rng = np.random.default_rng(sum(shape))
    check_volume((rng.random(shape) < 0.6).astype(np.uint8), connectivity)
    check_volume(np.ones(shape, np.uint8), connectivity)
    check_volume(np.zeros(shape, np.uint8), connectivity)


def test_corner_and_edge_joins_separate_6_18_26():
    # Two voxels touching by an edge, and two touching by a corner only.
    edge = np.zeros((2, 2, 2), np.uint8)
    edge[0, 0, 0] = edge[1, 1, 0] = 1
    corner = np.zeros((2, 2, 2), np.uint8)
    corner[0, 0, 0] = corner[1, 1, 1] = 1
    assert [glccl.label(edge, connectivity=c)[1] for c in (6, 18, 26)] == [2, 1, 1]
    assert [glccl.label(corner, connectivity=c)[1] for c in (6, 18, 26)] == [2, 2, 1]
    for c in (6, 18, 26):
        check_volume(edge, c)
        check_volume(corner, c)


def helix(depth=40, size=21, turns=3.0):
    """A thin helix descending through the slices, and a comb of teeth from
    a spine: components that wind across many rows and slices."""
    volume = np.zeros((depth, size, size), np.uint8)
    centre, radius = size // 2, size // 2 - 2
    for z in range(depth):
        angle = 2 * np.pi * turns * z / depth
        volume[z, int(round(centre + radius * np.sin(angle))), int(round(centre + radius * np.cos(angle)))] = 1
    volume[:, 0, :] = 1                   # the comb's spine: the first row of every slice
    volume[::2, 0:size // 3, ::3] = 1     # teeth down from it on even slices
    return volume


@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_helix_and_comb(connectivity):
    check_volume(helix(), connectivity)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32,
                                   np.float32, np.uint64, np.int64, np.float64])
@pytest.mark.parametrize("order", ["C", "F"])
def test_dtypes_and_memory_orders(dtype, order):
    rng = np.random.default_rng(7)
    values = (rng.random((6, 9, 11)) < 0.4) * rng.integers(1, 100, (6, 9, 11))
    volume = np.asarray(values.astype(dtype), order=order)
    check_volume(volume, 26, foreground=values != 0)
    # A strided view labels as its copy.
    view = volume[::2, ::-1, 1::2]
    check_volume(view, 6, foreground=np.ascontiguousarray(view) != 0)


@pytest.mark.parametrize("connectivity", [6, 18, 26])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
def test_segments_equal_skimage(connectivity, dtype):
    rng = np.random.default_rng(connectivity)
    ids = rng.integers(0, 4, (9, 13, 10)) * (300 if dtype != np.uint8 else 50)
    volume = ids.astype(dtype)
    reference = measure.label(volume.astype(np.int64), background=0, connectivity=RANKS[connectivity])
    check_volume(volume, connectivity, criterion="segments", reference=reference)


def test_binary_level_and_threshold():
    rng = np.random.default_rng(5)
    volume = rng.integers(0, 256, (7, 10, 12)).astype(np.uint8)
    check_volume(volume, 18, criterion=("binary", 128), foreground=volume > 128)
    check_volume(volume, 26, criterion="binary:200", foreground=volume > 200)
    # Threshold T: neighbours connect when their values differ by at most T;
    # with two well-separated levels and T below their gap, the components
    # are scikit-image's segments of the levels (every voxel foreground).
    levels = (rng.random((7, 10, 12)) < 0.5).astype(np.uint8) * 100 + 5
    noisy = levels + rng.integers(0, 3, levels.shape).astype(np.uint8)
    reference = measure.label(levels.astype(np.int64), background=0, connectivity=1)
    check_volume(noisy, 6, criterion=("threshold", 3), reference=reference)


def test_default_connectivity_is_full_and_2d_is_unchanged():
    volume = helix()
    labels, n = glccl.label(volume)
    np.testing.assert_array_equal(labels, scipy_labels(volume, 26)[0])
    image = volume[3]
    labels, n, table = glccl.label(image, return_table=True)
    np.testing.assert_array_equal(labels, measure.label(image, connectivity=2))
    assert set(table) == {"label", "left", "top", "width", "height", "area", "centroid_x", "centroid_y"}


def test_volume_refusals_say_what_was_expected():
    volume = np.ones((3, 4, 5), np.uint8)
    with pytest.raises(ValueError, match=r"^glccl.label\(\): connectivity 8 is for 2-D images"):
        glccl.label(volume, connectivity=8)
    with pytest.raises(ValueError, match=r"^glccl.label\(\): connectivity 3 .* is for volumes"):
        glccl.label(volume[0], connectivity=3)
    with pytest.raises(ValueError, match=r"^glccl.label\(\): volume is empty"):
        glccl.label(np.ones((0, 4, 5), np.uint8))
    with pytest.raises(ValueError, match=r"at \[1, 2, 3\]"):
        bad = np.zeros((3, 4, 5), np.int32)
        bad[1, 2, 3] = -1
        glccl.label(bad)
    with pytest.raises(ValueError, match=r"^glccl.Labeler.label\(\): the array is a volume"):
        glccl.Labeler().label(volume)
