"""Every drop-in and helper against what it replaces, on seeded random
arrays of every dtype (signed included) and every class of shape: 0-d, 1-d,
axes of length 1 anywhere, 2-d, 3-d, 4-d. scikit-image's label, scipy's
label and find_objects, scikit-image's remove_small_objects are called
themselves; cc3d (not a Debian package) is an oracle written here from its
documented rule: a union-find over the array's elements in memory order.
The results must be the same (values, dtype, shape, memory order), or the
errors (type and message), or, where glccl documents that it refuses what
the library takes, glccl's refusal."""

import itertools
import warnings

import numpy as np
import pytest
from scipy import ndimage
from skimage import measure, morphology

import glccl
import glccl.ndimage
import glccl.skimage
from glccl import cc3d

INTEGERS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
DTYPES = [bool] + INTEGERS + [np.float16, np.float32, np.float64]
SHAPES = [(), (1,), (9,), (1, 1), (1, 7), (6, 1), (5, 7), (1, 1, 1), (1, 4, 5), (4, 1, 5), (4, 5, 1), (3, 4, 5),
          (1, 1, 6), (6, 1, 1), (2, 1, 3, 4), (2, 3, 1, 1), (1, 2, 3, 4), (2, 2, 3, 2), (1, 1, 1, 1, 5)]
# glccl labels images and volumes: an array of more axes longer than 1 is
# refused where scipy and scikit-image label it (python.md says so).
MORE_THAN_3_AXES = r"glccl labels arrays of at most 3 axes longer than 1"


def values(rng, shape, dtype, spread=3):
    """Small values, so that equal ones touch: negative ones for signed and
    float dtypes, and a NaN or two among floats."""
    raw = rng.integers(-spread + 1, spread, size=shape)
    if dtype is bool:
        return raw > 0
    kind = np.dtype(dtype).kind
    if kind == "u":
        raw = np.abs(raw)
    array = np.asarray(raw).astype(dtype)
    if kind == "f" and array.size > 3:
        array.ravel()[rng.integers(0, array.size, 2)] = np.nan
    return array


def outcome(call, *arguments, **keywords):
    """('ok', result) or (the exception's type, its message)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", call(*arguments, **keywords)
        except Exception as error:  # compared with the other library's
            return type(error), str(error)


def same(got, want):
    """Results equal in values, dtype, shape and memory order; tuples item
    by item; numbers by type and value."""
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(map(same, got, want))
    if isinstance(want, np.ndarray):
        return (isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape and
                got.flags.c_contiguous == want.flags.c_contiguous and got.flags.f_contiguous == want.flags.f_contiguous
                and np.array_equal(got, want))
    return type(got) is type(want) and got == want


def longer_axes(shape):
    return sum(side > 1 for side in shape)


def require_as(got, want, what):
    """The drop-in's outcome is the library's, or glccl's documented
    refusal of arrays of more than three axes longer than 1. An error is
    the library's type with its message, or with a message that names the
    drop-in first and carries the library's."""
    if want[0] == "ok" and got[0] is ValueError and MORE_THAN_3_AXES in got[1]:
        return
    assert got[0] == want[0], f"{what}: {got} against {want}"
    if got[0] == "ok":
        assert same(got[1], want[1]), f"{what}: {got[1]!r} against {want[1]!r}"
    else:
        assert got[1] == want[1] or (got[1].startswith("glccl.") and want[1] in got[1]), \
            f"{what}: {got[1]} against {want[1]}"


