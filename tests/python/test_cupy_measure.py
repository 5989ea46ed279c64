"""Measuring arrays in GPU memory where they are: glccl.regionprops_table,
glccl.skimage.regionprops, glccl.label(properties=) on device arrays, and
glccl.cupyx (with glccl.ndimage's measurements on device arrays), against
scikit-image and scipy.ndimage on host copies of the same arrays, and the
types cupyx.scipy.ndimage returns. The GPU tests skip, with the reason,
where CuPy (or torch) or CUDA is missing.

The Python side of the device path (labels and index semantics, the
fallbacks to the host, the result types) also runs without a GPU, on a
stand-in: numpy arrays marked as device arrays, a numpy-backed stand-in for
CuPy, and the host's measure_regions standing in for the GPU's gatherer
(whose totals tests/cuda_measure.cpp holds equal to the host's, limb for
limb); those results are held against scipy.ndimage and scikit-image too."""

import sys
import types
import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

import glccl
import glccl.cupyx
import glccl.ndimage
from glccl import _glccl, _measure
from glccl import ndimage as glccl_ndimage
from device_support import cupy, cupyx_ndimage, needs_cupy, needs_torch, torch

skimage_measure = pytest.importorskip("skimage.measure")

TERMS = ["label", "area", "bbox", "centroid", "moments_central", "moments_hu", "perimeter", "perimeter_crofton",
         "euler_number", "eccentricity", "inertia_tensor_eigvals", "extent"]
INTENSITY = ["intensity_mean", "intensity_min", "intensity_max", "centroid_weighted",
             "moments_weighted_central"]
TERMS_3D = ["label", "area", "bbox", "centroid", "moments_central", "euler_number", "inertia_tensor_eigvals"]
NDIMAGE = ["sum_labels", "sum", "mean", "variance", "standard_deviation", "minimum", "maximum", "minimum_position",
           "maximum_position", "extrema", "center_of_mass"]


def noise_labels(shape, seed, fraction=0.5):
    labels, n = ndi.label(np.random.default_rng(seed).random(shape) < fraction)
    return labels, n


def with_ids(labels, ids, dtype):
    """labels 1..n given the values ids (0 stays 0), as dtype."""
    table = np.concatenate([[0], np.asarray(ids, dtype=np.uint64)]).astype(dtype)
    return table[labels]


def sparse_ids(n, low, high, seed):
    """n distinct ids in low..high - 1, in random order."""
    assert n <= high - low, f"{n} ids cannot be drawn from {high - low} values"
    rng = np.random.default_rng(seed)
    ids = set()
    while len(ids) < n:
        ids.add(int(rng.integers(low, high, dtype=np.uint64)))
    ids = list(ids)
    rng.shuffle(ids)
    return ids


def skimage_table(ids, intensity=None, properties=("label",)):
    """scikit-image's table of labels of any values: measured on the labels
    renumbered 1..n in ascending order (scikit-image tabulates every value
    up to the largest), the label column then the values themselves."""
    values, inverse = np.unique(ids, return_inverse=True)
    dense = inverse.reshape(ids.shape) + (0 if values[0] == 0 else 1)
    table = skimage_measure.regionprops_table(dense, intensity, properties=properties)
    if "label" in table:
        table["label"] = values[values != 0]
    return table


def same_columns(got, want, exact=None):
    """Columns of want in got, in order; values as scikit-image's to 1e-9
    relative (and exactly equal to `exact`'s, glccl's host measurement)."""
    assert list(got) == list(want)
    for name in want:
        g, w = np.asarray(got[name]), np.asarray(want[name])
        if g.dtype == object:
            assert all(np.array_equal(a, b) for a, b in zip(g, w)), name
            continue
        assert g.shape == w.shape, name
        np.testing.assert_allclose(g.astype(float), w.astype(float), rtol=1e-9, atol=1e-9, err_msg=name)
        if exact is not None:
            assert np.array_equal(g, np.asarray(exact[name]), equal_nan=True), name


def host(array):
    if array is None or isinstance(array, np.ndarray):
        return array
    if torch is not None and isinstance(array, torch.Tensor):
        return array.cpu().numpy()
    return cupy.asnumpy(array)


# --- On the GPU (CuPy, torch) -------------------------------------------------------------------------------------


