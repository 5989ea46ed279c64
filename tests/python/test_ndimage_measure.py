"""glccl.ndimage's measurements (sum_labels, mean, variance, minimum,
maximum, their positions, extrema, center_of_mass) against scipy.ndimage's
own, called the same way: labels None or given (integers of every width,
negative, past the element count, floats, bool, broadcast), index None, one
label, or a sequence (label 0, labels absent, out of range); the same result
types (numbers, tuples, lists, arrays and their dtypes), integers and
positions equal, floats to 1e-9 of the magnitude of the values summed
(scipy sums in float64 with bincount, glccl exactly)."""

import warnings

import numpy as np
import pytest
from scipy import ndimage

import glccl.ndimage

RTOL = 1e-9
FUNCTIONS = ["sum_labels", "sum", "mean", "variance", "standard_deviation", "minimum", "maximum", "minimum_position",
             "maximum_position", "extrema", "center_of_mass"]


def call(module, name, *arguments):
    """module.name(*arguments), with scipy's warnings for 0 / 0 silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return getattr(module, name)(*arguments)


def assert_same(got, want, scale, what):
    """Same types and structure; integers (and positions) equal; floats
    within RTOL * max(|want|, scale)."""
    assert type(got) is type(want), f"{what}: {type(got)} against {type(want)}"
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), what
        for g, w in zip(got, want):
            assert_same(g, w, scale, what)
        return
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype, f"{what}: {got.dtype} against {want.dtype}"
        assert np.shape(got) == np.shape(want), what
    if np.asarray(want).dtype.kind in "fc":
        got, want = np.asarray(got, dtype=complex), np.asarray(want, dtype=complex)
        nan = np.isnan(want)
        assert (np.isnan(got) == nan).all(), f"{what}: {got} against {want}"
        inf = np.isinf(want)
        assert (got[inf] == want[inf]).all(), f"{what}: {got} against {want}"
        fine = ~nan & ~inf
        assert (np.abs(got[fine] - want[fine]) <= RTOL * np.maximum(np.abs(want[fine]), scale)).all(), \
            f"{what}: {got} against {want}"
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check_all(input, labels, indices, functions=FUNCTIONS):
    scale = float(np.abs(input.astype(np.float64)).max()) * input.size if input.size else 1.0
    scale = max(scale, max(input.shape, default=1))  # centres of mass are coordinates
    for name in functions:
        for index in indices:
            what = f"{name}(labels {None if labels is None else labels.dtype}, index {index!r})"
            want = call(ndimage, name, input, labels, index)
            got = call(glccl.ndimage, name, input, labels, index)
            assert_same(got, want, scale, what)


def unique_values(rng, shape, dtype):
    """Values without ties (scipy's position for a sequence of labels is
    where its unstable sort leaves it among equal values)."""
    values = rng.permutation(int(np.prod(shape))).reshape(shape)
    if dtype == np.float32 or dtype == np.float64:
        return (values * 0.37 - 100).astype(dtype)
    if dtype == np.int16:
        return (values - 500).astype(dtype)
    return values.astype(dtype)


INDICES = [None, 3, 0, [1, 2, 3], [0, 3, 9, -1, 4, 1000, 2, 2], np.array([[4, 1], [0, 7]])]


@pytest.mark.parametrize("dtype", [np.uint16, np.int16, np.float32, np.float64, np.int64])
def test_against_scipy_2d(dtype):
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 8, (64, 80)).astype(np.int32)
    labels[labels == 5] = 0
    check_all(unique_values(rng, labels.shape, dtype), labels, INDICES)


def test_against_scipy_3d_and_other_dimensions():
    rng = np.random.default_rng(2)
    for shape in [(20, 24, 28), (100,), (3, 4, 5, 6)]:
        labels = rng.integers(0, 6, shape).astype(np.uint8)
        check_all(unique_values(rng, shape, np.float64), labels, INDICES)


@pytest.mark.parametrize("kind", ["uint64", "negative", "past the count", "float", "bool", "broadcast"])
def test_labels_scipy_renumbers(kind):
    """Labels scipy renumbers with numpy.unique (not safely castable to
    intp, negative, larger than the element count, floats), bool labels and
    labels broadcast to the input's shape."""
    rng = np.random.default_rng(3)
    shape = (30, 40)
    values = unique_values(rng, shape, np.float64)
    labels = rng.integers(0, 5, shape)
    indices = INDICES
    if kind == "uint64":
        labels = labels.astype(np.uint64)
    elif kind == "negative":
        labels = (labels - 2).astype(np.int16)
        indices = [None, -1, 0, [-2, -1, 0, 5], [1, 2, 3], np.array([[2, -2], [0, 7]])]
    elif kind == "past the count":
        labels = labels.astype(np.int64) * 10**12
        indices = [None, 2 * 10**12, [0, 10**12, 3, 4 * 10**12, 5 * 10**12]]
    elif kind == "float":
        labels = labels * 0.5
        indices = [None, 1.5, [0, 0.5, 1.0, 1.25, 2.0, 7]]
    elif kind == "bool":
        labels = labels > 2
        indices = [None, 1, [0, 1, 2]]
    else:
        labels = rng.integers(0, 4, (1, shape[1])).astype(np.int32)
    check_all(values, labels, indices)


