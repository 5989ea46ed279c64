"""cupyx.scipy.ndimage's measurements, by glccl, on the GPU where the arrays
are: replace

    from cupyx.scipy.ndimage import sum_labels, mean, maximum, center_of_mass

with

    from glccl.cupyx import sum_labels, mean, maximum, center_of_mass

and the same call on CuPy arrays gives the same values, of the types
cupyx.scipy.ndimage gives: CuPy arrays (0-dimensional for one group),
positions as tuples of ints (a list of them for a sequence of labels),
centres of mass as a tuple of 0-dimensional CuPy arrays (a list of CuPy
coordinate arrays for a sequence of labels). The values are scipy.ndimage's
of the arrays copied to the host (labels absent: 0, NaN for a mean; a
region's extreme at its first element in raster order). glccl.ndimage's
measurement functions give the same for device arrays.

With labels and a sequence of labels as index, the labels asked are
measured in one pass over labels and input on their GPU (a run of equal
labels adds once, its label found by a binary search of the sorted index,
its totals in shared memory where the index is short): counts,
sums, sums of squares, extrema and coordinate sums as exact integers
(128-bit), whatever the order the GPU adds in; only the quotients are
floating point. An input of 8-byte integers goes through
glccl.regionprops_table's device path instead (the labels numbered, counted
and boxed on the GPU, an index of up to 65536 labels without 0 measured
alone). cupyx's own kernels scan the index once per element. Without
labels, or with one label as index, the one group is reduced by CuPy on
the device, as cupyx reduces it. input, labels and index may be CuPy
arrays, torch CUDA tensors (read through CuPy) or, for index, any sequence
of numbers.

What the GPU measures: labels of integers or booleans (negative ones too
where input has at most 4 bytes) and an input of integers or booleans. An
input of floats is measured on the host after one copy of input and labels
(its sums are the double-double sums of glccl.ndimage, which a GPU's
atomics would add in no fixed order), and so are labels of floats and
negative labels beside 8-byte input; the results are returned as above.
In a module where CUDA does not run, device arrays are a TypeError naming
what to pass. find_objects is glccl.find_objects (boxes found on the GPU,
scipy's list of slices)."""

import numpy as np

from . import _glccl, _measure
from . import ndimage as _ndimage
from ._helpers import find_objects

__all__ = ["find_objects", "sum_labels", "sum", "mean", "variance", "standard_deviation", "minimum", "maximum",
           "minimum_position", "maximum_position", "extrema", "center_of_mass"]


def _cupy(where):
    try:
        import cupy
    except ImportError:
        raise ImportError(f"{where}: measuring device arrays returns CuPy arrays, and CuPy cannot be imported "
                          f"here") from None
    return cupy


def _checked(where, *arrays):
    """The arrays (None skipped) as CuPy arrays, or TypeError for a host
    array or where CUDA does not run."""
    for array in arrays:
        if array is not None and not _measure.on_device(array):
            raise TypeError(f"{where}: takes arrays in GPU memory (cupy.ndarray, torch CUDA tensors), not "
                            f"{type(array).__name__}; glccl.ndimage measures host arrays")
    if not _measure.device_measurable():
        for array in arrays:
            if array is not None:
                _measure.refuse_device(array, "input", where)
    cupy = _cupy(where)
    return [None if array is None else cupy.asarray(array) for array in arrays]


def _index(index, cupy):
    """index on the host: a number, or a numpy array of the labels asked."""
    if isinstance(index, cupy.ndarray):
        return index.get()
    if index is not None and not np.isscalar(index) and _measure.on_device(index):
        return _measure.to_host(index)
    return index


def _measured_on_gpu(input, labels):
    """Whether the GPU measures these (CuPy) arrays: integer or boolean
    input, integer or boolean labels none of which is negative."""
    if input.dtype.kind not in "biu" or labels.dtype.kind not in "biu":
        return False
    return labels.dtype.kind != "i" or labels.size == 0 or int(labels.min()) >= 0


def _refuse_complex(input, where):
    if input.dtype.kind == "c":
        raise TypeError(f"{where}: input of dtype {input.dtype} is not measured (complex)")


