"""Edge cases of the measuring API that a hostile caller reaches, each against
scikit-image, scipy.ndimage or numpy on the same arrays: infinities and NaNs
in a float intensity, intensities whose weights sum to 0, an out= that is
the intensity, extra_properties named like a property, a 0-d index, bad
indices and max_label, arguments that must be refused, and regions that
are lines, whose smaller inertia eigenvalue is 0 exactly."""

import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi
from skimage import measure

import glccl
import glccl.cc3d
import glccl.ndimage

RTOL = 1e-9


def same_float(got, want):
    """Equal as numpy's floats are: the same NaNs and infinities, finite
    values within RTOL."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    finite = np.isfinite(want)
    assert np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)]), (got, want)
    assert np.allclose(got[finite], want[finite], rtol=RTOL, atol=0), (got, want)


def regions_of(labels):
    return [label for label in np.unique(labels) if label != 0]


def nonfinite_intensity(rng, shape, count):
    """Float64 samples with `count` infinities of either sign and NaNs
    spread at random, the rest of both signs."""
    values = rng.normal(0, 100, shape)
    flat = values.ravel()
    at = rng.choice(flat.size, count, replace=False)
    flat[at] = rng.choice([np.inf, -np.inf, np.nan], count)
    return values


@pytest.mark.parametrize("seed", range(12))
def test_infinities_and_nans_of_an_intensity_are_numpy_s(seed):
    """The sums, means, extrema and extrema's positions of each region are
    numpy's over its elements: an infinity makes the sum and mean infinite
    (or NaN where both signs meet), a NaN makes them NaN, and the least
    and greatest are NaN wherever a NaN is (numpy.min, numpy.max), at the
    first NaN (numpy.argmin, numpy.argmax). Images of several chunks of
    rows, measured on 1 and 3 threads, so that chunks' extrema meet."""
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(150, 260)), int(rng.integers(3, 40)))
    labels = rng.integers(0, 5, shape)
    intensity = nonfinite_intensity(rng, shape, int(rng.integers(1, 12)))
    names = ["label", "intensity_sum", "intensity_mean", "intensity_min", "intensity_max", "intensity_min_position",
             "intensity_max_position"]
    for threads in (1, 3):
        with np.errstate(invalid="ignore"):
            table = glccl.regionprops_table(labels, intensity, properties=names, threads=threads)
        for row, label in enumerate(table["label"]):
            values = intensity[labels == label]
            coords = np.argwhere(labels == label)
            with np.errstate(invalid="ignore", over="ignore"):
                same_float(table["intensity_sum"][row], np.sum(values))
                same_float(table["intensity_mean"][row], np.mean(values))
            same_float(table["intensity_min"][row], np.min(values))
            same_float(table["intensity_max"][row], np.max(values))
            for name, at in (("intensity_min_position", np.argmin(values)), ("intensity_max_position",
                                                                             np.argmax(values))):
                got = [table[f"{name}-{axis}"][row] for axis in range(2)]
                assert got == list(coords[at]), (name, label, got, coords[at])


def test_an_intensity_past_the_largest_double_is_infinite_as_scikit_image_has_it():
    labels = np.array([[1, 1, 2, 2]])
    intensity = np.array([[1.7e308, 1.7e308, -1.7e308, -1.7e308]])
    with np.errstate(over="ignore"):
        want = measure.regionprops_table(labels, intensity, properties=["intensity_mean"])
    got = glccl.regionprops_table(labels, intensity, properties=["intensity_mean", "intensity_sum"])
    same_float(got["intensity_mean"], want["intensity_mean"])
    same_float(got["intensity_sum"], [np.inf, -np.inf])


@pytest.mark.parametrize("backend", ["cpu", "reference"])
def test_label_with_properties_keeps_an_infinite_intensity(backend):
    """glccl.label(properties=) measures a float intensity as
    regionprops_table does, on the engines that measure it."""
    image = np.array([[1, 1, 0, 1], [0, 0, 0, 1]], bool)
    intensity = np.array([[np.inf, 2.0, 5.0, np.nan], [0.0, 0.0, 0.0, 3.0]])
    labels, _, table = glccl.label(image, backend=backend, properties=["intensity_mean", "intensity_max"],
                                   intensity_image=intensity)
    want = measure.regionprops_table(labels, intensity, properties=["intensity_mean", "intensity_max"])
    same_float(table["intensity_mean"], want["intensity_mean"])
    same_float(table["intensity_max"], want["intensity_max"])