def test_ties_give_the_first_position_in_raster_order():
    """Equal extremes: the first element in raster order, as scipy gives it
    for one label; the same for every label of a sequence."""
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 4, (40, 50)).astype(np.int32)
    values = rng.integers(0, 3, labels.shape).astype(np.uint8)
    for name in ["minimum_position", "maximum_position"]:
        got = getattr(glccl.ndimage, name)(values, labels, [1, 2, 3])
        assert got == [getattr(ndimage, name)(values, labels, label) for label in [1, 2, 3]]


def test_bool_and_int64_values():
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 6, (20, 30)).astype(np.int32)
    check_all(rng.random(labels.shape) < 0.5, labels, INDICES, ["sum_labels", "mean", "minimum", "maximum"])
    # Past 2**53 the extremes are still exact in the input's dtype.
    values = (np.int64(2**62) + unique_values(rng, labels.shape, np.int64)).astype(np.int64)
    check_all(values, labels, INDICES, ["minimum", "maximum", "extrema", "minimum_position"])


def test_center_of_mass_of_regions_summing_to_zero():
    labels = np.zeros((6, 7), np.int32)
    labels[1, 1:3] = 1          # values 1 and -1: 0 / 0
    labels[3, 2:5] = 2          # values 2, -2 and 0 off-centre: x / 0
    labels[5, :] = 3
    values = np.zeros(labels.shape, np.int16)
    values[1, 1:3] = [1, -1]
    values[3, 2:5] = [2, 0, -2]
    values[5, :] = 1
    check_all(values, labels, [[1, 2, 3, 4]], ["center_of_mass"])


def test_single_groups_and_absent_labels_behave_as_scipy():
    values = np.arange(12.0).reshape(3, 4)
    labels = np.array([[0, 1, 1, 0], [2, 2, 0, 0], [0, 0, 0, 3]])
    check_all(values, labels, [None, 1, 2, 9, [9, 8]], ["sum_labels", "mean", "variance"])
    check_all(values, None, [None], FUNCTIONS)
    for name in ["minimum", "maximum_position", "extrema"]:
        with pytest.raises(ValueError):
            getattr(ndimage, name)(values, labels, 9)
        with pytest.raises(ValueError):
            getattr(glccl.ndimage, name)(values, labels, 9)


def test_find_objects_is_glccls():
    assert glccl.ndimage.find_objects is glccl.find_objects


@pytest.mark.parametrize("order", ["C", "F"])
def test_cc3d_statistics_against_scipy(order):
    """glccl.cc3d.statistics (one measuring pass, label 0 included) against
    scipy's bincount, find_objects and center_of_mass, absent labels
    included, on C- and Fortran-ordered volumes and images."""
    from glccl import cc3d
    rng = np.random.default_rng(6)
    for shape in [(20, 24, 28), (64, 80)]:
        labels = np.asarray(rng.integers(0, 9, shape), dtype=np.uint16, order=order)
        labels[labels == 4] = 0
        stats = cc3d.statistics(labels)
        top = int(labels.max())
        assert stats["voxel_counts"].dtype == np.uint32
        assert list(stats["voxel_counts"]) == list(np.bincount(labels.ravel(), minlength=top + 1))
        assert stats["bounding_boxes"][1:] == ndimage.find_objects(labels)
        assert stats["bounding_boxes"][4] is None
        want = np.array(call(ndimage, "center_of_mass", np.ones(shape), labels, range(top + 1)))
        np.testing.assert_allclose(stats["centroids"], want, rtol=1e-12, equal_nan=True)
