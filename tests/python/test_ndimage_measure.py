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


# --- One pass over labels and input: exact references ---------------------------------------------------------------
#
# Sequences of labels of integer (and boolean) labels are measured in one
# pass (glccl::sumsByLabel). These tests compare it with sums made here in
# Python integers and fractions (exact), with scipy where scipy is exact
# enough to say, and its thread counts with each other.

from fractions import Fraction

from glccl import _glccl

LABEL_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, bool]
VALUE_DTYPES = [np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64, bool]


def exact_values(rng, shape, dtype):
    """Values of dtype, many at both ends of its range (sums of squares past
    64 bits; for 8-byte values sums past 64 bits too), with ties."""
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.random(shape) < 0.5
    if dtype.kind == "f":
        # Fractions of every magnitude, ties included.
        values = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 6, shape)
        values.flat[::7] = 1.5
        return values.astype(dtype)
    info = np.iinfo(dtype)
    ends = np.array([info.min, info.min + 1, info.max - 1, info.max], dtype=object)
    values = ends[rng.integers(0, 4, shape)]
    middle = rng.random(shape) < 0.3
    values[middle] = rng.integers(int(info.min) // 2, int(info.max) // 2, int(middle.sum()), dtype=np.int64 if info.min < 0 else np.uint64)
    return np.array(values.tolist(), dtype=dtype)


def labels_of(rng, shape, dtype, ids):
    """Labels of dtype drawn from `ids` (numbers), in runs along the rows."""
    picks = rng.integers(0, len(ids), shape)
    picks = np.where(rng.random(shape) < 0.6, np.roll(picks, 1), picks)
    return np.array(np.array(ids, dtype=object)[picks].tolist(), dtype=dtype)


def exact_measures(values, labels, label):
    """count, sum, variance, first min and max positions and centre of mass
    of `label`'s elements, in Python integers and fractions."""
    flat_labels = labels.ravel().tolist()
    flat_values = [Fraction(v) if isinstance(v, float) else int(v) for v in values.ravel().tolist()]
    at = [i for i, l in enumerate(flat_labels) if l == label]
    if not at:
        return None
    mine = [flat_values[i] for i in at]
    n = len(mine)
    total = sum(mine, 0)
    squares = sum((v * v for v in mine), 0)
    variance = Fraction(n * squares - total * total, n * n)
    low = min(mine)
    high = max(mine)
    first_low = next(i for i in at if flat_values[i] == low)
    first_high = next(i for i in at if flat_values[i] == high)
    coordinates = np.unravel_index(at, labels.shape)
    centre = []
    for axis in range(labels.ndim):
        moment = sum((v * int(c) for v, c in zip(mine, coordinates[axis])), 0)
        if total != 0:
            centre.append(Fraction(moment) / total)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                centre.append(np.float64(moment) / 0.0)
    return n, total, variance, first_low, first_high, centre


def close_to_exact(got, exact, what):
    """got is exact rounded to the nearest double, or within one unit in
    its last place (a double-double's quotients)."""
    if isinstance(exact, float):
        assert np.isnan(got) if np.isnan(exact) else got == exact, f"{what}: {got} against {exact}"
        return
    want = float(exact)
    assert abs(Fraction(got) - exact) <= abs(Fraction(np.spacing(want))), f"{what}: {got!r} against {want!r}"


def check_exact(values, labels, index):
    """glccl.ndimage's measurements of a sequence of labels against exact
    sums, label by label (0, NaN for labels absent)."""
    index = list(index)
    sums = glccl.ndimage.sum_labels(values, labels, index)
    means = glccl.ndimage.mean(values, labels, index)
    variances = glccl.ndimage.variance(values, labels, index)
    low_at = glccl.ndimage.minimum_position(values, labels, index)
    high_at = glccl.ndimage.maximum_position(values, labels, index)
    lows, highs = glccl.ndimage.minimum(values, labels, index), glccl.ndimage.maximum(values, labels, index)
    centres = glccl.ndimage.center_of_mass(values, labels, index)
    floats = values.dtype.kind == "f"
    for k, label in enumerate(index):
        what = f"label {label!r} of {labels.dtype} labels, {values.dtype} values"
        exact = exact_measures(values, labels, label)
        if exact is None:
            assert sums[k] == 0 and np.isnan(means[k]) and np.isnan(variances[k]), what
            assert low_at[k] == (0,) * values.ndim and lows[k] == 0 and highs[k] == 0, what
            assert all(np.isnan(c) for c in centres[k]), what
            continue
        n, total, variance, first_low, first_high, centre = exact
        if floats:
            close_to_exact(sums[k], Fraction(total), what + " sum")
        else:
            assert sums[k] == float(total), f"{what}: sum {sums[k]!r} against {total}"
        assert means[k] == sums[k] / n, what
        close_to_exact(variances[k], variance, what + " variance")
        assert low_at[k] == tuple(int(c) for c in np.unravel_index(first_low, values.shape)), what + " minimum"
        assert high_at[k] == tuple(int(c) for c in np.unravel_index(first_high, values.shape)), what + " maximum"
        assert lows[k] == values.flat[first_low] and highs[k] == values.flat[first_high], what
        assert lows.dtype == values.dtype and highs.dtype == values.dtype, what
        for axis, c in enumerate(centre):
            close_to_exact(centres[k][axis], c, what + f" centre {axis}")


@pytest.mark.parametrize("label_dtype", LABEL_DTYPES)
def test_one_pass_against_exact_sums_for_every_label_dtype(label_dtype):
    """Every label dtype, with the labels each holds at its ends (negative,
    past 2**32), an index of labels absent, repeated and out of order."""
    rng = np.random.default_rng(11)
    if label_dtype == bool:
        ids, index = [False, True], [1, 0, 1, 2]
    else:
        info = np.iinfo(label_dtype)
        ids = [0, 1, 2, int(info.max), int(info.max) - 3, int(info.min), int(info.min) + 1]
        # In the labels' dtype: a list of Python ints past 2**63 is float64 to numpy (and scipy).
        index = np.array([2, int(info.max), 0, 7, int(info.min), 2, int(info.max) - 3, 1, int(info.min) + 1],
                         dtype=object).astype(label_dtype)
    labels = labels_of(rng, (9, 13), label_dtype, ids)
    for value_dtype in [np.int32, np.float64]:
        check_exact(exact_values(rng, labels.shape, value_dtype), labels, index)


@pytest.mark.parametrize("value_dtype", VALUE_DTYPES)
def test_one_pass_against_exact_sums_for_every_value_dtype(value_dtype):
    """Every input dtype, values at both ends of its range (squares and
    coordinate-weighted sums past 64 bits; 8-byte values' sums too), ties
    for the extremes, on 1 to 3 axes."""
    rng = np.random.default_rng(12)
    for shape in [(40,), (7, 11), (3, 5, 6)]:
        labels = labels_of(rng, shape, np.int32, [0, 1, 2, 3, 5])
        check_exact(exact_values(rng, shape, value_dtype), labels, [1, 2, 3, 4, 5, 0])


def test_one_pass_sums_past_64_bits_are_exact():
    """int64 and uint64 values whose sums pass 2**64, and int32 values whose
    squares do: exact, where scipy's float64 sums are not."""
    labels = np.ones((4, 64), np.int32)
    labels[1] = 2
    labels[2:] = 3
    values = np.full(labels.shape, np.iinfo(np.int64).max, np.int64)
    values[2:, ::2] = np.iinfo(np.int64).min
    values[0, 0] = 1
    check_exact(values, labels, [1, 2, 3])
    big = np.full(labels.shape, np.iinfo(np.uint64).max - 1, np.uint64)
    check_exact(big, labels, [1, 3])
    assert glccl.ndimage.sum_labels(big, labels, [1])[0] == float(64 * (2**64 - 2))
    ends = np.where(np.arange(labels.size).reshape(labels.shape) % 3, np.int32(-2**31), np.int32(2**31 - 1)).astype(np.int32)
    check_exact(ends, labels, [1, 2, 3])


def test_one_pass_index_as_scipy_takes_it():
    """Indices scipy takes: missing, repeated and unsorted labels, 2-D,
    empty, negative labels of unsigned labels, labels past int64 of signed
    labels, whole floats, booleans; against scipy's own results."""
    rng = np.random.default_rng(13)
    labels = rng.integers(-3, 9, (30, 40)).astype(np.int64)
    values = unique_values(rng, labels.shape, np.float64)
    indices = [[8, -3, 4, 4, 100, -7, 0], np.array([[5, 1], [5, -2]]), [], np.array([], np.int16),
               np.array([2, 2**63 + 5, 1], np.uint64), [3.0, -1.0, 2.0], np.array([True, False])]
    check_all(values, labels, indices)
    unsigned = (labels + 3).astype(np.uint16)
    check_all(values, unsigned, [[-1, 2, 11, 0, 2], np.array([4, -5, 1], np.int8), [2.0, 11.0]])


def test_one_pass_empty_index_and_empty_arrays():
    values = np.arange(12.0).reshape(3, 4)
    labels = np.array([[0, 1, 1, 0], [2, 2, 0, 0], [0, 0, 0, 3]], np.int32)
    for name in FUNCTIONS:
        assert_same(call(glccl.ndimage, name, values, labels, []), call(ndimage, name, values, labels, []), 1.0, name)
    # Empty labels: scipy's labels.min() refuses them.
    empty = np.zeros((0, 5))
    for name in ["sum_labels", "variance", "maximum", "center_of_mass"]:
        with pytest.raises(ValueError):
            call(ndimage, name, empty, empty.astype(np.int32), [1, 2])
        with pytest.raises(ValueError):
            call(glccl.ndimage, name, empty, empty.astype(np.int32), [1, 2])


def test_one_pass_nan_is_larger_than_every_number():
    """A NaN in a region: its maximum (and where), its minimum the smallest
    number, as scipy's sort orders them."""
    rng = np.random.default_rng(14)
    labels = rng.integers(1, 5, (20, 30)).astype(np.int32)
    values = unique_values(rng, labels.shape, np.float64)
    for label in [1, 3]:
        values.flat[np.flatnonzero(labels == label)[5]] = np.nan
    index = [1, 2, 3, 4]
    for name in ["minimum", "maximum", "minimum_position", "maximum_position"]:
        got, want = getattr(glccl.ndimage, name)(values, labels, index), getattr(ndimage, name)(values, labels, index)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=name)
    assert np.isnan(glccl.ndimage.maximum(values, labels, index)[[0, 2]]).all()


