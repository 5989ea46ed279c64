"""glccl.dask.regionprops_table and glccl.dask.ndmeasure's measurements on
Dask arrays of every chunking (chunks of 1, uneven chunks, one chunk, empty
chunks), regions spanning many chunks, 2-D and 3-D, labels past 2**32, on
the synchronous and threaded schedulers: against scikit-image's
regionprops (through test_measure's expected tables) and scipy.ndimage's
measurements of the computed numpy arrays."""

import warnings

import numpy as np
import pytest
from scipy import ndimage
from skimage import measure

dask = pytest.importorskip("dask", reason="dask cannot be imported; tools/install-deps.sh installs python3-dask")
da = pytest.importorskip("dask.array", reason="dask.array cannot be imported (python3-dask)")
import glccl.dask  # noqa: E402
from glccl.dask import ndmeasure  # noqa: E402
from test_measure import (INTENSITY, INTENSITY_2D, SPATIAL, SPATIAL_2D, adversarial_2d, assert_table,  # noqa: E402
                          blocky_labels, expected_table)

SCHEDULERS = ["sync", "threads"]


def table_of(labels, intensity, properties, chunks, scheduler, **options):
    """glccl.dask.regionprops_table of the arrays in `chunks`, computed."""
    dask_intensity = None if intensity is None else da.from_array(intensity, chunks=chunks + (-1,) *
                                                                  (intensity.ndim - labels.ndim))
    table = glccl.dask.regionprops_table(da.from_array(labels, chunks=chunks), dask_intensity, properties, **options)
    return table.compute(scheduler=scheduler)


# --- regionprops_table --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("chunks", [(1, 1), (5, 7), ((10, 1, 12), (3, 26)), (23, 29)])
def test_table_2d_against_skimage(scheduler, chunks):
    rng = np.random.default_rng(3)
    # Chunks of one element on a smaller image: each is still a piece of a
    # region or of the background, the merge tree as deep.
    shape = (11, 13) if chunks == (1, 1) else (23, 29)
    labels = blocky_labels(rng, shape, [0, 1, 2, 5, 9], block=7).astype(np.uint16)
    intensity = (rng.random(labels.shape) * 100 - 10)
    properties = SPATIAL + SPATIAL_2D + INTENSITY + INTENSITY_2D
    assert_table(table_of(labels, intensity, properties, chunks, scheduler),
                 expected_table(labels, intensity, properties))


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("chunks", [(2, 3, 4), ((4, 1, 4), (5, 5), (11,)), (1, 10, 1)])
def test_table_3d_against_skimage(scheduler, chunks):
    rng = np.random.default_rng(4)
    labels = blocky_labels(rng, (9, 10, 11), [0, 3, 4, 7], block=4).astype(np.int32)
    intensity = rng.integers(-100, 1000, labels.shape).astype(np.int16)
    properties = SPATIAL + INTENSITY
    assert_table(table_of(labels, intensity, properties, chunks, scheduler),
                 expected_table(labels, intensity, properties))


def test_perimeter_euler_and_moments_across_chunk_borders():
    """Regions cut by chunk borders in every way (lines, diagonals, holes,
    a frame along the image's border, one-pixel regions), labels past
    2**32, a channel axis: one table whatever the chunks."""
    labels = adversarial_2d(big=True)
    rng = np.random.default_rng(5)
    intensity = rng.random(labels.shape + (2,)).astype(np.float32)
    properties = ["label", "bbox", "perimeter", "perimeter_crofton", "euler_number", "moments_central",
                  "intensity_mean", "intensity_max_position", "centroid_weighted"]
    want = expected_table(labels, intensity, properties)
    for chunks in [(7, 9), (1, 80), ((1, 2, 3, 58), (40, 1, 39))]:
        assert_table(table_of(labels, intensity, properties, chunks, "threads"), want)