def _rows(measured, wanted):
    """(rows, present): rows[i] the row of `measured` (ascending labels)
    holding wanted[i], where present[i]."""
    measured = np.asarray(measured)
    wanted = np.asarray(wanted)
    # (Compared as uint64: numpy compares uint64 with a Python int as floats.)
    if measured.dtype == np.uint64 and (measured.size == 0 or measured.max() <= np.uint64(np.iinfo(np.int64).max)):
        measured = measured.astype(np.int64)
    if measured.dtype == np.uint64 and wanted.dtype.kind == "i":
        # Labels past 2**63: negative labels asked are absent.
        keep = wanted >= 0
        wanted = np.where(keep, wanted, 0).astype(np.uint64)
    elif measured.dtype == np.int64 and wanted.dtype == np.uint64:
        # Labels asked past 2**63 - 1 are absent.
        keep = wanted <= np.uint64(np.iinfo(np.int64).max)
        wanted = np.where(keep, wanted, 0).astype(np.int64)
    else:
        keep = np.ones(wanted.shape, bool)
    if len(measured) == 0:
        return np.zeros(wanted.shape, np.int64), np.zeros(wanted.shape, bool)
    rows = np.minimum(np.searchsorted(measured, wanted), len(measured) - 1)
    present = keep & (measured[rows] == wanted)
    return rows, present


# An index of at most this many labels (without 0) is measured alone: the
# other labels are set to 0 on the device first (one search of the sorted
# index per element), so that the regions measured and the totals read back
# are those asked, not every region of the labels.
_ALONE = 1 << 16


def _only_asked(labels, wanted, cupy):
    """labels with every label not in `wanted` (the integer values of the
    labels' dtype among them) set to 0; labels as they are where wanted holds
    floats."""
    asked = np.asarray(wanted)
    if asked.dtype.kind not in "biu":
        return labels
    top = np.iinfo(labels.dtype).max
    if asked.dtype.kind == "u":
        keep = (asked >= 1) & (asked <= np.uint64(top))
    else:
        keep = (asked.astype(np.int64) >= 1) & (asked.astype(np.int64) <= min(top, np.iinfo(np.int64).max))
    asked = np.unique(asked[keep].astype(labels.dtype))
    if asked.size == 0:
        return cupy.zeros_like(labels)
    table = cupy.asarray(asked)
    at = cupy.minimum(cupy.searchsorted(table, labels), asked.size - 1)
    return labels * (table[at] == labels)


def _grouped(input, labels, index, properties, where, cupy):
    """glccl.ndimage's _grouped on the GPU: (table, rows, present, shape) for
    a sequence `index` (on the host), the table measured of the labels on
    their GPU (of the labels asked alone, for a small index)."""
    index = np.asanyarray(index)
    if _ndimage._safely_castable_to_int(labels.dtype):
        wanted = np.asanyarray(index, np.int_).ravel()
    else:
        wanted = index.ravel()
    if labels.dtype == bool:
        labels = labels.view(cupy.uint8)
    shape = _ndimage._measured_shape(input)
    ids = cupy.ascontiguousarray(labels.reshape(shape))
    values = cupy.ascontiguousarray(input.reshape(shape))
    if values.dtype == bool:
        values = values.view(cupy.uint8)
    background = bool(np.any(wanted == 0))
    if not background and wanted.size <= _ALONE:
        ids = _only_asked(ids, wanted, cupy)
    table = _measure.device_measure_terms(ids, values, ["label"] + properties, None, background, where)
    rows, present = _rows(table["label"], wanted)
    return table, rows, present, index.shape


# Bits of what glccl::cuda::sumsByLabel gathers (glccl/cuda_labeler.hpp).
_COUNT, _SUM, _SQUARES, _EXTREMA, _CENTRE = 1, 2, 4, 8, 16


def _summed_on_gpu(input, labels, index):
    """Whether one pass of sumsByLabel measures these (CuPy) arrays for a
    sequence `index`: integer or boolean labels, an integer or boolean input
    of at most 4 bytes, 1 to 3 axes, fewer than 2**32 elements."""
    return (index is not None and not np.isscalar(index) and labels.dtype.kind in "biu"
            and input.dtype.kind in "biu" and input.dtype.itemsize <= 4 and 1 <= input.ndim <= 3
            and input.size < 2 ** 32)