# ---- scikit-image and scipy, called themselves ------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_skimage_label_on_every_dtype_and_shape(shape):
    rng = np.random.default_rng(len(shape) * 31 + sum(shape))
    compared = 0
    for dtype in DTYPES:
        image = values(rng, shape, dtype)
        if np.dtype(dtype).kind == "f":
            image = np.nan_to_num(image)  # scikit-image casts floats to integers
        for background, connectivity in itertools.product((None, 0, 1, -1), [None] + list(range(len(shape) + 2))):
            arguments = dict(background=background, connectivity=connectivity, return_num=True)
            require_as(outcome(glccl.skimage.label, image, **arguments), outcome(measure.label, image, **arguments),
                       f"{np.dtype(dtype)} {shape} {arguments}")
            compared += 1
    assert compared == len(DTYPES) * 4 * (len(shape) + 3)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_ndimage_label_on_every_dtype_and_shape(shape):
    rng = np.random.default_rng(len(shape) * 37 + sum(shape))
    for dtype in DTYPES:
        image = values(rng, shape, dtype)
        structures = [None] + [ndimage.generate_binary_structure(len(shape), hops) for hops in range(1, len(shape) + 1)]
        for structure, output in itertools.product(structures, (None, np.uint16, np.int64)):
            require_as(outcome(glccl.ndimage.label, image, structure, output),
                       outcome(ndimage.label, image, structure, output),
                       f"{np.dtype(dtype)} {shape} structure {None if structure is None else structure.sum()} {output}")
        filled, wanted = np.full(shape, 7, np.int32), np.full(shape, 7, np.int32)
        require_as(outcome(glccl.ndimage.label, image, output=filled), outcome(ndimage.label, image, output=wanted),
                   f"{np.dtype(dtype)} {shape} output array")
        assert np.array_equal(filled, wanted) or longer_axes(shape) > 3


def test_skimage_label_scans_an_a_by_b_by_1_array_axis_0_first():
    # scikit-image swaps the axis of length 1 to the front before it scans
    # a non-boolean array: (3, 2, 1) is numbered in the order of its
    # (1, 2, 3) swap. Audit case and random (3, 5, 1) arrays of every dtype.
    image = np.zeros((3, 2, 1), np.uint8)
    image[0, 1] = image[1, 0] = 1
    for connectivity in (1, 2, 3):
        require_as(outcome(glccl.skimage.label, image, connectivity=connectivity),
                   outcome(measure.label, image, connectivity=connectivity), f"connectivity {connectivity}")
    rng = np.random.default_rng(44)
    for dtype, connectivity in itertools.product(INTEGERS, (None, 1, 2)):
        for _ in range(10):
            image = values(rng, (3, 5, 1), dtype)
            require_as(outcome(glccl.skimage.label, image, connectivity=connectivity),
                       outcome(measure.label, image, connectivity=connectivity), f"{np.dtype(dtype)} {image.ravel()}")


# ---- helpers against scipy and scikit-image ---------------------------------------------------

def label_arrays(rng, shape, dtype):
    """Labels: 0 background and a few positive values, so that one label
    can be several pieces and absent values leave gaps."""
    return np.asarray(rng.integers(0, 5, size=shape) * rng.integers(0, 2, size=shape)).astype(dtype)


def raster_relabeled(labels):
    """Labels renumbered 1..m in raster order of each label's first element."""
    flat = labels.ravel()
    present, first = np.unique(flat[flat != 0], return_index=True)
    order = present[np.argsort(np.flatnonzero(flat != 0)[first])]
    mapping = {int(value): number for number, value in enumerate(order, start=1)}
    return np.array([mapping.get(int(v), 0) for v in flat], dtype=labels.dtype).reshape(labels.shape), len(order)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_helpers_on_every_dtype_and_shape(shape):
    rng = np.random.default_rng(len(shape) * 41 + sum(shape))
    for dtype in INTEGERS:
        labels = label_arrays(rng, shape, dtype)
        what = f"{np.dtype(dtype)} {shape}"
        for max_label in (0, 2):
            require_as(outcome(glccl.find_objects, labels, max_label),
                       outcome(ndimage.find_objects, labels, max_label), what)
        for min_size in (1, 2, 4):
            kept, m = glccl.remove_small(labels, min_size, relabel=False)
            if dtype != np.uint64 and labels.ndim:  # scikit-image takes neither
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # "only one label was provided"
                    want = morphology.remove_small_objects(labels, min_size)
                assert same(kept, want), f"{what} min_size {min_size}"
            counts = {int(v): int(np.count_nonzero(labels == v)) for v in np.unique(labels) if v != 0}
            assert m == sum(count >= min_size for count in counts.values()), what
            relabeled, m2 = glccl.remove_small(labels, min_size)
            assert same((relabeled, m2), raster_relabeled(kept)), what
        for k in (0, 1, 2, 9):
            counts = {int(v): int(np.count_nonzero(labels == v)) for v in np.unique(labels) if v != 0}
            largest = sorted(counts, key=lambda v: (-counts[v], v))[:k]
            kept, m = glccl.keep_largest(labels, k, relabel=False)
            assert same((kept, m), (np.where(np.isin(labels, largest), labels, 0).astype(dtype), len(largest))), what
        assert same(glccl.relabel(labels), raster_relabeled(labels)), what
        if np.dtype(dtype).kind == "i" and labels.size:
            negative = labels.copy()
            negative.ravel()[0] = -1
            for helper in (glccl.relabel, lambda a: glccl.remove_small(a, 2), lambda a: glccl.keep_largest(a, 1)):
                got = outcome(helper, negative)
                assert got[0] is ValueError and "labels must be 0 (background) or positive" in got[1], what