def test_one_pass_infinite_sums_as_scipy():
    """Sums and means past the doubles, or of infinities: inf, -inf or NaN,
    as scipy's."""
    values = np.array([1.0, np.inf, 2.0, -np.inf, 3.0, np.inf, -np.inf, 1e308, 1e308, np.nan])
    labels = np.array([1, 1, 2, 3, 3, 4, 4, 5, 5, 6], np.int32)
    index = [1, 2, 3, 4, 5, 6]
    for name in ["sum_labels", "mean"]:
        got, want = call(glccl.ndimage, name, values, labels, index), call(ndimage, name, values, labels, index)
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_one_pass_on_more_axes_and_broadcast_labels():
    rng = np.random.default_rng(15)
    values = unique_values(rng, (3, 4, 5, 6), np.int32)
    check_all(values, rng.integers(0, 6, values.shape).astype(np.uint8), [[1, 2, 3, 5]])
    check_all(values, rng.integers(0, 4, (1, 4, 1, 6)).astype(np.int16), [[0, 1, 2, 3]])


@pytest.mark.parametrize("shape", [(700, 650), (23, 150, 170), (300001,)])
def test_one_pass_gives_the_same_bits_at_every_thread_count(shape):
    """host_sums_by_label on 1, 2, 3, 7 and every core: the same bits
    (floating-point sums included), and sums as math.fsum's within the
    double-double's error."""
    import math
    rng = np.random.default_rng(16)
    labels = rng.integers(0, 40, shape).astype(np.int32)
    labels = np.where(rng.random(shape) < 0.8, np.roll(labels, 1), labels).astype(np.int32)
    values = rng.standard_normal(shape) * 1e3
    index = np.array([0, 1, 2, 5, 7, 11, 12, 13, 39, 40, 41], np.int64)
    columns = [_glccl.host_sums_by_label(labels, values, index, 31, threads) for threads in [1, 2, 3, 7, 0]]
    for other in columns[1:]:
        assert sorted(other) == sorted(columns[0])
        for name, column in columns[0].items():
            assert np.array_equal(column.view(np.int64), other[name].view(np.int64)), name
    counts = np.bincount(labels.ravel(), minlength=42)[index]
    np.testing.assert_array_equal(columns[0]["counts"], counts)
    flat_labels, flat_values = labels.ravel(), values.ravel()
    for k, label in enumerate(index):
        mine = flat_values[flat_labels == label]
        exact = math.fsum(mine)
        assert abs(columns[0]["sums"][k] - exact) <= 2 * np.spacing(abs(exact)) + 1e-300, label
        if mine.size:
            assert columns[0]["minimum_at"][k] == np.flatnonzero(flat_labels == label)[np.argmin(mine)]
            assert columns[0]["maximum_at"][k] == np.flatnonzero(flat_labels == label)[np.argmax(mine)]


def test_one_pass_with_every_label_of_many_gives_the_same_bits_at_every_thread_count():
    """An index of every label of a labeling of many regions (its totals
    merged in several parts): the same bits on 1, 2, 3, 7 threads and every
    core, and scipy's results."""
    rng = np.random.default_rng(17)
    labels, n = ndimage.label(rng.random((240, 300)) < 0.3)
    assert n > 2 * 4096  # several parts of 4096 labels
    values = rng.random(labels.shape)
    index = np.arange(1, n + 1)
    columns = [_glccl.host_sums_by_label(labels, values, index, 31, threads) for threads in [1, 2, 3, 7, 0]]
    for other in columns[1:]:
        for name, column in columns[0].items():
            assert np.array_equal(column.view(np.int64), other[name].view(np.int64)), name
    check_all(values, labels, [index], ["sum_labels", "variance", "maximum_position", "center_of_mass"])