@needs_cupy
@pytest.mark.parametrize("dtype, low, high", [
    (np.int32, 1, 2**31 - 1), (np.uint32, 1, 60), (np.uint32, 3 * 10**9, 2**32 - 1), (np.int64, 1, 2**40),
    (np.uint64, 2**32, 2**64 - 1), (np.uint16, 1, 65535), (np.uint8, 1, 255)])
def test_regionprops_table_of_device_labels_is_scikit_images(dtype, low, high):
    labels, n = noise_labels((97, 131), 1, 0.4 if np.dtype(dtype).itemsize > 1 else 0.05)
    if n > high - low:  # a narrow id range: the regions past it become background
        labels[labels > high - low] = 0
        n = high - low
    ids = with_ids(labels, sparse_ids(n, low, high, 3), dtype)
    intensity = np.random.default_rng(4).integers(1, 300, labels.shape).astype(np.int16)
    got = glccl.regionprops_table(cupy.asarray(ids), cupy.asarray(intensity), properties=TERMS + INTENSITY)
    want = skimage_table(ids, intensity, TERMS + INTENSITY)
    same_columns(got, want, glccl.regionprops_table(ids, intensity, properties=TERMS + INTENSITY))
    # Repeats give the same table.
    again = glccl.regionprops_table(cupy.asarray(ids), cupy.asarray(intensity), properties=TERMS + INTENSITY)
    assert all(np.array_equal(got[k], again[k], equal_nan=True) for k in got)


@needs_cupy
@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int32, np.uint32, np.int64, np.uint64, bool])
def test_device_intensity_of_every_integer_type(dtype):
    labels, n = noise_labels((64, 80), 5)
    info = np.iinfo(dtype) if dtype is not bool else None
    rng = np.random.default_rng(6)
    intensity = rng.integers(0, 2, labels.shape).astype(bool) if dtype is bool else \
        rng.integers(info.min, info.max, labels.shape, dtype=dtype, endpoint=True)
    properties = ["label", "intensity_mean", "intensity_min", "intensity_max", "intensity_sum",
                  "intensity_min_position", "intensity_max_position", "centroid_weighted"]
    got = glccl.regionprops_table(cupy.asarray(labels), cupy.asarray(intensity), properties=properties)
    exact = glccl.regionprops_table(labels, intensity, properties=properties)
    assert list(got) == list(exact)
    for name in exact:
        assert np.array_equal(got[name], exact[name], equal_nan=True), name
    want = skimage_measure.regionprops_table(labels, intensity, properties=["label", "intensity_mean",
                                                                            "intensity_min", "intensity_max"])
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-12, err_msg=name)


@needs_cupy
def test_volumes_one_pixel_regions_empty_images_and_float_intensities():
    volume, _ = noise_labels((13, 17, 19), 7, 0.3)
    ids = with_ids(volume, sparse_ids(volume.max(), 2**33, 2**50, 8), np.uint64)
    intensity = np.random.default_rng(9).integers(0, 4000, volume.shape).astype(np.uint16)
    got = glccl.regionprops_table(cupy.asarray(ids), cupy.asarray(intensity), properties=TERMS_3D + INTENSITY[:4])
    same_columns(got, skimage_table(ids, intensity, TERMS_3D + INTENSITY[:4]))
    # Every element its own region (0 every seventh).
    own = np.random.default_rng(10).permutation(40 * 30).reshape(40, 30).astype(np.int64) + 1
    own.flat[::7] = 0
    same_columns(glccl.regionprops_table(cupy.asarray(own), properties=TERMS),
                 skimage_measure.regionprops_table(own, properties=TERMS))
    # No region.
    empty = glccl.regionprops_table(cupy.zeros((5, 6), cupy.int32), properties=["label", "area", "centroid"])
    want = skimage_measure.regionprops_table(np.zeros((5, 6), np.int32), properties=["label", "area", "centroid"])
    assert list(empty) == list(want) and all(len(column) == 0 for column in empty.values())
    # Floats: measured on the host after one copy, the same table.
    labels, _ = noise_labels((50, 60), 11)
    floats = np.random.default_rng(12).random(labels.shape).astype(np.float32)
    # (scikit-image's means of float32 samples are float32 sums: it is given
    # the same samples as float64, whose sums hold 1e-9.)
    same_columns(glccl.regionprops_table(cupy.asarray(labels), cupy.asarray(floats), properties=["label"] + INTENSITY),
                 skimage_measure.regionprops_table(labels, floats.astype(np.float64), properties=["label"] + INTENSITY),
                 glccl.regionprops_table(labels, floats, properties=["label"] + INTENSITY))
    # Crop properties from device labels; a Fortran-ordered array.
    crops = ["label", "image", "coords", "area_convex", "solidity", "image_intensity"]
    same_columns(glccl.regionprops_table(cupy.asfortranarray(cupy.asarray(labels)), cupy.asarray(floats),
                                         properties=crops),
                 skimage_measure.regionprops_table(labels, floats, properties=crops))