# ---- cc3d, against its documented rule --------------------------------------------------------

def cc3d_rule(data, connectivity, delta=0, binary_image=False, periodic=False):
    """cc3d.connected_components from its documentation, by a union-find
    over the elements in memory order (axis 0 fastest for a Fortran-ordered
    array): nonzero elements (NaN included) are foreground; two foreground
    neighbours of the connectivity join when the image is binary, when
    their values are equal (delta 0; NaN equals nothing), or when their
    values are equal or differ by at most delta, signed values by their
    difference; with periodic, the array is a torus: an element on a face
    has neighbours on the opposite one. Labels 1..N in that order.
    Returns (labels of data's shape, N)."""
    array = np.asarray(data)
    fortran = array.flags.f_contiguous and not array.flags.c_contiguous
    memory = array.T if fortran else array
    shape = memory.shape
    ndim = len(shape)
    hops = {4: 1, 6: 1, 8: 2, 18: 2, 26: 3}[connectivity] if ndim == 3 else (1 if connectivity in (4, 6) else 2)
    flat = [v.item() for v in memory.ravel()]
    parent = list(range(len(flat)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def joined(a, b):
        if binary_image or array.dtype == bool:
            return True
        return a == b or (delta != 0 and abs(a - b) <= delta)

    steps = [s for s in itertools.product((-1, 0, 1), repeat=ndim) if 0 < sum(map(abs, s)) <= hops]
    for here in np.ndindex(*shape):
        i = np.ravel_multi_index(here, shape)
        if flat[i] == 0:
            continue
        for step in steps:
            there = tuple(h + s for h, s in zip(here, step))
            if periodic:
                there = tuple(t % e for t, e in zip(there, shape))
            if all(0 <= t < e for t, e in zip(there, shape)):
                j = np.ravel_multi_index(there, shape)
                if flat[j] != 0 and joined(flat[i], flat[j]):
                    parent[root(i)] = root(j)
    numbers, labels = {}, np.zeros(len(flat), np.int64)
    for i, value in enumerate(flat):
        if value != 0:
            labels[i] = numbers.setdefault(root(i), len(numbers) + 1)
    labels = labels.reshape(shape)
    return (labels.T if fortran else labels), len(numbers)


def test_cc3d_rule_is_sound():
    # At delta 0 and binary, the rule is scikit-image's and scipy's.
    image = np.random.default_rng(6).integers(0, 3, size=(4, 5, 6))
    for connectivity, hops in ((6, 1), (18, 2), (26, 3)):
        labels, n = cc3d_rule(image, connectivity)
        want, want_n = measure.label(image, connectivity=hops, return_num=True)
        assert n == want_n and np.array_equal(labels, want)
        labels, _ = cc3d_rule(image, connectivity, binary_image=True)
        assert np.array_equal(labels, ndimage.label(image, ndimage.generate_binary_structure(3, hops))[0])


CC3D_SHAPES = [shape for shape in SHAPES if 1 <= len(shape) <= 3]


@pytest.mark.parametrize("shape", CC3D_SHAPES, ids=str)
def test_cc3d_connected_components_on_every_dtype_and_shape(shape):
    rng = np.random.default_rng(len(shape) * 43 + sum(shape))
    connectivities = {1: (6, 26), 2: (4, 8, 6, 26), 3: (6, 18, 26)}[len(shape)]
    for dtype, order in itertools.product(DTYPES, ("C", "F")):
        image = np.asarray(values(rng, shape, dtype, spread=4), order=order)
        kind = np.dtype(dtype).kind
        for connectivity in connectivities:
            for delta in (0, 1, 2) if kind in "iu" else (0,):
                labels, n = cc3d.connected_components(image, connectivity=connectivity, delta=delta, return_N=True)
                want, want_n = cc3d_rule(image, connectivity, delta)
                what = f"{np.dtype(dtype)} {shape} {order} {connectivity} delta {delta}"
                assert n == want_n, what
                # cc3d's dtype for fewer than 65535 estimated labels, its
                # shape and its memory order.
                assert labels.dtype == np.uint16 and labels.shape == image.shape, what
                assert labels.flags.f_contiguous == (order == "F" and image.ndim > 1 and not labels.flags.c_contiguous
                                                     ) or labels.flags.c_contiguous, what
                assert np.array_equal(labels, want), f"{what}: {labels.ravel()} against {want.ravel()}"
            binary = cc3d.connected_components(image, connectivity=connectivity, binary_image=True)
            assert np.array_equal(binary, cc3d_rule(image, connectivity, binary_image=True)[0])
    for dimensions_shape in ((), (1, 2, 3, 4)):
        got = outcome(cc3d.connected_components, np.zeros(dimensions_shape, np.uint8))
        assert got == (cc3d.DimensionError, f"Only 1D, 2D, and 3D arrays supported. Got: {len(dimensions_shape)}")


def test_cc3d_delta_on_signed_values_is_their_difference():
    # The audit's case: -1 and 1 differ by 2, -128 and 127 by 255.
    image = np.array([[[-1, 1, 0, -128, 127]]], np.int8)
    labels = cc3d.connected_components(image, connectivity=6, delta=2)
    assert labels.tolist() == cc3d_rule(image, 6, 2)[0].tolist()
    assert labels.tolist() == [[[1, 1, 0, 2, 3]]]
    rng = np.random.default_rng(2)
    compared = 0
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dtype)
        for _ in range(12):
            shape = tuple(rng.integers(1, 6, size=rng.integers(1, 4)))
            # Values across the whole range, and near each other.
            wide = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=np.int64).astype(dtype)
            near = rng.integers(-4, 5, size=shape).astype(dtype)
            for image in (wide, near, np.where(rng.random(shape) < 0.5, wide, near).astype(dtype)):
                # glccl's delta criterion takes deltas up to 2**32 - 1 on
                # 64-bit samples (python.md).
                for delta in (1, 3, min(int(info.max), 2**32 - 1)):
                    connectivity = {1: 6, 2: 8, 3: 26}[len(shape)]
                    labels, n = cc3d.connected_components(image, connectivity=connectivity, delta=delta, return_N=True)
                    want, want_n = cc3d_rule(image, connectivity, delta)
                    assert n == want_n and np.array_equal(labels, want), f"{image.ravel()} delta {delta}"
                    compared += 1
    assert compared == 4 * 12 * 3 * 3
    # Past that, refused where it matters; a delta past every difference
    # is a binary image.
    wide = np.array([[-2**62, 2**62, 0, 1]], np.int64)
    got = outcome(cc3d.connected_components, wide, connectivity=4, delta=2**40)
    assert got[0] is ValueError and "takes deltas up to 4294967295" in got[1]
    assert np.array_equal(cc3d.connected_components(wide, connectivity=4, delta=2**63 + 1), [[1, 1, 0, 2]])
    # Values spanning every int64: the gaps between them kept past delta.
    image = np.array([[-2**63, 2**63 - 1, -2**63 + 1, 0, 5, 6, -2**63 + 2]], np.int64)
    assert np.array_equal(cc3d.connected_components(image, connectivity=4, delta=1), cc3d_rule(image, 4, 1)[0])