def test_weights_that_sum_to_zero_give_scikit_image_s_centroid():
    """A weighted centroid whose weights sum to 0: +-inf where the first
    moment is not 0, NaN where it is too, as scikit-image divides."""
    labels = np.array([[1, 1, 0, 2, 2]])
    intensity = np.array([[-1, 1, 0, 0, 0]], np.int8)
    names = ["centroid_weighted", "centroid_weighted_local"]
    with np.errstate(invalid="ignore", divide="ignore"):
        want = measure.regionprops_table(labels, intensity, properties=names)
    got = glccl.regionprops_table(labels, intensity, properties=names)
    for column in want:
        same_float(got[column], want[column])


def test_threads_are_refused_past_what_a_call_may_ask_for():
    labels = np.array([[0, 1]])
    for threads in (0, -1, 10**5):
        with pytest.raises(ValueError, match="threads"):
            glccl.regionprops_table(labels, properties=["area"], threads=threads)
    with pytest.raises(TypeError, match="threads"):
        glccl.regionprops_table(labels, properties=["area"], threads=2.0)
    assert glccl.regionprops_table(labels, properties=["area"], threads=2)["area"].tolist() == [1.0]


@pytest.mark.parametrize("backend", ["cpu", "reference"])
def test_an_out_that_is_the_intensity_is_read_before_it_is_overwritten(backend):
    seg = np.array([[5, 5, 0, 7], [5, 0, 7, 7]], np.uint32)
    original = seg.copy()
    labels, _, table = glccl.label(seg, criterion="segments", backend=backend, out=seg,
                                   properties=["label", "intensity_mean", "intensity_max"], intensity_image=seg)
    assert labels is seg
    want = measure.regionprops_table(labels, original, properties=["label", "intensity_mean", "intensity_max"])
    for column in want:
        same_float(table[column], want[column])
    seg = original.copy()
    labeler = glccl.Labeler(criterion="segments", backend=backend)
    _, _, table = labeler.label(seg, out=seg, properties=["intensity_mean"], intensity_image=seg)
    same_float(table["intensity_mean"], want["intensity_mean"])


def test_extra_properties_named_as_properties_are_shadowed_as_in_scikit_image():
    labels = np.array([[1, 2, 2], [0, 3, 3]])

    def label(mask):
        return 7

    def area(mask):
        return 999

    def bbox(mask):
        return 0

    def spread(mask):
        return mask.sum() * 2

    extras = [label, area, bbox, spread]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = glccl.regionprops_table(labels, properties=["label", "area"], extra_properties=extras)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = measure.regionprops_table(labels, properties=["label", "area"], extra_properties=extras)
    assert sorted(got) == sorted(want)
    for column in want:
        assert np.array_equal(np.asarray(got[column], np.float64), np.asarray(want[column], np.float64)), column
    shadowed = {str(w.message) for w in caught if issubclass(w.category, UserWarning)}
    assert {f"Extra property '{name}' is shadowed by existing property and will be inaccessible. Consider renaming "
            f"it." for name in ("label", "area", "bbox")} <= shadowed


def test_a_0d_index_names_one_label_as_scipy_takes_it():
    rng = np.random.default_rng(3)
    values = rng.normal(size=(9, 11))
    labels = rng.integers(0, 4, (9, 11))
    for name in ("minimum", "maximum", "extrema", "minimum_position", "maximum_position"):
        got = getattr(glccl.ndimage, name)(values, labels, np.array(2))
        want = getattr(ndi, name)(values, labels, np.array(2))
        assert str(got) == str(want), name
    for name in ("sum_labels", "mean", "variance", "standard_deviation", "center_of_mass"):
        got = getattr(glccl.ndimage, name)(values, labels, np.array(2))
        want = getattr(ndi, name)(values, labels, 2)  # scipy's own 0-d path fails for these: its scalar's answer
        same_float(got, want)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_an_index_of_a_nan_or_an_infinity_is_refused_as_scipy_refuses_it(bad):
    values = np.arange(6.0).reshape(2, 3)
    labels = np.array([[1, 1, 2], [2, 0, 1]])
    for name in ("sum_labels", "mean", "variance", "minimum", "maximum_position", "center_of_mass", "extrema"):
        with pytest.raises((ValueError, OverflowError)):
            getattr(ndi, name)(values, labels, [1, bad])
        with pytest.raises(ValueError, match="index"):
            getattr(glccl.ndimage, name)(values, labels, [1, bad])