def test_empty_chunks_and_an_empty_image():
    labels = np.zeros((12, 14), np.uint8)
    labels[10:12, 0:3] = 4                                    # a region in one corner chunk only
    properties = ["label", "bbox", "euler_number", "moments_central"]
    assert_table(table_of(labels, None, properties, (4, 5), "sync"), expected_table(labels, None, properties))
    empty = table_of(np.zeros_like(labels), None, properties, (4, 5), "sync")
    skimage_empty = measure.regionprops_table(np.zeros_like(labels), properties=properties)
    assert list(empty) == list(skimage_empty)
    assert all(len(column) == 0 for column in empty.values())
    # Chunks of length 0 (a Dask array sliced empty between others).
    sliced = da.concatenate([da.from_array(labels[:5], chunks=5), da.zeros((0, 14), dtype=np.uint8, chunks=(0, 7)),
                             da.from_array(labels[5:], chunks=3)])
    got = glccl.dask.regionprops_table(sliced, None, properties).compute(scheduler="sync")
    assert_table(got, expected_table(labels, None, properties))


def test_old_names_separator_spacing_and_numpy_input():
    rng = np.random.default_rng(6)
    labels = blocky_labels(rng, (16, 15), [0, 1, 2], block=5)
    got = glccl.dask.regionprops_table(labels, None, ["BoundingBox", "centroid", "area"], separator="/",
                                       spacing=(0.5, 3.0)).compute(scheduler="sync")
    want = measure.regionprops_table(labels, properties=["BoundingBox", "centroid", "area"], separator="/")
    assert list(got) == list(want)
    for column in ["BoundingBox/0", "BoundingBox/1", "BoundingBox/2", "BoundingBox/3"]:
        np.testing.assert_array_equal(got[column], want[column])
    rows, cols = np.indices(labels.shape)
    for row, label in enumerate(np.unique(labels[labels > 0])):
        mask = labels == label
        assert got["area"][row] == mask.sum() * 1.5
        np.testing.assert_allclose([got["centroid/0"][row], got["centroid/1"][row]],
                                   [rows[mask].mean() * 0.5, cols[mask].mean() * 3.0], rtol=1e-12)


def test_merges_form_a_tree_of_eight():
    labels = da.from_array(np.arange(40 * 40, dtype=np.uint32).reshape(40, 40) % 7, chunks=4)
    table = glccl.dask.regionprops_table(labels, None, ["label", "area"])
    graph = dict(table.__dask_graph__())
    merges = [task for key, task in graph.items() if "measure-merge" in str(key)]
    terms = [key for key in graph if "measure-terms" in str(key)]
    assert len(terms) == 100
    assert all(len(task) - 1 <= 8 for task in merges)
    assert len(merges) == 13 + 2 + 1                          # 100 -> 13 -> 2 -> 1
    want = np.bincount(np.asarray(labels).ravel())[1:]
    np.testing.assert_array_equal(table.compute(scheduler="threads")["area"], want)


def test_crop_properties_and_bad_input_are_refused():
    labels = da.zeros((4, 4), dtype=np.uint8, chunks=2)
    with pytest.raises(ValueError, match=r"glccl.dask.regionprops_table\(\): 'solidity', 'image' are computed from "
                                         r"each region's crop.*glccl.regionprops_table"):
        glccl.dask.regionprops_table(labels, None, ["label", "solidity", "image"])
    with pytest.raises(ValueError, match="needs an intensity_image"):
        glccl.dask.regionprops_table(labels, None, ["intensity_mean"])
    with pytest.raises(TypeError, match="boolean"):
        glccl.dask.regionprops_table(labels > 0)
    with pytest.raises(TypeError, match="2 dimensions"):
        glccl.dask.regionprops_table(labels[0])
    with pytest.raises(ValueError, match="intensity_image must have the labels' shape"):
        glccl.dask.regionprops_table(labels, da.zeros((4, 5), chunks=2), ["intensity_mean"])
    with pytest.raises(TypeError, match="extra_properties"):
        glccl.dask.regionprops_table(labels, extra_properties=[len])
    negative = da.from_array(np.array([[0, 1], [-3, 1]], np.int8), chunks=1)
    with pytest.raises(ValueError, match=r"positive labels; it holds -3"):
        glccl.dask.regionprops_table(negative).compute(scheduler="sync")