def test_cc3d_floats_compare_by_value():
    # NaN equals nothing: each NaN element its own component; -0.0 is 0.
    for dtype in (np.float16, np.float32, np.float64):
        image = np.array([[np.nan, np.nan, 1.0], [-0.0, np.nan, 1.0]], dtype)
        labels = cc3d.connected_components(image, connectivity=4)
        assert labels.tolist() == cc3d_rule(image, 4)[0].tolist() == [[1, 2, 3], [0, 4, 3]]


def test_cc3d_delta_errors_name_the_call():
    for image, delta in ((np.zeros((2, 2), np.uint8), 300), (np.zeros((2, 2), np.int8), -1)):
        got = outcome(cc3d.connected_components, image, delta=delta)
        assert got[0] is ValueError and got[1].startswith("glccl.cc3d.connected_components(): delta must be in 0..255")


@pytest.mark.parametrize("dtype", INTEGERS + [bool])
def test_cc3d_dust_and_largest_k_keep_the_dtype(dtype):
    rng = np.random.default_rng(np.dtype(dtype).num)
    for shape in ((1, 9), (5, 7), (3, 1, 4), (2, 3, 4)):
        image = np.asarray(values(rng, shape, dtype))
        connectivity = 26 if len(shape) == 3 else 8
        want, n = cc3d_rule(image, connectivity)
        sizes = np.bincount(want.ravel(), minlength=n + 1)
        for threshold in (1, 2, 3, (2, 4)):
            if isinstance(threshold, tuple):
                removed = ~((threshold[0] <= sizes) & (sizes < threshold[1]))
            else:
                removed = sizes < threshold
            removed[0] = False
            for invert in (False, True):
                goes = (~removed if invert else removed)[want] & (want != 0)
                dusted, left = cc3d.dust(image, threshold, connectivity=connectivity, invert=invert, return_N=True)
                assert dusted.dtype == image.dtype and dusted.shape == image.shape, f"{shape} {threshold} {invert}"
                assert np.array_equal(dusted, np.where(goes, np.zeros_like(image), image)), f"{shape} {threshold}"
                assert left == int(np.count_nonzero(~removed[1:]) if not invert else np.count_nonzero(removed[1:]))
        for k in (0, 1, 2, n + 1):
            got = cc3d.largest_k(image, k, connectivity=connectivity)
            if k == 0:
                assert got.dtype == np.uint16 and not got.any()
                continue
            if k >= n:
                assert np.array_equal(got, want)
                continue
            chosen = sorted(range(1, n + 1), key=lambda label: (-sizes[label], label))[:k]
            if k == 1:
                assert got.dtype == bool and np.array_equal(got, want == chosen[0])
                continue
            ranked = sorted(chosen, key=lambda label: (sizes[label], label))
            renumbered = np.zeros(n + 1, np.int64)
            renumbered[ranked] = np.arange(1, k + 1)
            assert np.array_equal(got, renumbered[want])