@needs_cupy
def test_regionprops_objects_and_label_with_properties_on_the_device():
    labels, _ = noise_labels((70, 50), 13)
    intensity = np.random.default_rng(14).integers(0, 255, labels.shape).astype(np.uint8)
    regions = glccl.skimage.regionprops(cupy.asarray(labels), cupy.asarray(intensity))
    want = skimage_measure.regionprops(labels, intensity)
    assert len(regions) == len(want)
    for got, region in zip(regions, want):
        assert got.label == region.label and got.bbox == region.bbox and got.area == region.area
        np.testing.assert_allclose(got.centroid, region.centroid, rtol=1e-12)
        np.testing.assert_allclose(got.intensity_mean, region.intensity_mean, rtol=1e-12)
        np.testing.assert_allclose(got.moments_hu, region.moments_hu, rtol=1e-9, atol=1e-12)
        assert np.array_equal(got.coords, region.coords)
    mask = np.random.default_rng(15).random((90, 120)) < 0.45
    got_labels, n, table = glccl.label(cupy.asarray(mask), properties=TERMS, intensity_image=cupy.asarray(
        mask.astype(np.uint8)))
    assert isinstance(got_labels, cupy.ndarray) and table.measured_by == "cuda"
    host_labels, host_n, host_table = glccl.label(mask, properties=TERMS, backend="cpu")
    assert n == host_n and np.array_equal(cupy.asnumpy(got_labels), host_labels)
    for name in host_table:
        assert np.array_equal(table[name], host_table[name], equal_nan=True), name


@needs_cupy
def test_negative_device_labels_and_boolean_ones_are_refused():
    with pytest.raises(ValueError, match="the smallest is -2"):
        glccl.regionprops_table(cupy.asarray(np.array([[0, 1], [-2, 3]], np.int32)))
    with pytest.raises(TypeError, match="boolean"):
        glccl.regionprops_table(cupy.ones((3, 3), bool))


def _same_result(got, want, name):
    """glccl.cupyx's result against scipy.ndimage's of the host copies."""
    if name in ("minimum_position", "maximum_position"):
        assert _positions(got) == _positions(want), name
    elif name == "extrema":
        for g, w in zip(got[:2], want[:2]):
            np.testing.assert_array_equal(host(g), w, err_msg=name)
        assert _positions(got[2]) == _positions(want[2]) and _positions(got[3]) == _positions(want[3]), name
    elif name == "center_of_mass":
        g = np.array([host(v) for v in got], dtype=float)
        np.testing.assert_allclose(g, np.array(want, dtype=float), rtol=1e-12, equal_nan=True, err_msg=name)
    else:
        np.testing.assert_allclose(host(got), want, rtol=1e-12, equal_nan=True, err_msg=name)


def _positions(value):
    if isinstance(value, tuple):
        return tuple(int(v) for v in value)
    return [tuple(int(v) for v in t) for t in value]