# --- ndmeasure ----------------------------------------------------------------------------------------------------

FUNCTIONS = ["sum_labels", "mean", "variance", "standard_deviation", "minimum", "maximum", "center_of_mass"]


def scipy_values(name, image, labels, index):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(getattr(ndimage, name)(image, labels, index), dtype=float)


def first_positions(image, labels, index, find):
    """The position of each label's extremum, the first in raster order
    where several elements hold it (scipy's for one label; for a sequence
    its sort may pick another), (0, ...) for a label absent."""
    values = np.atleast_1d(1 if index is None else index)
    selected = labels > 0 if index is None else labels
    positions = []
    for value in values:
        flat = np.flatnonzero(selected == value)
        positions.append(np.unravel_index(flat[find(image.ravel()[flat])], image.shape) if len(flat)
                         else (0,) * image.ndim)
    return np.array(positions)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("shape, chunks", [((37,), 5), ((4, 5), 1), ((11, 13), ((2, 9), (6, 1, 6))),
                                           ((6, 7, 8), (3, 2, 5))])
def test_ndmeasure_against_scipy(scheduler, shape, chunks):
    rng = np.random.default_rng(len(shape) * 10 + (chunks if isinstance(chunks, int) else 2))
    image = rng.integers(-50, 200, shape).astype(np.int16)
    labels = rng.integers(0, 6, shape)
    dimage, dlabels = da.from_array(image, chunks=chunks), da.from_array(labels, chunks=chunks)
    for index in [None, 3, [0, 4, 9, 1, 4], np.array([2])]:
        results = [getattr(ndmeasure, name)(dimage, dlabels, index) for name in FUNCTIONS]
        computed = dask.compute(*results, scheduler=scheduler)
        for name, result, value in zip(FUNCTIONS, results, computed):
            want = scipy_values(name, image, labels, index)
            assert result.shape == want.shape == value.shape, (name, index)
            np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12, err_msg=f"{name} {index}")
            assert value.dtype == (image.dtype if name in ("minimum", "maximum") else np.float64), name
        mins, maxs, min_at, max_at = dask.compute(*ndmeasure.extrema(dimage, dlabels, index), scheduler=scheduler)
        want = ndimage.extrema(image, labels, index)
        np.testing.assert_array_equal(mins, want[0])
        np.testing.assert_array_equal(maxs, want[1])
        for got, find in ((min_at, np.argmin), (max_at, np.argmax)):
            positions = first_positions(image, labels, index, find)
            np.testing.assert_array_equal(got, np.squeeze(positions) if np.ndim(index) == 0 else positions)
        areas = ndmeasure.area(dimage, dlabels, index).compute(scheduler=scheduler)
        want = ndimage.sum_labels(np.ones(shape, int), labels if index is not None else labels > 0,
                                  index if index is not None else 1)
        np.testing.assert_array_equal(areas, want)
        assert areas.dtype == np.dtype(int)


def test_ndmeasure_without_labels_and_exact_extrema():
    rng = np.random.default_rng(8)
    small = rng.integers(0, 64, (9, 10))
    image = small.astype(np.int64) + 2**60                   # past 2**53: exact in int64 only
    dimage = da.from_array(image, chunks=(4, 3))
    got = dask.compute(ndmeasure.sum_labels(dimage), ndmeasure.mean(dimage), ndmeasure.variance(dimage),
                       ndmeasure.minimum(dimage), ndmeasure.maximum(dimage), ndmeasure.center_of_mass(dimage),
                       scheduler="sync")
    total = sum(int(value) for value in image.ravel())
    assert got[0] == float(total)
    np.testing.assert_allclose(got[1], total / 90, rtol=1e-15)
    np.testing.assert_allclose(got[2], np.var(small), rtol=1e-12)
    assert got[3] == image.min() and got[4] == image.max() and got[3].dtype == np.int64
    np.testing.assert_allclose(got[5], ndimage.center_of_mass(small + 2.0**60), rtol=1e-12)
    labels = np.arange(90).reshape(9, 10) // 20
    got = dask.compute(*ndmeasure.extrema(dimage, da.from_array(labels, chunks=2), [0, 1, 4, 7]), scheduler="sync")
    want = ndimage.extrema(image, labels, [0, 1, 4, 7])
    for value, expected in zip(got, want):
        np.testing.assert_array_equal(value, np.array(expected))
    assert got[0].dtype == np.int64
    assert int(ndmeasure.area(dimage).compute()) == 90