def _label_sums(input, labels, index, terms, where, cupy):
    """For a sequence `index` of labels: dict of CuPy arrays of index's shape
    (counts, sums, centred, minimums, minimum_at, maximums, maximum_at,
    centre-<axis> as `terms` asks), every label's totals gathered in one pass
    over labels and input on their GPU (glccl::cuda::sumsByLabel), exactly in
    integers; None where index holds labels that pass cannot take (negative
    labels asked of uint64 labels), which _grouped measures then."""
    if labels.dtype == bool:
        labels = labels.view(cupy.uint8)
    if input.dtype == bool:
        input = input.view(cupy.uint8)
    labels = cupy.ascontiguousarray(labels)
    values = cupy.ascontiguousarray(input)
    shape = np.shape(index)
    key = np.uint64 if labels.dtype == np.uint64 else np.int64
    # The index is on the host (_index): sorted and checked there, sent once.
    wanted = np.asanyarray(index)
    if wanted.dtype.kind not in "iu":
        wanted = wanted.astype(np.int_)
    wanted = wanted.ravel()
    if key == np.uint64 and wanted.dtype.kind == "i":
        if wanted.size and wanted.min() < 0:
            return None
    elif key == np.int64 and wanted.dtype == np.uint64:
        # Labels asked past 2**63 - 1 are in no label of these dtypes: absent.
        if wanted.size and wanted.max() > np.uint64(np.iinfo(np.int64).max):
            return None
    wanted = wanted.astype(key, copy=False)
    if wanted.size < 2 or bool(np.all(wanted[1:] > wanted[:-1])):
        listed, inverse = wanted, None
    else:
        listed, inverse = np.unique(wanted, return_inverse=True)
        inverse = cupy.asarray(inverse.ravel())
    listed = cupy.asarray(np.ascontiguousarray(listed))
    outputs = {}
    names = [("counts", np.int64)]
    if terms & _SUM:
        names.append(("sums", np.float64))
    if terms & _SQUARES:
        names.append(("centred", np.float64))
    if terms & _EXTREMA:
        names += [("minimums", np.int64), ("minimum_at", np.int64), ("maximums", np.int64), ("maximum_at", np.int64)]
    if terms & _CENTRE:
        names += [(f"centre-{axis}", np.float64) for axis in range(input.ndim)]
    for name, dtype in names:
        outputs[name] = cupy.empty(listed.size, dtype)
    _glccl.device_sums_by_label(labels, values if terms != _COUNT else None, listed, terms, outputs, where)
    if inverse is not None:
        outputs = {name: column[inverse] for name, column in outputs.items()}
    return {name: column.reshape(shape) for name, column in outputs.items()}


def _broadcast(input, labels, cupy):
    if labels is None:
        return input, None
    return cupy.broadcast_arrays(input, labels)


def _single_statistics(values, centered, cupy):
    if centered:
        centred = values - values.mean()
        return values.size, values.sum(), (centred * centred.conjugate()).sum()
    return values.size, values.sum()


def _statistics(input, labels, index, centered, where):
    """cupyx's statistics: (count, sum) or (count, sum, centred sum of
    squares), CuPy arrays (counts as numbers for one group)."""
    input, labels = _checked(where, input, labels)
    cupy = _cupy(where)
    _refuse_complex(input, where)
    if labels is None:
        return _single_statistics(input, centered, cupy)
    input, labels = _broadcast(input, labels, cupy)
    index = _index(index, cupy)
    if index is None:
        return _single_statistics(input[labels > 0], centered, cupy)
    if np.isscalar(index):
        return _single_statistics(input[labels == index], centered, cupy)
    if _summed_on_gpu(input, labels, index):
        sums = _label_sums(input, labels, index, _COUNT | _SUM | (_SQUARES if centered else 0), where, cupy)
        if sums is not None:
            if not centered:
                return sums["counts"], sums["sums"]
            return sums["counts"], sums["sums"], sums["centred"]
    if not _measured_on_gpu(input, labels):
        result = _ndimage._statistics(input.get(), labels.get(), index, centered, where)
        return tuple(cupy.asarray(part) for part in result)
    properties = ["num_pixels", "intensity_sum"] + (["intensity_variance"] if centered else [])
    table, rows, present, shape = _grouped(input, labels, index, properties, where, cupy)
    counts = _ndimage._column(table, "num_pixels", rows, present, shape, np.int64)
    sums = _ndimage._column(table, "intensity_sum", rows, present, shape)
    if not centered:
        return cupy.asarray(counts), cupy.asarray(sums)
    centred = _ndimage._column(table, "intensity_variance", rows, present, shape) * counts
    return cupy.asarray(counts), cupy.asarray(sums), cupy.asarray(centred)