@needs_cupy
@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("input_dtype", [np.uint8, np.int16, np.uint32, np.float32])
def test_cupyx_measurements_are_scipys(dtype, input_dtype):
    # Distinct values: no ties, so every position is scipy's (its positions
    # of tied extrema follow an unstable sort): 8-bit samples on an image of
    # at most 256 elements.
    shape = (16, 16) if np.dtype(input_dtype).itemsize == 1 else (120, 90)
    labels, n = noise_labels(shape, 16)
    labels = labels.astype(dtype)
    rng = np.random.default_rng(17)
    values = rng.permutation(labels.size).reshape(labels.shape) % np.iinfo(np.int16).max
    image = values.astype(input_dtype)
    indexes = [np.arange(0, n + 3), [3, 0, 1, n + 7, 2], np.array([[1, 2], [3, 4]]), [5, 1, n + 2, 2]]
    for index in indexes:
        for name in NDIMAGE:
            if name == "center_of_mass" and np.ndim(index) > 1:
                continue  # cupyx's layout of centres for an index of several axes is not scipy's
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = getattr(ndi, name)(image, labels, index)
                got = getattr(glccl.cupyx, name)(cupy.asarray(image), cupy.asarray(labels), index)
                also = getattr(glccl.ndimage, name)(cupy.asarray(image), cupy.asarray(labels), cupy.asarray(index))
            if name in ("sum_labels", "sum", "mean", "variance", "standard_deviation", "minimum", "maximum"):
                assert isinstance(got, cupy.ndarray), name
            _same_result(got, want, name)
            _same_result(also, want, name)
    # One group: 0-dimensional CuPy arrays, as cupyx gives them.
    for index in (None, 2):
        for name in ("sum_labels", "mean", "variance", "maximum"):
            got = getattr(glccl.cupyx, name)(cupy.asarray(image), cupy.asarray(labels), index)
            assert isinstance(got, cupy.ndarray) and got.ndim == 0, name
            np.testing.assert_allclose(float(got), getattr(ndi, name)(image, labels, index), rtol=1e-12)
        com = glccl.cupyx.center_of_mass(cupy.asarray(image), cupy.asarray(labels), index)
        assert isinstance(com, tuple) and all(isinstance(v, cupy.ndarray) for v in com)
        np.testing.assert_allclose([float(v) for v in com], ndi.center_of_mass(image, labels, index), rtol=1e-12)


@needs_cupy
def test_cupyx_result_types_are_cupyxs():
    labels, n = noise_labels((40, 50), 18)
    image = np.random.default_rng(19).integers(0, 1000, labels.shape).astype(np.int32)
    d_image, d_labels, index = cupy.asarray(image), cupy.asarray(labels), cupy.arange(1, n + 1)
    for name in NDIMAGE:
        if not hasattr(cupyx_ndimage, name):
            continue
        got = getattr(glccl.cupyx, name)(d_image, d_labels, index)
        theirs = getattr(cupyx_ndimage, name)(d_image, d_labels, index)
        assert type(got) is type(theirs), name
        if isinstance(theirs, (list, tuple)) and theirs:
            assert type(got[0]) is type(theirs[0]), name
        if isinstance(theirs, cupy.ndarray):
            assert got.shape == theirs.shape and got.dtype == theirs.dtype, name


@needs_torch
def test_torch_labels_and_intensity_are_measured_on_their_gpu():
    labels, _ = noise_labels((60, 70), 20)
    intensity = np.random.default_rng(21).integers(0, 1000, labels.shape).astype(np.int32)
    got = glccl.regionprops_table(torch.from_numpy(labels.astype(np.int64)).cuda(),
                                  torch.from_numpy(intensity).cuda(), properties=TERMS + INTENSITY)
    same_columns(got, skimage_measure.regionprops_table(labels, intensity, properties=TERMS + INTENSITY))


def exact_sums(labels, values, listed, outputs):
    """What glccl::cuda::sumsByLabel writes, computed here in Python integers
    and fractions: outputs (name -> array of listed's length) filled for
    the labels of `listed`."""
    from fractions import Fraction
    shape = np.shape(labels)
    flat = np.asarray(labels).ravel()
    v = None if values is None else np.asarray(values).ravel()
    for i, key in enumerate(np.asarray(listed)):
        at = np.flatnonzero(flat == key)
        n = len(at)
        taken = [] if v is None else [int(x) for x in v[at]]
        total = sum(taken)
        row = {"counts": n, "sums": float(total),
               "centred": float(Fraction(n * sum(x * x for x in taken) - total * total, n)) if n else 0.0}
        if v is not None:
            low = at[np.argmin(v[at])] if n else 0
            high = at[np.argmax(v[at])] if n else 0
            row.update(minimums=int(v[low]) if n else 0, minimum_at=int(low),
                       maximums=int(v[high]) if n else 0, maximum_at=int(high))
            coordinates = np.unravel_index(at, shape)
            for axis in range(len(shape)):
                moment = sum(x * int(c) for x, c in zip(taken, coordinates[axis]))
                row[f"centre-{axis}"] = float(Fraction(moment, total)) if total else \
                    (np.nan if moment == 0 else np.copysign(np.inf, moment))
        for name, column in outputs.items():
            np.asarray(column)[i] = row[name]


