"""glccl.cc3d against what cc3d documents (cc3d itself is not a Debian
package): labels against scikit-image and scipy where they overlap
(multi-label images are scikit-image's equal-value regions with 0 as
background; binary images scipy's), cc3d's scan order for Fortran-ordered
arrays, its dtype rule on hand-counted cases, statistics against
scipy.ndimage, dust against scipy's components of the sizes kept, and
delta against a breadth-first search written here."""

import collections
import itertools

import numpy as np
import pytest
from scipy import ndimage
from skimage import measure

import glccl
from glccl import cc3d

HOPS = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}


def skimage_hops(connectivity, ndim):
    """scikit-image's connectivity for cc3d's on an array of ndim dimensions
    (2-D arrays: 6 is 4, 18 and 26 are 8)."""
    if ndim == 3:
        return HOPS[connectivity]
    if ndim == 1:
        return 1
    return 1 if connectivity in (4, 6) else 2


@pytest.mark.parametrize("dtype", [bool, np.uint8, np.int8, np.uint16, np.int32, np.uint64, np.int64, np.float32])
@pytest.mark.parametrize("shape,connectivities", [((19, 27), (4, 8, 6, 18, 26)), ((6, 7, 8), (6, 18, 26)),
                                                   ((33,), (6, 26))])
def test_labels_as_skimage(dtype, shape, connectivities):
    rng = np.random.default_rng(shape[0])
    image = rng.integers(0, 3, size=shape).astype(dtype)
    for connectivity in connectivities:
        labels, n = cc3d.connected_components(image, connectivity=connectivity, return_N=True)
        want, want_n = measure.label(image, background=0, connectivity=skimage_hops(connectivity, len(shape)),
                                     return_num=True)
        assert n == want_n
        assert labels.dtype == np.uint16 and labels.shape == shape and labels.flags.c_contiguous
        np.testing.assert_array_equal(labels, want)
        binary = cc3d.connected_components(image, connectivity=connectivity, binary_image=True)
        structure = ndimage.generate_binary_structure(len(shape), skimage_hops(connectivity, len(shape)))
        np.testing.assert_array_equal(binary, ndimage.label(image, structure)[0])


def test_negative_and_float_values_are_their_own_regions():
    image = np.array([[-1, -1, 0, 2**31 - 1], [-2, -1, 0, 2**31 - 1]], dtype=np.int32)
    labels, n = cc3d.connected_components(image, connectivity=4, return_N=True)
    np.testing.assert_array_equal(labels, measure.label(image, connectivity=1))
    floats = np.array([[0.5, 0.5, 0.0, -0.0], [0.25, 0.5, -0.0, 1e30]])
    np.testing.assert_array_equal(cc3d.connected_components(floats, connectivity=4), [[1, 1, 0, 0], [2, 1, 0, 3]])


def test_fortran_order_is_scanned_axis_0_first():
    rng = np.random.default_rng(3)
    for shape, connectivity in (((12, 17), 8), ((5, 6, 7), 26)):
        image = np.asfortranarray(rng.integers(0, 3, size=shape).astype(np.uint8))
        labels = cc3d.connected_components(image, connectivity=connectivity)
        assert labels.flags.f_contiguous and labels.shape == shape
        want = measure.label(image.T, connectivity=skimage_hops(connectivity, len(shape))).T
        np.testing.assert_array_equal(labels, want)
    strided = rng.integers(0, 2, size=(20, 30)).astype(np.uint8)[::2, ::3]
    np.testing.assert_array_equal(cc3d.connected_components(strided, connectivity=4),
                                  measure.label(strided, connectivity=1))