def sum_labels(input, labels=None, index=None):
    """The sum of input over each labeled region, as
    cupyx.scipy.ndimage.sum_labels: a 0-dimensional CuPy array for one group
    (labels None, index None or one label), else a float64 CuPy array of
    index's shape (0 for a label absent)."""
    return _statistics(input, labels, index, False, "glccl.cupyx.sum_labels()")[1]


def sum(input, labels=None, index=None):
    """cupyx.scipy.ndimage.sum: sum_labels."""
    return _statistics(input, labels, index, False, "glccl.cupyx.sum()")[1]


def mean(input, labels=None, index=None):
    """The mean of input over each labeled region, as cupyx.scipy.ndimage.mean
    (NaN for a label absent)."""
    count, total = _statistics(input, labels, index, False, "glccl.cupyx.mean()")
    cupy = _cupy("glccl.cupyx.mean()")
    return total / cupy.asanyarray(count).astype(np.float64)


def variance(input, labels=None, index=None):
    """The population variance of input over each labeled region, as
    cupyx.scipy.ndimage.variance (NaN for a label absent)."""
    count, _, centred = _statistics(input, labels, index, True, "glccl.cupyx.variance()")
    cupy = _cupy("glccl.cupyx.variance()")
    return centred / cupy.asanyarray(count).astype(np.float64)


def standard_deviation(input, labels=None, index=None):
    """The population standard deviation of input over each labeled region,
    as cupyx.scipy.ndimage.standard_deviation."""
    cupy = _cupy("glccl.cupyx.standard_deviation()")
    return cupy.sqrt(variance(input, labels, index))


def _select(input, labels, index, wanted, where):
    """glccl.ndimage's _select on the GPU: per wanted item ("min",
    "min_position", "max", "max_position"), a 0-dimensional CuPy array (one
    group) or a CuPy array over index; positions are flat indices."""
    input, labels = _checked(where, input, labels)
    cupy = _cupy(where)
    _refuse_complex(input, where)
    input, labels = _broadcast(input, labels, cupy)
    index = _index(index, cupy)
    if labels is None or index is None or np.isscalar(index):
        return _ndimage._select_one_group(cupy, input, labels, index, wanted)
    if _summed_on_gpu(input, labels, index):
        sums = _label_sums(input, labels, index, _COUNT | _EXTREMA, where, cupy)
        if sums is not None:
            names = {"min": "minimums", "min_position": "minimum_at", "max": "maximums",
                     "max_position": "maximum_at"}
            return [sums[names[item]] if item.endswith("position") else sums[names[item]].astype(input.dtype)
                    for item in wanted]
    if not _measured_on_gpu(input, labels):
        return [cupy.asarray(part) for part in _ndimage._select(input.get(), labels.get(), index, wanted, where)]
    names = {"min": "intensity_min_position", "max": "intensity_max_position"}
    properties = sorted({names[item[:3]] for item in wanted})
    table, rows, present, shape = _grouped(input, labels, index, properties, where, cupy)
    measured_shape = _ndimage._measured_shape(input)
    flat = {}
    for prefix, name in names.items():
        if name in properties:
            axes = [table[f"{name}-{axis}"] for axis in range(len(measured_shape))]
            at = np.ravel_multi_index([np.asarray(a, np.int64) for a in axes], measured_shape) if len(axes[0]) \
                else np.zeros(0, np.int64)
            flat[prefix] = _ndimage._column({"at": at}, "at", rows, present, shape, np.int64)
    absent = cupy.asarray(~present.reshape(shape))
    result = []
    for item in wanted:
        at = flat[item[:3]]
        if item.endswith("position"):
            result.append(cupy.asarray(at))
        else:
            # The extremes read where they are, at the positions found.
            values = input.ravel()[cupy.asarray(at.ravel())].reshape(at.shape)
            values[absent] = 0
            result.append(values)
    return result


def _positions(flat, shape):
    """Flat indices as cupyx gives them: a tuple of ints (one group), or a
    list of tuples."""
    if hasattr(flat, "ndim") and flat.ndim == 0:
        return _ndimage._index_tuples(np.int64(int(flat)), shape)
    return _ndimage._index_tuples(np.asarray(flat.get() if hasattr(flat, "get") else flat), shape)