def _sums_outputs(listed, ndim, cupy_module):
    names = {"counts": np.int64, "sums": np.float64, "centred": np.float64, "minimums": np.int64,
             "minimum_at": np.int64, "maximums": np.int64, "maximum_at": np.int64}
    names.update({f"centre-{axis}": np.float64 for axis in range(ndim)})
    return {name: cupy_module.zeros(len(listed), dtype) for name, dtype in names.items()}


@needs_cupy
def test_sums_by_label_are_exact_and_repeat():
    # Adversarial labels and values: negative labels, ids past 2**63, values
    # at the ends of 32-bit ranges (sums and moments past 64 bits), ties of
    # extrema (the first position wins), short lists (totals in shared
    # memory) and long ones (in global memory), 1 to 3 axes.
    rng = np.random.default_rng(40)
    every = (1 + 2 + 4 + 8 + 16)
    cases = []
    blobs, n = noise_labels((300, 257), 41, 0.6)
    cases.append((blobs.astype(np.int32) - 3, rng.integers(-2**31, 2**31, blobs.shape, dtype=np.int64)
                  .astype(np.int32), np.arange(-4, n)))
    cases.append((blobs.astype(np.uint16), np.full(blobs.shape, 2**32 - 1, np.uint32), np.array([0, 1, 2, 5, 9])))
    cases.append((np.where(blobs > 0, blobs.astype(np.uint64) + np.uint64(2**63), 0).astype(np.uint64),
                  rng.integers(0, 3, blobs.shape).astype(np.uint8),
                  np.array([0, 2**63 + 1, 2**63 + 2, 2**64 - 1], np.uint64)))
    volume, m = noise_labels((30, 31, 29), 42, 0.3)
    cases.append((volume.astype(np.int64), rng.integers(-2**15, 2**15, volume.shape).astype(np.int16),
                  np.arange(0, m + 1)))
    cases.append((rng.integers(-2, 3, 5000).astype(np.int8), rng.integers(0, 2, 5000).astype(bool),
                  np.array([-2, -1, 0, 1, 2, 7])))
    for labels, values, listed in cases:
        key = np.uint64 if labels.dtype == np.uint64 else np.int64
        listed = np.asarray(listed).astype(key)
        want = _sums_outputs(listed, labels.ndim, np)
        exact_sums(labels, values, listed, want)
        d_labels, d_values, d_listed = cupy.asarray(labels), cupy.asarray(values), cupy.asarray(listed)
        if values.dtype == bool:
            d_values = d_values.view(cupy.uint8)
        first = None
        for repeat in range(20):
            got = _sums_outputs(listed, labels.ndim, cupy)
            _glccl.device_sums_by_label(d_labels, d_values, d_listed, every, got, "test")
            got = {name: column.get() for name, column in got.items()}
            if first is None:
                first = got
                for name in want:
                    if want[name].dtype == np.int64:
                        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
                    else:
                        np.testing.assert_allclose(got[name], want[name], rtol=1e-12, atol=0, equal_nan=True,
                                                   err_msg=name)
            else:
                for name in first:  # every repeat bit for bit the first
                    assert first[name].tobytes() == got[name].tobytes(), (name, repeat)


# --- The Python side on a stand-in (runs everywhere) ---------------------------------------------------------------


class _StandIn(np.ndarray):
    """A numpy array taken for a device array."""

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (0, False), "version": 3}

    def get(self):
        return np.asarray(self).copy()


def _device(array):
    return np.asarray(array).view(_StandIn)