def test_find_objects_takes_max_label_as_scipy_does():
    labels = np.array([[0, 1, 0], [2, 3, 3]])
    for top in (-1, 0, 0.5, 1, 2, 5, True, np.int64(2)):
        assert glccl.find_objects(labels, max_label=top) == ndi.find_objects(labels, max_label=top), top
        assert glccl.ndimage.find_objects(labels, max_label=top) == ndi.find_objects(labels, max_label=top), top
    for top in (2.5, None, "2"):
        with pytest.raises(TypeError):
            ndi.find_objects(labels, max_label=top)
        with pytest.raises(TypeError, match="max_label"):
            glccl.find_objects(labels, max_label=top)


def test_refused_arguments():
    with pytest.raises(TypeError, match="integers"):
        glccl.cc3d.statistics(np.array([[1.5, 0.0], [2.7, 0.0]]))
    with pytest.raises(ValueError, match="no channels"):
        glccl.regionprops_table(np.array([[1, 2]]), np.zeros((1, 2, 0)), properties=["intensity_mean"])
    with pytest.raises(ValueError, match="disagree"):
        glccl.label(np.ones((2, 2), bool), out=np.empty((2, 2), np.uint32), dtype="uint64")


def test_a_line_of_elements_has_no_minor_axis():
    """Elements on one line: the inertia tensor's determinant is 0 in exact
    arithmetic, so its smaller eigenvalue, the minor axis and 1 - the
    eccentricity are 0 (within 1e-12 of the major axis), on lines of every
    slope, where the larger eigenvalue less the spread of the tensor would
    leave rounding noise of the larger's size."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        step = (int(rng.integers(1, 6)), int(rng.integers(-6, 7)))
        count = int(rng.integers(2, 7))
        points = [(k * step[0], k * step[1]) for k in range(count)]
        low = min(x for _, x in points)
        points = [(y, x - low) for y, x in points]
        labels = np.zeros((max(y for y, _ in points) + 1, max(x for _, x in points) + 1), np.int32)
        for y, x in points:
            labels[y, x] = 1
        table = glccl.regionprops_table(labels, properties=["axis_major_length", "axis_minor_length",
                                                            "eccentricity", "inertia_tensor_eigvals"])
        major = table["axis_major_length"][0]
        assert major > 0
        assert table["axis_minor_length"][0] <= 1e-12 * major, (points, table)
        assert abs(table["eccentricity"][0] - 1.0) <= 1e-12, (points, table)
        assert table["inertia_tensor_eigvals-1"][0] <= 1e-24 * table["inertia_tensor_eigvals-0"][0], (points, table)


def test_labels_that_cross_every_chunk_take_memory_as_the_regions_do():
    """65535 labels at random over 1024 x 4096 elements: every region crosses
    every one of the measuring's 64 chunks, whose partial sums of ten moments
    held at once took about 0.7 GB. In a process of its own (its peak
    resident memory is the test's), the raw moments against numpy's
    bincounts (every sum an integer below 2^53, exact in doubles)."""
    import resource
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import resource, sys
        import numpy as np
        import glccl
        labels = np.random.default_rng(5).integers(1, 65536, (4096, 1024), dtype=np.uint32)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        table = glccl.regionprops_table(labels, properties=("label", "bbox", "moments"), threads=2)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        np.savez(sys.argv[1], **table)
        print(before, peak)
    """)
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = folder + "/table.npz"
        result = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        before, peak = (int(v) for v in result.stdout.split())
        table = dict(np.load(path))
    labels = np.random.default_rng(5).integers(1, 65536, (4096, 1024), dtype=np.uint32)
    present = np.unique(labels)
    assert np.array_equal(table["label"], present)
    flat = labels.ravel()
    rows, cols = np.divmod(np.arange(flat.size, dtype=np.int64), labels.shape[1])
    top = ndi.minimum(rows, flat, present).astype(np.int64)
    left = ndi.minimum(cols, flat, present).astype(np.int64)
    assert np.array_equal(table["bbox-0"], top) and np.array_equal(table["bbox-1"], left)
    start = np.zeros(int(flat.max()) + 1, np.int64)
    start[present] = top
    r = (rows - start[flat]).astype(np.float64)
    start[present] = left
    c = (cols - start[flat]).astype(np.float64)
    for i in range(4):
        for j in range(4 - i):
            want = np.bincount(flat, r ** i * c ** j)[present]
            assert np.array_equal(table[f"moments-{i}-{j}"], want), (i, j)
    # The partial sums held at once were about 64 x 65535 slots of 170 bytes.
    assert (peak - before) * 1024 < 500 * 2 ** 20, (before, peak)