@pytest.mark.parametrize("shape", CC3D_SHAPES, ids=str)
def test_cc3d_statistics_on_every_dtype_and_shape(shape):
    # cc3d takes a 1-D array as one column of a 2-D one; its tables are per
    # label 0..N: counts, boxes (as scipy's find_objects of labels + 1),
    # centroids (as scipy's center_of_mass, NaN for an absent label).
    rng = np.random.default_rng(len(shape) * 47 + sum(shape))
    for dtype in INTEGERS + [bool]:
        labels = label_arrays(rng, shape, dtype)
        what = f"{np.dtype(dtype)} {shape}"
        planar = labels.reshape(labels.shape + (1,) * (2 - labels.ndim)).astype(np.int64)
        top = int(planar.max())
        if top > labels.size:  # cc3d's limit: labels up to the element count
            got = outcome(cc3d.statistics, labels)
            assert got[0] is ValueError and "lower than the number of voxels" in got[1], what
            continue
        stats = cc3d.statistics(labels)
        counts = np.bincount(planar.ravel(), minlength=top + 1)
        assert stats["voxel_counts"].dtype == np.uint32 and np.array_equal(stats["voxel_counts"], counts), what
        assert stats["bounding_boxes"] == ndimage.find_objects(planar + 1), what
        with np.errstate(invalid="ignore"):
            centroids = np.array(ndimage.center_of_mass(np.ones(planar.shape), planar, np.arange(top + 1)))
        np.testing.assert_allclose(stats["centroids"], centroids.reshape(top + 1, planar.ndim), rtol=1e-12,
                                   equal_nan=True, err_msg=what)
        if np.dtype(dtype).kind == "i" and labels.size:
            negative = labels.copy()
            negative.ravel()[0] = -1
            got = outcome(cc3d.statistics, negative)
            assert got[0] is ValueError and "values >= 0" in got[1], what