@pytest.fixture
def stand_in(monkeypatch):
    """A numpy-backed CuPy and the host's measure_regions as the GPU's
    gatherer: the calls of the latter counted, its arguments checked as the
    compiled entry checks them."""
    fake = types.ModuleType("cupy")
    fake.ndarray = _StandIn
    fake.asarray = lambda a, dtype=None: _device(np.asarray(a, dtype))
    fake.asanyarray = fake.asarray
    fake.asnumpy = lambda a: np.asarray(a).copy()
    fake.broadcast_arrays = lambda *a: [_device(x) for x in np.broadcast_arrays(*[np.asarray(y) for y in a])]
    fake.ascontiguousarray = lambda a: _device(np.ascontiguousarray(np.asarray(a)))
    fake.arange = lambda *a, **k: _device(np.arange(*a, **k))
    fake.ogrid = np.ogrid
    fake.stack = lambda a, axis=0: _device(np.stack([np.asarray(x) for x in a], axis=axis))
    fake.sqrt = lambda a: _device(np.sqrt(np.asarray(a)))
    fake.uint8 = np.uint8
    fake.zeros_like = lambda a: _device(np.zeros_like(np.asarray(a)))
    fake.minimum = lambda a, b: _device(np.minimum(np.asarray(a), b))
    fake.searchsorted = lambda a, v: _device(np.searchsorted(np.asarray(a), np.asarray(v)))
    fake.empty = lambda n, dtype=float: _device(np.empty(n, dtype))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(_measure, "on_device", lambda a: isinstance(a, _StandIn))
    monkeypatch.setattr(_measure, "_DEVICE_MEASURABLE", True)
    monkeypatch.setattr(glccl_ndimage, "_on_device", lambda i, l: isinstance(i, _StandIn) or isinstance(l, _StandIn))
    measure_regions = _glccl.measure_regions
    calls = []

    def gatherer(labels, intensity, properties, spacing=None, separator="-", background=False, where=""):
        assert isinstance(labels, _StandIn) and labels.ndim in (2, 3) and labels.dtype.kind in "iub"
        assert intensity is None or (isinstance(intensity, _StandIn) and intensity.dtype.kind in "iub"
                                     and intensity.shape == labels.shape)
        labels = np.ascontiguousarray(np.asarray(labels))
        if labels.dtype.kind == "i" and labels.size and labels.min() < 0:
            raise ValueError(f"{where}: labels must be 0 (background) or positive; the smallest is {labels.min()}")
        calls.append(list(properties))
        return measure_regions(labels, None if intensity is None else np.ascontiguousarray(np.asarray(intensity)),
                               properties, spacing, separator, None, background)

    monkeypatch.setattr(_glccl, "device_measure_regions", gatherer, raising=False)

    def sums_by_label(labels, values, listed, terms, outputs, where):
        # As glccl::cuda::sumsByLabel, in exact host arithmetic; the arguments
        # checked as the compiled entry checks them.
        assert isinstance(labels, _StandIn) and labels.dtype.kind in "iu" and 1 <= labels.ndim <= 3
        assert values is None or (isinstance(values, _StandIn) and values.dtype.kind in "iu"
                                  and values.dtype.itemsize <= 4 and values.shape == labels.shape)
        assert listed.dtype == (np.uint64 if labels.dtype == np.uint64 else np.int64)
        assert np.all(np.asarray(listed)[1:] > np.asarray(listed)[:-1])
        calls.append(["sums", terms])
        exact_sums(labels, values, listed, outputs)

    monkeypatch.setattr(_glccl, "device_sums_by_label", sums_by_label, raising=False)
    return calls