def test_out_dtype_rule():
    # Multi-label: cc3d's estimate counts, row by row, the nonzero elements
    # that differ from the one before (70000 here: uint32).
    row = np.tile(np.array([1, 2], np.uint8), 35000)[np.newaxis]
    assert cc3d.connected_components(row, connectivity=4).dtype == np.uint32
    assert cc3d.connected_components(row[:, :60000], connectivity=4).dtype == np.uint16
    # Binary: an eighth of the elements (each side rounded up to even, a
    # 2-D array is one slice of depth 1, counted as 2) plus 1 for 8 and 26:
    # 2 * 600 * 600 / 8 + 1 = 90001; half of them for 4 and 6.
    assert cc3d.connected_components(np.zeros((600, 600), bool), connectivity=8).dtype == np.uint32
    assert cc3d.connected_components(np.zeros((360, 360), bool), connectivity=8).dtype == np.uint16
    assert cc3d.connected_components(np.zeros((360, 360), bool), connectivity=4).dtype == np.uint32
    for out_dtype in (np.uint16, np.uint32, np.uint64, "uint64"):
        labels = cc3d.connected_components(np.eye(4, dtype=np.uint8), connectivity=4, out_dtype=out_dtype)
        assert labels.dtype == np.dtype(out_dtype)
        np.testing.assert_array_equal(labels, np.diag([1, 2, 3, 4]))
    with pytest.raises(ValueError, match=r"must be one of: np.uint16, np.uint32, np.uint64"):
        cc3d.connected_components(np.eye(4), out_dtype=np.int32)
    with pytest.raises(ValueError, match=r"is too small"):
        cc3d.connected_components(row, connectivity=4, out_dtype=np.uint16)
    # max_labels, where > 0, bounds the estimate (cc3d: min(max_labels,
    # estimate, voxels)): 300 columns of alternating values, estimated at
    # 90000 (uint32), are uint16 under max_labels=1000, and out_dtype uint16
    # is taken there.
    columns = (1 + np.arange(300) % 2).astype(np.uint8)[np.newaxis].repeat(300, 0)
    want = np.tile(np.arange(1, 301), (300, 1))
    assert cc3d.connected_components(columns, connectivity=4).dtype == np.uint32
    for arguments in (dict(max_labels=1000), dict(max_labels=1000, out_dtype=np.uint16)):
        labels = cc3d.connected_components(columns, connectivity=4, **arguments)
        assert labels.dtype == np.uint16, arguments
        np.testing.assert_array_equal(labels, want)
    assert cc3d.connected_components(columns, connectivity=4, max_labels=0).dtype == np.uint32


def test_arguments_and_errors():
    image = np.eye(5, dtype=np.uint8)
    labels = cc3d.connected_components(image, max_labels=3, connectivity=4)
    np.testing.assert_array_equal(labels, measure.label(image, connectivity=1))
    assert cc3d.connected_components(image, connectivity=np.int64(8), return_N=True)[1] == 1
    empty = cc3d.connected_components(np.zeros((0, 4), np.uint8), return_N=True)
    assert empty[0].shape == (0,) and empty[0].dtype == np.uint8 and empty[1] == 0
    with pytest.raises(cc3d.DimensionError):
        cc3d.connected_components(np.zeros((2, 2, 2, 2)))
    with pytest.raises(ValueError, match=r"Only 6, 18, and 26 connectivities are supported for 3D images"):
        cc3d.connected_components(np.zeros((2, 2, 2)), connectivity=8)
    with pytest.raises(ValueError, match=r"Only 4, 8, and 6, 18, 26 connectivities are supported for 2D"):
        cc3d.connected_components(np.zeros((2, 2)), connectivity=5)
    with pytest.raises(ValueError, match=r"^glccl.cc3d.connected_components\(\): delta must be >= 0"):
        cc3d.connected_components(image.astype(np.float32), connectivity=4, delta=-1.0)
    if np.dtype(np.longdouble).itemsize > 8:
        with pytest.raises(TypeError, match=r"^Type float\d+ is not currently supported"):
            cc3d.connected_components(image.astype(np.longdouble), connectivity=4)


