"""glccl.label(properties=) on each engine: the labels against
scikit-image's label, the table against scikit-image's regionprops_table
(and the exact computations of test_measure.py where its release lacks a
property), 2-D and 3-D, with intensities the GPU gatherers read and ones
they leave to the cpu engine's; and the table's measured_by, the engine
whose gatherer gathered the terms, as docs/python.md states the rule.

Integer columns are compared exactly, floats to 1e-9 relative (test_measure's
assert_close)."""

import numpy as np
import pytest
from scipy import ndimage
from skimage import measure

import glccl
from test_measure import assert_close, expected_table, intensities, scales

AVAILABLE = {entry["name"]: entry["available"] for entry in glccl.backends()}

SPATIAL = ["label", "num_pixels", "area", "bbox", "centroid", "moments_central", "inertia_tensor_eigvals",
           "euler_number"]
SPATIAL_2D = ["perimeter", "perimeter_crofton", "orientation", "eccentricity", "moments_hu"]
INTENSITY = ["intensity_mean", "intensity_min", "intensity_max", "intensity_std", "intensity_sum",
             "intensity_max_position", "centroid_weighted", "moments_weighted_central"]

# (intensity dtype or None, channels) -> the engine whose gatherer gathers
# the terms, for each backend: a GL engine reads one channel of unsigned
# integers up to 32 bits, cuda one channel of integers; the cpu engine's
# accumulator takes the rest.
INTENSITY_CASES = [
    (None, None, {"compute": "compute", "cuda": "cuda"}),
    (np.uint8, None, {"compute": "compute", "cuda": "cuda"}),
    (np.uint16, None, {"compute": "compute", "cuda": "cuda"}),
    (np.int16, None, {"compute": "cpu", "cuda": "cuda"}),
    (np.float32, None, {"compute": "cpu", "cuda": "cpu"}),
    (np.uint8, 3, {"compute": "cpu", "cuda": "cpu"}),
]


def runs(backend):
    if not AVAILABLE.get(backend):
        pytest.skip(f"the {backend} backend does not run here")


def assert_table(table, want):
    assert list(table) == list(want)
    for column, values in want.items():
        got = np.asarray(table[column])
        if values.dtype.kind in "iu":
            assert got.dtype.kind in "iu", column
            np.testing.assert_array_equal(got, values, err_msg=column)
        else:
            assert_close(got, values, scales(want, column.split("-")[0]), column)


@pytest.mark.parametrize("backend", ["compute", "cuda", "cpu"])
@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("dtype, channels, gatherers", INTENSITY_CASES)
def test_label_measures_with_the_engine_that_labeled(backend, ndim, dtype, channels, gatherers):
    runs(backend)
    rng = np.random.default_rng([ndim, np.dtype(dtype).num if dtype else 0, channels or 1])
    shape = (40, 52) if ndim == 2 else (10, 12, 14)
    image = rng.random(shape) < (0.4 if ndim == 2 else 0.25)
    intensity = None if dtype is None else intensities(rng, shape, dtype, channels)
    if intensity is not None and intensity.dtype.kind == "u":
        # No region of zero weight, whose weighted moments are 0 / 0.
        intensity = np.maximum(intensity, 1)
    properties = SPATIAL + (SPATIAL_2D if ndim == 2 else []) + (INTENSITY if dtype is not None else [])
    labels, n, table = glccl.label(image, connectivity=1, backend=backend, properties=properties,
                                   intensity_image=intensity)
    want_labels = measure.label(image, connectivity=1)
    np.testing.assert_array_equal(labels, want_labels)
    assert n == want_labels.max() and n > 1
    assert_table(table, expected_table(want_labels, intensity, properties))
    assert table.measured_by == gatherers.get(backend, "cpu")


def test_auto_measures_with_the_engine_it_chose():
    rng = np.random.default_rng(7)
    image = rng.random((30, 44)) < 0.4
    intensity = intensities(rng, image.shape, np.uint8)
    properties = ["label", "area", "bbox", "moments_central", "perimeter", "intensity_mean", "intensity_max"]
    labels, n, table = glccl.label(image, connectivity=2, properties=properties, intensity_image=intensity)
    want_labels = measure.label(image, connectivity=2)
    np.testing.assert_array_equal(labels, want_labels)
    assert_table(table, expected_table(want_labels, intensity, properties))
    assert table.measured_by in ("cpu", "compute", "raster", "cuda")