def test_ndmeasure_signatures_and_errors():
    import inspect
    for name in ["area", "center_of_mass", "extrema", "maximum", "mean", "minimum", "standard_deviation",
                 "sum_labels", "variance"]:
        assert list(inspect.signature(getattr(ndmeasure, name)).parameters) == ["image", "label_image", "index"]
        assert name in ndmeasure.__all__
    with pytest.raises(ValueError, match="glccl.dask.ndmeasure.mean\\(\\): the image and label_image arrays must "
                                         "be the same shape"):
        ndmeasure.mean(da.zeros((3, 4), chunks=2), da.zeros((4, 3), dtype=int, chunks=2))
    with pytest.raises(ValueError, match="1-D, 2-D and 3-D"):
        ndmeasure.maximum(da.zeros((2, 2, 2, 2), chunks=1))
    with pytest.raises(TypeError, match="complex"):
        ndmeasure.sum_labels(da.zeros((2, 2), dtype=complex, chunks=1))


def test_ndmeasure_labels_past_2_53_and_bool_labels():
    """Labels told apart past 2**53 (where float64 would merge them), as
    numpy's masks tell them apart."""
    rng = np.random.default_rng(9)
    labels = rng.choice(np.array([0, 2**60 + 1, 2**60 + 2, 5], np.uint64), (10, 12))
    image = rng.random((10, 12))
    index = [2**60 + 2, 2**60 + 1, 2**60 + 3, 5]
    got = ndmeasure.sum_labels(da.from_array(image, chunks=3), da.from_array(labels, chunks=4), index)
    want = [image[labels == np.uint64(value)].sum() for value in index]
    np.testing.assert_allclose(got.compute(scheduler="threads"), want, rtol=1e-12)
    mask = labels > 5
    got = ndmeasure.mean(da.from_array(image, chunks=5), da.from_array(mask, chunks=5), [True, False])
    np.testing.assert_allclose(got.compute(scheduler="sync"), ndimage.mean(image, mask, [True, False]), rtol=1e-12)


def test_ndmeasure_ties_give_the_first_position_in_raster_order():
    labels = np.kron(np.array([[1, 2], [2, 3]]), np.ones((4, 5), int))        # regions over many chunks
    image = np.full(labels.shape, 7, np.uint8)
    for chunks in [(3, 2), 1, ((1, 7), (9, 1))]:
        got = dask.compute(*ndmeasure.extrema(da.from_array(image, chunks=chunks),
                                              da.from_array(labels, chunks=chunks), [3, 2, 1]), scheduler="sync")
        first = [np.argwhere(labels == label)[0] for label in [3, 2, 1]]
        np.testing.assert_array_equal(got[2], first)
        np.testing.assert_array_equal(got[3], first)


def test_ndmeasure_index_as_a_dask_array():
    labels = np.kron(np.array([[1, 2], [2, 3]]), np.ones((3, 4), int))
    image = np.arange(labels.size, dtype=np.float32).reshape(labels.shape)
    index = da.from_array(np.array([3, 0, 2]), chunks=2)
    got = ndmeasure.mean(da.from_array(image, chunks=4), da.from_array(labels, chunks=4), index)
    want = scipy_values("mean", image, labels, [3, 0, 2])
    np.testing.assert_allclose(got.compute(scheduler="sync"), want, rtol=1e-12)