# ---- every dtype, byte order and criterion ----------------------------------------------------

def both_byte_orders(array):
    """array in little- and big-endian byte order (the same values)."""
    if array.dtype.itemsize == 1:
        return [array]
    return [array.astype(array.dtype.newbyteorder(order)) for order in ("<", ">")]


@pytest.mark.parametrize("shape", [(3, 4, 5), (5, 7), (2, 1, 3), (9,)], ids=str)
def test_cc3d_every_byte_order_signedness_criterion_and_boundary(shape):
    # Signed values by their difference under delta in either byte order;
    # floats (halves, a NaN, infinities) under delta by theirs; with
    # periodic_boundary, a torus.
    rng = np.random.default_rng(len(shape) * 53 + sum(shape))
    connectivities = {1: (6, 26), 2: (4, 8), 3: (6, 18, 26)}[len(shape)]
    for dtype in DTYPES:
        kind = np.dtype(dtype).kind
        native = values(rng, shape, dtype, spread=5)
        if kind == "f":
            native = (native / 2).astype(dtype)
            native.ravel()[rng.integers(0, native.size, 2)] = [np.inf, -np.inf]
            deltas = (0,) if dtype == np.float16 else (0, 0.5, 1.5)
        else:
            deltas = (0,) if dtype is bool else (0, 1, 3, 250)
        for order, connectivity, delta, periodic in itertools.product("CF", connectivities, deltas, (False, True)):
            little = np.asarray(native, order=order)
            want, want_n = cc3d_rule(little, connectivity, delta, periodic=periodic)
            for image in both_byte_orders(little):
                what = f"{image.dtype.str} {shape} {order} {connectivity} delta {delta} periodic {periodic}"
                labels, n = cc3d.connected_components(image, connectivity=connectivity, delta=delta, return_N=True,
                                                      periodic_boundary=periodic)
                assert n == want_n and labels.dtype == np.uint16, what
                assert np.array_equal(labels, want), f"{what}: {labels.ravel()} against {want.ravel()}"
                if delta == 0:
                    binary = cc3d.connected_components(image, connectivity=connectivity, binary_image=True,
                                                       periodic_boundary=periodic)
                    assert np.array_equal(binary, cc3d_rule(little, connectivity, binary_image=True,
                                                            periodic=periodic)[0]), what


def test_cc3d_delta_on_big_endian_negative_values():
    # The audit's case: -1 joins neither 0 (background) nor 1 (2 apart).
    for dtype in (np.int16, np.int32, np.int64):
        image = np.array([[[-1, 0, 1, 2, 5, -2, -1]]], dtype)
        want = cc3d_rule(image, 6, 1)[0]
        for swapped in both_byte_orders(image):
            assert np.array_equal(cc3d.connected_components(swapped, connectivity=6, delta=1), want), swapped.dtype