def test_out_file(tmp_path):
    image = np.random.default_rng(4).integers(0, 3, size=(9, 11)).astype(np.uint8)
    mapped = cc3d.connected_components(image, connectivity=4, out_file=str(tmp_path / "labels.bin"))
    assert isinstance(mapped, np.memmap)
    np.testing.assert_array_equal(mapped, measure.label(image, connectivity=1))
    stored = np.fromfile(tmp_path / "labels.bin", dtype=mapped.dtype).reshape(image.shape)
    np.testing.assert_array_equal(stored, mapped)


def delta_reference(image, delta, connectivity):
    """Breadth-first search: nonzero neighbours whose values differ by at most
    delta join; numbered in raster order of first element."""
    image = np.asarray(image)
    hops = skimage_hops(connectivity, image.ndim)
    steps = [s for s in itertools.product((-1, 0, 1), repeat=image.ndim) if 0 < sum(map(abs, s)) <= hops]
    labels = np.zeros(image.shape, np.int64)
    n = 0
    for start in np.ndindex(image.shape):
        if image[start] == 0 or labels[start]:
            continue
        n += 1
        labels[start] = n
        queue = collections.deque([start])
        while queue:
            here = queue.popleft()
            for step in steps:
                there = tuple(h + s for h, s in zip(here, step))
                if all(0 <= t < e for t, e in zip(there, image.shape)) and image[there] and not labels[there] \
                        and abs(int(image[there]) - int(image[here])) <= delta:
                    labels[there] = n
                    queue.append(there)
    return labels, n


def test_delta_reference_is_sound():
    # At delta 0 the search joins equal values: scikit-image's regions.
    image = np.random.default_rng(5).integers(0, 3, size=(12, 13))
    for connectivity, hops in ((4, 1), (8, 2)):
        labels, n = delta_reference(image, 0, connectivity)
        want, want_n = measure.label(image, connectivity=hops, return_num=True)
        assert n == want_n
        np.testing.assert_array_equal(labels, want)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.int64])
def test_delta_against_search(dtype):
    rng = np.random.default_rng(6)
    for shape, connectivity in (((15, 18), 4), ((15, 18), 8), ((5, 6, 7), 6), ((5, 6, 7), 26)):
        image = rng.integers(0, 12, size=shape).astype(dtype)
        for delta in (1, 3, 11):
            labels, n = cc3d.connected_components(image, connectivity=connectivity, delta=delta, return_N=True)
            want, want_n = delta_reference(image, delta, connectivity)
            assert n == want_n
            np.testing.assert_array_equal(labels, want)


def test_delta_zero_is_equal_values():
    image = np.random.default_rng(7).integers(0, 4, size=(20, 20)).astype(np.uint8)
    np.testing.assert_array_equal(cc3d.connected_components(image, connectivity=8, delta=0),
                                  measure.label(image, connectivity=2))


def test_statistics_against_scipy():
    rng = np.random.default_rng(8)
    for shape in ((25, 31), (6, 7, 9)):
        labels = cc3d.connected_components(rng.integers(0, 3, size=shape).astype(np.uint8),
                                           connectivity=6 if len(shape) == 3 else 8)
        assert labels.max() > 2
        labels[labels == 2] = 0  # an absent label
        stats = cc3d.statistics(labels)
        top = int(labels.max())
        counts = np.bincount(labels.ravel(), minlength=top + 1)
        assert stats["voxel_counts"].dtype == np.uint32
        np.testing.assert_array_equal(stats["voxel_counts"], counts)
        boxes = ndimage.find_objects(labels + 1)  # label 0 too, as cc3d
        assert stats["bounding_boxes"] == boxes
        with np.errstate(invalid="ignore"):  # the absent label's 0 / 0
            centroids = ndimage.center_of_mass(np.ones(shape), labels, np.arange(top + 1))
        present = counts > 0
        np.testing.assert_allclose(stats["centroids"][present], np.array(centroids)[present], rtol=1e-12)
        assert np.isnan(stats["centroids"][2]).all()
        raw = cc3d.statistics(labels, no_slice_conversion=True)["bounding_boxes"]
        assert raw.dtype == np.uint16 and raw.shape == (top + 1, 2 * len(shape))
        assert list(raw[2]) == [65535, 0] * len(shape)
    assert cc3d.statistics(np.zeros((0, 3), np.uint8)) == {"voxel_counts": None, "bounding_boxes": None,
                                                          "centroids": None}
    with pytest.raises(ValueError, match="values >= 0"):
        cc3d.statistics(np.array([[-1, 0]]))