def minimum(input, labels=None, index=None):
    """The minimum of input over each labeled region, as
    cupyx.scipy.ndimage.minimum: in input's dtype, 0 for a label absent."""
    return _select(input, labels, index, ["min"], "glccl.cupyx.minimum()")[0]


def maximum(input, labels=None, index=None):
    """The maximum of input over each labeled region, as
    cupyx.scipy.ndimage.maximum: in input's dtype, 0 for a label absent."""
    return _select(input, labels, index, ["max"], "glccl.cupyx.maximum()")[0]


def minimum_position(input, labels=None, index=None):
    """Where input is smallest in each labeled region, as
    cupyx.scipy.ndimage.minimum_position: a tuple of ints (a list of them for
    a sequence of labels), the first in raster order."""
    at = _select(input, labels, index, ["min_position"], "glccl.cupyx.minimum_position()")[0]
    return _positions(at, tuple(input.shape))


def maximum_position(input, labels=None, index=None):
    """Where input is largest in each labeled region, as
    cupyx.scipy.ndimage.maximum_position (the first in raster order)."""
    at = _select(input, labels, index, ["max_position"], "glccl.cupyx.maximum_position()")[0]
    return _positions(at, tuple(input.shape))


def extrema(input, labels=None, index=None):
    """(minimums, maximums, min_positions, max_positions) of input over each
    labeled region, as cupyx.scipy.ndimage.extrema."""
    low, low_at, high, high_at = _select(input, labels, index, ["min", "min_position", "max", "max_position"],
                                         "glccl.cupyx.extrema()")
    shape = tuple(input.shape)
    return low, high, _positions(low_at, shape), _positions(high_at, shape)


def center_of_mass(input, labels=None, index=None):
    """The centre of mass of input over each labeled region, as
    cupyx.scipy.ndimage.center_of_mass: a tuple of 0-dimensional CuPy arrays
    (one group), or a list of CuPy arrays of the coordinates, one per label
    of index; NaN (or inf) where a region's values sum to 0."""
    where = "glccl.cupyx.center_of_mass()"
    input, labels = _checked(where, input, labels)
    cupy = _cupy(where)
    _refuse_complex(input, where)
    index = _index(index, cupy)
    if labels is None or index is None or np.isscalar(index) or not 2 <= input.ndim <= 3:
        normalizer = sum_labels(input, labels, index)
        grids = cupy.ogrid[[slice(0, side) for side in input.shape]]
        results = [sum_labels(input * grids[axis].astype(float), labels, index) / normalizer
                   for axis in range(input.ndim)]
        if results[0].ndim == 0:
            return tuple(results)
        return list(cupy.stack(results, axis=-1))
    input, labels = _broadcast(input, labels, cupy)
    if _summed_on_gpu(input, labels, index):
        sums = _label_sums(input, labels, index, _COUNT | _SUM | _CENTRE, where, cupy)
        if sums is not None:
            centres = cupy.stack([sums[f"centre-{axis}"].ravel() for axis in range(input.ndim)], axis=-1)
            return list(centres)
    if not _measured_on_gpu(input, labels):
        centres = _ndimage.center_of_mass(input.get(), labels.get(), index)
        return list(cupy.asarray(np.array(centres, dtype=np.float64).reshape(len(centres), input.ndim)))
    table, rows, present, shape = _grouped(input, labels, index, ["intensity_sum", "centroid_weighted"], where, cupy)
    totals = _ndimage._column(table, "intensity_sum", rows, present, shape)
    results = []
    for axis in range(input.ndim):
        centre = _ndimage._column(table, f"centroid_weighted-{axis}", rows, present, shape)
        # A region whose values sum to 0 (or a label absent): scipy's 0 / 0 or x / 0.
        zero = totals == 0
        if np.any(zero):
            grid = cupy.ogrid[[slice(0, side) for side in input.shape]][axis].astype(float)
            moment = sum_labels(input * grid, labels, np.asanyarray(index).ravel()[zero.ravel()])
            with np.errstate(invalid="ignore", divide="ignore"):
                centre[zero] = np.asarray(moment.get()).reshape(-1) / 0.0
        results.append(centre)
    return list(cupy.asarray(np.stack(results, axis=-1)))