def test_stand_in_ndimage_semantics_are_scipys(stand_in):
    rng = np.random.default_rng(22)
    labels, n = noise_labels((40, 45), 23)
    image = (rng.permutation(labels.size).reshape(labels.shape) % 30000).astype(np.uint16)
    cases = [
        (labels, [0, 1, n, n + 4, -1, 3]),
        (labels.astype(np.int8) % 50, [0, 1, 49, 51, 3]),
        (np.where(labels > 0, labels.astype(np.uint64) + np.uint64(2**63), 0).astype(np.uint64),
         np.array([0, 2**63 + 1, 2**63 + 5, 2**64 - 1, 7], np.uint64)),
        (labels.astype(np.int64) * 10**12, [0, 10**12, 3 * 10**12, 5]),
        # Without 0: the labels asked measured alone.
        (labels, [1, n, n + 4, -1, 3]),
        (labels.astype(np.int8) % 50, [1, 49, 51, 3, 300]),
        (np.where(labels > 0, labels.astype(np.uint64) + np.uint64(2**63), 0).astype(np.uint64),
         np.array([2**63 + 1, 2**63 + 5, 2**64 - 1, 7], np.uint64)),
        (labels.astype(np.uint32), [n + 10]),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case_labels, index in cases:
            for name in NDIMAGE:
                want = getattr(ndi, name)(image, case_labels, index)
                _same_result(getattr(glccl.cupyx, name)(_device(image), _device(case_labels), index), want, name)
                _same_result(getattr(glccl.ndimage, name)(_device(image), _device(case_labels), index), want, name)
        # Integer inputs: one pass of the sums by label, nothing numbered.
        assert stand_in and all(call[0] == "sums" for call in stand_in)
        calls = len(stand_in)
        # Float inputs and float labels: the host's measurement, no gatherer.
        floats = image.astype(np.float64) / 7
        for name in NDIMAGE:
            _same_result(getattr(glccl.cupyx, name)(_device(floats), _device(labels), [1, 2, 0]),
                         getattr(ndi, name)(floats, labels, [1, 2, 0]), name)
            _same_result(getattr(glccl.cupyx, name)(_device(image), _device(labels.astype(float)), [1., 2.]),
                         getattr(ndi, name)(image, labels.astype(float), [1., 2.]), name)
        assert len(stand_in) == calls
        # Inputs of 1 and 4 dimensions, broadcast labels, one group.
        a1, l1 = rng.integers(0, 9, 50), rng.integers(0, 4, 50)
        np.testing.assert_allclose(glccl.cupyx.mean(_device(a1), _device(l1), [1, 2, 3]), ndi.mean(a1, l1, [1, 2, 3]))
        a4 = rng.permutation(360).reshape(3, 4, 5, 6)
        l4 = rng.integers(0, 4, (3, 4, 5, 6))
        assert _positions(glccl.cupyx.maximum_position(_device(a4), _device(l4), [1, 2, 3])) == \
            _positions(ndi.maximum_position(a4, l4, [1, 2, 3]))
        np.testing.assert_allclose(glccl.cupyx.sum(_device(image), _device(labels[:1]), [1, 2]),
                                   ndi.sum(image, labels[:1], [1, 2]))
        for index in (None, 3):
            np.testing.assert_allclose(float(glccl.cupyx.variance(_device(image), _device(labels), index)),
                                       ndi.variance(image, labels, index))
            assert _positions(glccl.cupyx.minimum_position(_device(image), _device(labels), index)) == \
                _positions(ndi.minimum_position(image, labels, index))
    with pytest.raises(TypeError, match="GPU memory"):
        glccl.cupyx.mean(image, labels, [1])


def test_stand_in_regionprops_are_scikit_images(stand_in):
    labels, _ = noise_labels((50, 60), 24)
    intensity = np.random.default_rng(25).integers(1, 99, labels.shape).astype(np.int32)
    ids = with_ids(labels, sparse_ids(labels.max(), 2**32, 2**60, 26), np.uint64)
    properties = TERMS + INTENSITY + ["image", "coords", "image_intensity"]
    same_columns(glccl.regionprops_table(_device(ids), _device(intensity), properties=properties),
                 skimage_table(ids, intensity, properties))
    calls = len(stand_in)
    assert calls == 1  # one measurement; the crops cut from one host copy
    floats = intensity / 3.0
    same_columns(glccl.regionprops_table(_device(labels), _device(floats), properties=["label"] + INTENSITY),
                 skimage_measure.regionprops_table(labels, floats, properties=["label"] + INTENSITY))
    assert len(stand_in) == calls  # floats: measured on the host
    volume, _ = noise_labels((9, 10, 11), 27, 0.3)
    same_columns(glccl.regionprops_table(_device(volume), properties=TERMS_3D),
                 skimage_measure.regionprops_table(volume, properties=TERMS_3D))
    empty = glccl.regionprops_table(_device(np.zeros((4, 5), np.uint32)), properties=["label", "area", "moments"])
    assert list(empty) == list(skimage_measure.regionprops_table(np.zeros((4, 5), np.uint32),
                                                                 properties=["label", "area", "moments"]))
    regions = glccl.skimage.regionprops(_device(labels), _device(intensity))
    want = skimage_measure.regionprops(labels, intensity)
    assert [r.label for r in regions] == [r.label for r in want]
    for got, region in zip(regions, want):
        assert got.bbox == region.bbox and np.array_equal(got.image, region.image)
        np.testing.assert_allclose(got.intensity_mean, region.intensity_mean, rtol=1e-12)
        np.testing.assert_allclose(got.eccentricity, region.eccentricity, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="smallest is -"):
        glccl.regionprops_table(_device(-labels))
    with pytest.raises(TypeError, match="boolean"):
        glccl.regionprops_table(_device(labels > 0))