def without_small_components(image, threshold):
    """The foreground of `image` less its scipy 8-connected components of
    fewer than `threshold` pixels (cc3d's rule; scikit-image's
    remove_small_objects changed its threshold's meaning across versions)."""
    components, _ = ndimage.label(image, structure=np.ones((3, 3)))
    return (np.bincount(components.ravel()) >= threshold)[components] & (components > 0)


def test_dust_as_small_components_removed():
    rng = np.random.default_rng(9)
    image = (rng.random((60, 60)) < 0.45).astype(np.uint8)
    n = cc3d.connected_components(image, connectivity=8, return_N=True)[1]
    for threshold in (1, 3, 10):
        dusted, left = cc3d.dust(image, threshold, connectivity=8, return_N=True)
        want = without_small_components(image, threshold)
        np.testing.assert_array_equal(dusted, want.astype(np.uint8))
        assert dusted.dtype == np.uint8
        assert left == measure.label(want, connectivity=2, return_num=True)[1]
        inverted, removed = cc3d.dust(image, threshold, connectivity=8, invert=True, return_N=True)
        np.testing.assert_array_equal(inverted, image * ~want)
        assert left + removed == n
    ranged = cc3d.dust(image, (3, 10), connectivity=8)
    sizes = ndimage.sum_labels(image, measure.label(image, connectivity=2), np.arange(1, n + 1))
    keep = np.flatnonzero((sizes >= 3) & (sizes < 10)) + 1
    np.testing.assert_array_equal(ranged, image * np.isin(measure.label(image, connectivity=2), keep))
    without_small = without_small_components(image, 3)
    signed = image.astype(np.int16) * -3
    dusted = cc3d.dust(signed, 3, connectivity=8)
    assert dusted.dtype == np.int16
    np.testing.assert_array_equal(dusted, signed * without_small)
    copy = image.copy()
    cc3d.dust(copy, 3, connectivity=8, in_place=True)
    np.testing.assert_array_equal(copy, without_small)
    labels = cc3d.connected_components(image, connectivity=8)
    np.testing.assert_array_equal(cc3d.dust(labels, 3, precomputed_ccl=True) > 0, without_small)


def test_largest_k():
    rng = np.random.default_rng(10)
    image = (rng.random((50, 50)) < 0.4).astype(np.uint8)
    labels, n = cc3d.connected_components(image, connectivity=4, return_N=True)
    sizes = np.bincount(labels.ravel())[1:]
    order = np.lexsort((np.arange(1, n + 1), -sizes)) + 1  # largest first, ties to the lower label
    largest = cc3d.largest_k(image, 1, connectivity=4)
    assert largest.dtype == bool
    np.testing.assert_array_equal(largest, labels == order[0])
    kept, k = cc3d.largest_k(image, 3, connectivity=4, return_N=True)
    assert k == 3 and kept.dtype == labels.dtype
    chosen = order[:3]
    by_size = chosen[np.lexsort((chosen, sizes[chosen - 1]))]  # smallest first, numbered 1..3
    want = np.zeros_like(labels)
    for number, label in enumerate(by_size, start=1):
        want[labels == label] = number
    np.testing.assert_array_equal(kept, want)
    everything, all_n = cc3d.largest_k(image, n + 2, connectivity=4, return_N=True)
    assert all_n == n
    np.testing.assert_array_equal(everything, labels)
    nothing = cc3d.largest_k(image, 0, connectivity=4)
    assert nothing.dtype == np.uint16 and not nothing.any()