@pytest.mark.parametrize("backend", ["compute", "cpu"])
def test_crops_spacing_and_out_on_the_engine_route(backend):
    """Crop properties beside the gathered ones, spacing, and labels written
    into out= of another dtype: the same table as scikit-image's."""
    runs(backend)
    rng = np.random.default_rng(8)
    image = rng.random((36, 40)) < 0.45
    intensity = intensities(rng, image.shape, np.uint8)
    out = np.empty(image.shape, np.int64)
    properties = ["label", "bbox", "image", "solidity", "intensity_mean", "image_intensity"]
    labels, n, table = glccl.label(image, connectivity=2, backend=backend, properties=properties,
                                   intensity_image=intensity, out=out)
    assert labels is out
    want_labels = measure.label(image, connectivity=2)
    np.testing.assert_array_equal(out, want_labels)
    want = measure.regionprops_table(want_labels, intensity, properties)
    assert list(table) == list(want)
    for column in ["image", "image_intensity"]:
        assert all(np.array_equal(g, w) for g, w in zip(table[column], want[column])), column
    for column in ["label", "bbox-0", "bbox-1", "bbox-2", "bbox-3"]:
        np.testing.assert_array_equal(table[column], want[column], err_msg=column)
    for column in ["solidity", "intensity_mean"]:
        assert_close(table[column], want[column], scales(want, column), column)
    spacing = (2.0, 0.5)
    _, _, scaled = glccl.label(image, connectivity=2, backend=backend, properties=["area", "centroid"],
                               spacing=spacing)
    unscaled = measure.regionprops_table(want_labels, properties=["area", "centroid"])
    assert list(scaled["area"]) == [float(area) * 1.0 for area in unscaled["area"]]
    for axis in range(2):
        assert_close(scaled[f"centroid-{axis}"], unscaled[f"centroid-{axis}"] * spacing[axis],
                     np.abs(unscaled[f"centroid-{axis}"] * spacing[axis]), f"centroid-{axis}")


SAME_AS_CPU_2D = ["label", "area", "bbox", "centroid", "moments", "orientation", "axis_major_length",
                  "axis_minor_length", "eccentricity", "perimeter", "perimeter_crofton", "euler_number"]
SAME_AS_CPU_3D = ["label", "area", "bbox", "centroid", "moments", "axis_major_length", "axis_minor_length",
                  "euler_number"]
SAME_AS_CPU_INTENSITY = ["intensity_mean", "intensity_min", "intensity_max", "intensity_min_position",
                         "intensity_max_position", "moments_weighted"]


# The geometry at every connectivity (the perimeters and Euler numbers
# depend on it); each intensity dtype in 2-D and 3-D at one connectivity,
# the connectivities in turn: the intensity terms read the labels and the
# intensity, not the connectivity that made the labels.
@pytest.mark.parametrize("ndim, connectivity, dtype", [
    (ndim, connectivity, None) for ndim, connectivity in ((2, 1), (2, 2), (3, 1), (3, 3))] + [
    (2, 1, np.uint8), (3, 3, np.uint8), (2, 2, np.uint16), (3, 1, np.uint16), (2, 1, np.uint32),
    (3, 3, np.uint32)])