def test_cc3d_periodic_boundary_as_cc3d_tests_it():
    # cc3d's own cases: a band on each of two opposite faces is one
    # component on the torus; 8-connectivity joins across corners.
    for connectivity in (4, 8):
        labels = np.zeros((10, 10), np.uint32, order="F")
        labels[:, 0] = labels[:, -1] = 1
        assert cc3d.connected_components(labels, connectivity=connectivity, return_N=True)[1] == 2
        assert cc3d.connected_components(labels, connectivity=connectivity, return_N=True, periodic_boundary=True)[1] == 1
    labels = np.zeros((10, 10), np.uint32, order="F")
    labels[:, 0] = labels[:, -1] = 1
    labels[0, 0] = labels[-1, 0] = labels[0, -1] = labels[-1, -1] = 2
    assert cc3d.connected_components(labels, connectivity=8, return_N=True, periodic_boundary=True)[1] == 2
    labels[-1, 0] = labels[0, -1] = 3
    assert cc3d.connected_components(labels, connectivity=8, return_N=True, periodic_boundary=True)[1] == 3
    for first, second, n in (((2, 0), (3, 3), 1), ((1, 0), (3, 3), 2), ((3, 0), (2, 3), 1)):
        labels = np.zeros((4, 4), np.uint32, order="F")
        labels[first] = labels[second] = 1
        assert cc3d.connected_components(labels, connectivity=8, return_N=True, periodic_boundary=True)[1] == n
    for axis in range(3):
        labels = np.zeros((10, 10, 10), np.uint32, order="F")
        labels[(slice(None),) * axis + (0,)] = labels[(slice(None),) * axis + (-1,)] = 1
        assert cc3d.connected_components(labels, connectivity=6, return_N=True, periodic_boundary=True)[1] == 1
        labels[:] = 0
        labels[(slice(None),) * axis + (1,)] = labels[(slice(None),) * axis + (-2,)] = 1
        assert cc3d.connected_components(labels, connectivity=6, return_N=True, periodic_boundary=True)[1] == 2


def test_cc3d_delta_on_floats():
    # Values join when equal (infinities too) or at most delta apart, in the
    # image's own precision; NaN joins nothing; float16 is refused under
    # delta, as cc3d refuses it.
    image = np.array([[0.5, 1.0, 1.75, np.nan, np.inf, np.inf, 0.0, -3.0, -2.5, -np.inf]])
    for dtype, delta in itertools.product((np.float32, np.float64), (0.25, 0.5, 0.75, 5.0)):
        typed = image.astype(dtype)
        for connectivity in (4, 8):
            labels, n = cc3d.connected_components(typed, connectivity=connectivity, delta=delta, return_N=True)
            want, want_n = cc3d_rule(typed, connectivity, delta)
            assert n == want_n and np.array_equal(labels, want), f"{np.dtype(dtype)} {delta}: {labels}"
    got = outcome(cc3d.connected_components, image.astype(np.float16), delta=0.5)
    assert got == (TypeError, "float16 is not supported for continuous images (delta != 0).")
    for delta in (-0.5, np.nan):
        got = outcome(cc3d.connected_components, image, delta=delta)
        assert got[0] is ValueError and got[1].startswith("glccl.cc3d.connected_components(): delta"), got


def lattice(side):
    """Voxels where x, y and z are all even or all odd: at 18-connectivity
    every one its own component (a quarter of the voxels)."""
    x, y, z = np.indices((side, side, side)) % 2
    return (x == y) & (y == z)


@pytest.mark.parametrize("connectivity,image", [
    (18, lattice(64)),                                              # voxels / 4 at 18
    (6, np.indices((64, 64, 64)).sum(axis=0) % 2 == 0),            # voxels / 2 at 6
    (26, np.kron(np.ones((41, 41, 41)), [[[1, 0], [0, 0]], [[0, 0], [0, 0]]]) != 0),  # voxels / 8 at 26
    (4, np.indices((512, 512)).sum(axis=0) % 2 == 0),                                # pixels / 2 at 4
    (8, np.kron(np.ones((256, 256)), [[1, 0], [0, 0]]) != 0),                        # pixels / 4 at 8
], ids=["18", "6", "26", "4", "8"])
def test_cc3d_labels_never_wrap(connectivity, image):
    # The label count is known after labeling: a dtype cc3d estimates too
    # small is widened (cc3d's estimate for a binary volume at 18 is an
    # eighth of the voxels), an explicit one too small is refused, never
    # wrapped. Against scipy's labels.
    hops = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}[connectivity]
    want, want_n = ndimage.label(image, ndimage.generate_binary_structure(image.ndim, hops))
    assert want_n > np.iinfo(np.uint16).max
    for data in (image, image.astype(np.uint8) * 3):
        labels, n = cc3d.connected_components(data, connectivity=connectivity, return_N=True)
        assert n == want_n and labels.dtype == np.uint32 and np.array_equal(labels, want)
        # Refused by cc3d's estimate, or by the count.
        got = outcome(cc3d.connected_components, data, connectivity=connectivity, out_dtype=np.uint16)
        assert got[0] is ValueError, got
        assert "estimated maximum number of labels" in got[1] or (
            got[1].startswith("glccl.cc3d.connected_components(): ") and f"{want_n} components" in got[1]), got
    labels = cc3d.connected_components(image, connectivity=connectivity, out_dtype=np.uint64)
    assert labels.dtype == np.uint64 and np.array_equal(labels, want)