def test_compute_tables_of_many_small_regions_are_the_cpu_engines(ndim, connectivity, dtype):
    """Noise: many small regions, which the compute engine measures one
    region a thread (a box of a few elements), among larger ones it gathers
    over the labels; one-pixel regions in the image's corners. Every column
    is the cpu engine's, to the bit."""
    runs("compute")
    rng = np.random.default_rng([ndim, connectivity, np.dtype(dtype).itemsize if dtype else 0])
    shape = (97, 131) if ndim == 2 else (13, 17, 19)
    # Below a volume's percolation at 26-connectivity, where nearly every
    # voxel would join one region; a block for a region larger than any
    # measured alone.
    image = rng.random(shape) < {2: 0.5, 3: 0.3 if connectivity == 1 else 0.08}[ndim]
    image[(slice(3, 11),) * ndim] = True
    corners = tuple(np.ix_(*[[0, side - 1] for side in shape]))
    neighbours = tuple(np.ix_(*[[1, side - 2] for side in shape]))
    image[neighbours] = False
    for axis in range(ndim):
        # Each corner's neighbours along the axes cleared: the corners are one-pixel regions.
        index = [[0, side - 1] for side in shape]
        index[axis] = [1, shape[axis] - 2]
        image[np.ix_(*index)] = False
    image[corners] = True
    intensity = None if dtype is None else intensities(rng, shape, dtype)
    properties = (SAME_AS_CPU_2D if ndim == 2 else SAME_AS_CPU_3D) + (SAME_AS_CPU_INTENSITY if dtype else [])
    _, n, table = glccl.label(image, connectivity=connectivity, backend="compute", properties=properties,
                              intensity_image=intensity)
    _, n_cpu, want = glccl.label(image, connectivity=connectivity, backend="cpu", properties=properties,
                                 intensity_image=intensity)
    assert table.measured_by == "compute"
    assert n == n_cpu
    # Regions of both kinds, whatever the compute engine's limit on a box
    # measured alone (below 256 elements): boxes of a few elements, and
    # boxes past 255.
    boxes = np.prod([np.asarray(table[f"bbox-{ndim + a}"]) - np.asarray(table[f"bbox-{a}"]) for a in range(ndim)],
                    axis=0)
    assert (boxes <= 8).sum() > 20 and (boxes > 255).sum() > 0
    assert (np.asarray(table["area"]) == 1).sum() >= 2 ** ndim
    assert list(table) == list(want)
    for column, values in want.items():
        np.testing.assert_array_equal(np.asarray(table[column]), np.asarray(values), err_msg=column)


# The cpu engine measures the labels of its own binary labelings in
# 8-connectivity from the foreground's bits, each run's label read once
# (docs/measuring.md, "Where the work is done"), except in rows a run in
# every 8 elements or more: blobs with holes (long runs, rows of few runs)
# above and below noise (dense rows), so that rows of both kinds meet in a
# chunk and the last row is of few runs;
# widths about a word of 64 elements, one row, one column, an image of
# several chunks and a wide one of several (chunks of their least rows).
BY_RUNS = ["label", "area", "bbox", "centroid", "moments_central", "orientation", "eccentricity", "perimeter",
           "perimeter_crofton", "euler_number", "intensity_mean", "intensity_min", "intensity_max", "intensity_std",
           "intensity_max_position", "centroid_weighted"]


@pytest.mark.parametrize("shape", [(1, 70), (70, 1), (9, 63), (17, 64), (23, 65), (40, 130), (300, 257), (150, 1030)])
@pytest.mark.parametrize("threads", [1, 3])
def test_cpu_tables_of_binary_labelings_in_8_connectivity_are_scikit_images(shape, threads):
    rng = np.random.default_rng([shape[0], shape[1], threads])
    blobs = ndimage.uniform_filter(rng.random(shape), 5) > 0.5
    noise = rng.random(shape) < 0.5
    third = np.arange(shape[0])[:, None] * 3 // shape[0]
    image = np.where(third == 1, noise, blobs)
    image[0, 0] = image[-1, -1] = True
    # No region of zero weight, whose weighted centroid is 0 / 0.
    intensity = np.maximum(intensities(rng, shape, np.uint16), 1)
    labels, n, table = glccl.label(image, connectivity=2, backend="cpu", properties=BY_RUNS,
                                   intensity_image=intensity, threads=threads)
    want_labels = measure.label(image, connectivity=2)
    np.testing.assert_array_equal(labels, want_labels)
    assert_table(table, expected_table(want_labels, intensity, BY_RUNS))


class _DeviceArray:
    """What glccl takes for an array in GPU memory (CUDA's array interface),
    without a GPU: the refusals come before any memory is read."""
    __cuda_array_interface__ = {"shape": (4, 6), "typestr": "|u1", "data": (0, False), "version": 3}
    shape = (4, 6)
    ndim = 2
    dtype = np.dtype(np.uint8)


@pytest.mark.parametrize("call", [
    lambda: glccl.regionprops_table(_DeviceArray()),
    lambda: glccl.regionprops_table(np.ones((4, 6), np.uint8), _DeviceArray(), properties=["intensity_mean"]),
    lambda: glccl.label(_DeviceArray(), properties=["area"]),
])
def test_device_arrays_are_refused_with_the_entry_to_use(call):
    if glccl._measure.device_measurable():
        pytest.skip("CUDA runs here: device arrays are measured on their GPU (test_cupy_measure.py)")
    with pytest.raises(TypeError, match=r"GPU memory.*numpy.*regionprops_table\(cupy\.asnumpy"):
        call()