# Every dtype numpy makes, in both byte orders where it has them.
EVERY_DTYPE = ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "g", "c8", "c16", "S1", "S3",
               "U1", "U3", "V1", "V4", "O", "M8[D]", "m8[s]"]


def every_dtype_array(rng, shape):
    """Arrays of every dtype in EVERY_DTYPE (both byte orders) of small
    values, 0 among them; strings of digits, objects of ints."""
    raw = rng.integers(0, 3, size=shape)
    arrays = []
    for code in EVERY_DTYPE:
        dtype = np.dtype(code)
        if dtype.kind in "SU":
            array = raw.astype(str).astype(dtype)
            array[raw == 0] = ""
        elif dtype.kind == "V":
            raw_bytes = np.zeros(shape + (dtype.itemsize,), np.uint8)
            raw_bytes[..., 0] = raw
            array = raw_bytes.view(dtype).reshape(shape)
        elif dtype.kind == "O":
            array = raw.astype(object)
        else:
            array = raw.astype(dtype)
        arrays.append(array)
        if dtype.byteorder not in "|" and dtype.itemsize > 1 and dtype.kind not in "OV":
            arrays.append(array.astype(dtype.newbyteorder(">")))
    return arrays


def test_ndimage_label_refuses_every_dtype_scipy_refuses():
    # scipy labels bool, integers, float32, float64 (and one-byte strings
    # as bytes) and refuses the rest with TypeError; glccl too. scipy also
    # refuses big-endian arrays (ValueError), which glccl labels: their
    # labels are scipy's of the same values in native order.
    rng = np.random.default_rng(5)
    for shape in ((), (0, 3), (7,), (4, 5), (3, 4, 2), (2, 1, 3, 2)):
        for image in every_dtype_array(rng, shape):
            what = f"{image.dtype.str} {shape}"
            want = outcome(ndimage.label, image)
            got = outcome(glccl.ndimage.label, image)
            if want[0] is ValueError and "Big-endian" in want[1]:
                want = outcome(ndimage.label, image.astype(image.dtype.newbyteorder("=")))
            if got[0] is TypeError and image.size and image.ndim:  # scipy compares 0-d ones with 0, as glccl
                assert got[1].startswith("glccl.ndimage.label(): "), what
            require_as(got, want, what)


def test_skimage_label_reads_values_and_background_as_intp():
    # scikit-image reads the values and the background as intp: uint64
    # values past 2**63 are negative there (background=-1 is 2**64 - 1), a
    # float background is truncated, one past intp is an OverflowError.
    image = np.array([[2**64 - 1, 2**63, 0, 2**64 - 1, 5, 2**64 - 1, 2**63 + 1]], np.uint64)
    for background in (None, 0, -1, -2**63, 2**63 - 1, 5, 1.5, -1.0, True, np.int8(-1), np.uint64(2**64 - 1),
                       2**63, -2**63 - 1, 2**64 - 1, "1", 1j, np.nan, np.inf):
        for array in both_byte_orders(image):
            require_as(outcome(glccl.skimage.label, array, background=background, return_num=True),
                       outcome(measure.label, array, background=background, return_num=True),
                       f"{array.dtype.str} background {background!r}")
    # Every dtype numpy makes, as scikit-image casts it to intp (strings of
    # digits parsed, datetimes as their counts, complex numbers' real parts).
    rng = np.random.default_rng(6)
    for shape in ((), (7,), (4, 5), (3, 4, 2), (2, 1, 3, 2)):
        for image in every_dtype_array(rng, shape):
            for background in (None, 1, -1):
                require_as(outcome(glccl.skimage.label, image, background=background, return_num=True),
                           outcome(measure.label, image, background=background, return_num=True),
                           f"{image.dtype.str} {shape} background {background}")
