"""scipy.ndimage's label and measurements, by glccl: replace

    from scipy.ndimage import label, find_objects, sum_labels, mean, maximum_position, center_of_mass

with

    from glccl.ndimage import label, find_objects, sum_labels, mean, maximum_position, center_of_mass

and the same call gives the same result.

label gives the same labels (values, dtype and shape) and count, or fills
the same output array; nonzero elements are foreground. Arrays of any
dimensions of which at most three are longer than 1 (others raise
ValueError: glccl labels images and volumes), with any structure scipy
takes: 3 along every axis, symmetric about its centre.
generate_binary_structure's (the cross, the full square or cube, and in 3-D
the 18 neighbours of faces and edges) are glccl's connectivities, which every
backend labels; any other (a vertical line, one diagonal) is labeled by the
cpu backend.

The measurements (sum_labels, mean, variance, minimum, maximum, their
positions, extrema, center_of_mass) give scipy's values and types; a
sequence of labels is measured in one pass over the labels (below). Arrays
in GPU memory (CuPy, torch CUDA tensors) are measured on their GPU by
glccl.cupyx, with its results (cupyx.scipy.ndimage's types), and
find_objects finds their boxes there."""

import numpy as np

from . import _glccl, _measure
from ._arrays import label_nd
from . import _helpers
from ._helpers import find_objects as _find_objects

__all__ = ["label", "find_objects", "sum_labels", "sum", "mean", "variance", "standard_deviation", "minimum",
           "maximum", "minimum_position", "maximum_position", "extrema", "center_of_mass"]


def find_objects(input, max_label=0):
    """Each label's bounding box as a tuple of slices, as
    scipy.ndimage.find_objects (glccl.find_objects, which takes labels of an
    integer dtype, 0 and more, with scipy's rules besides those): bool
    labels are 0 and 1, negative ones background."""
    if _helpers._on_device(input):
        return _find_objects(input, max_label)
    input = np.asarray(input)
    if input.dtype == bool:
        input = input.view(np.uint8)
    try:
        return _find_objects(input, max_label)
    except ValueError:
        # Refused by the pass over the labels for a negative one (labels
        # without any cost no pass more).
        if input.dtype.kind != "i" or not input.size or input.min() >= 0:
            raise
        return _find_objects(np.where(input < 0, 0, input), max_label)


def _labelable(input):
    """input as scipy's label reads it, or TypeError where scipy has no
    loop for its dtype: bool, integers, float32 and float64 are labeled
    (nonzero is foreground), one-byte strings as their bytes; float16,
    longdouble, strings, datetimes, objects and the rest are refused. Either
    byte order: scipy refuses big-endian arrays (ValueError), glccl labels
    their values."""
    dtype = input.dtype
    if dtype.kind == "S" and dtype.itemsize == 1:
        return input.view(np.uint8)
    if dtype.kind in "biu" or (dtype.kind == "f" and dtype.itemsize in (4, 8)):
        return input
    raise TypeError(f"glccl.ndimage.label(): No matching signature found for input of dtype {dtype.str} "
                    f"({dtype}): scipy.ndimage.label takes bool, integer, float32 and float64 arrays")


def label(input, structure=None, output=None):
    """Label features in an array, as scipy.ndimage.label.

    Parameters
    ----------
    input : array_like
        Array of any dimensions, at most three of them longer than 1;
        nonzero elements are features.
    structure : array_like, optional
        The neighbourhood, 3 along every axis and symmetric about its centre
        (AssertionError otherwise, as scipy): nonzero where the neighbour at
        that offset joins. The cross by default
        (generate_binary_structure(input.ndim, 1)).
    output : ndarray or dtype, optional
        An array of input's shape to fill (then only the count is returned),
        or the dtype of the labels (int32 by default, intp for 2**31 - 2
        elements or more). Its labels are numbered in raster order of the
        input whatever the array's memory order: scipy numbers a Fortran-
        ordered or reversed output in the order it walks that memory (the
        same features, other numbers).

    Returns
    -------
    (label, num_features), or num_features when output is an array.
    """
    input = np.asarray(input)
    if np.iscomplexobj(input):
        raise TypeError("glccl.ndimage.label(): Complex type not supported")
    if structure is None:
        structure = np.indices((3,) * input.ndim)
        structure = (np.abs(structure - 1).sum(axis=0) <= 1) if input.ndim else np.array(True)
    structure = np.asarray(structure, dtype=bool)
    if structure.ndim != input.ndim:
        raise RuntimeError("structure and input must have equal rank")
    for side in structure.shape:
        if side != 3:
            raise ValueError("structure dimensions must be equal to 3")
    need_64bits = input.size >= (2**31 - 2)
    if isinstance(output, np.ndarray):
        if output.shape != input.shape:
            raise ValueError("output shape not correct")
        caller_provided_output = True
    else:
        caller_provided_output = False
        output = np.empty(input.shape, np.intp if need_64bits else np.int32) if output is None else \
            np.empty(input.shape, output)

    if input.ndim == 0 or input.size == 0:
        count = (1 if input != 0 else 0) if input.ndim == 0 else 0
        output[...] = count
        return count if caller_provided_output else (output, count)

    # scipy's own check and words: offsets that join only one way are no neighbourhood.
    if not np.array_equal(structure, structure[(slice(None, None, -1),) * structure.ndim]):
        raise AssertionError("glccl.ndimage.label(): Structuring element is not symmetric")
    input = _labelable(input)
    if input.dtype != bool:
        input = input != 0
    labels, count = label_nd(input, None, "binary", "glccl.ndimage.label()", structure=structure)
    # The labels must fit the output's type: integers up to their largest,
    # floats (complex ones by their parts) up to the last integer before a
    # gap; scipy takes a bool output as a byte and writes its labels as
    # True, refusing 255 features and more.
    kind = output.dtype.kind
    if kind in "iu":
        fits = count <= np.iinfo(output.dtype).max
    elif kind in "fc":
        fits = count <= 2 ** (np.finfo(output.dtype).nmant + 1)
    elif kind == "b":
        fits = count < 255
    else:
        raise TypeError(f"glccl.ndimage.label(): output of dtype {output.dtype} holds no labels")
    if not fits:
        raise RuntimeError("insufficient bit-depth in requested output type")
    output[...] = labels
    return count if caller_provided_output else (output, count)


# --- Measurements ---------------------------------------------------------------------------------------------------
#
# With integer (or boolean) labels and a sequence of labels as index, every
# label's statistics come from one pass over labels and input
# (glccl::sumsByLabel, threads over fixed stripes of the array): each label
# asked is found in the sorted index as its elements are read, nothing is
# numbered or sorted first, so negative labels and labels past the element
# count are measured as they are. Sums of integers are exact, sums of floats
# double-doubles added in a fixed order (the same bits on every thread
# count). Other labels (floats) and indices of fractional labels are measured
# by glccl's region measurement after numbering by numpy.unique, as scipy
# numbers them. Without labels, or with a single label as index, the one
# group is reduced by numpy, as scipy reduces it. Results, their types and
# the values of labels absent (0, or NaN for a mean) are scipy's. Where
# several elements hold a region's extreme, its position is the first in
# raster order (scipy's for a single group; for a sequence of labels scipy's
# sort leaves it unspecified), and a NaN is larger than every number, as in
# scipy's sort.


def _on_device(input, labels):
    """Whether input or labels is in GPU memory: measured by glccl.cupyx."""
    return any(array is not None and not isinstance(array, np.ndarray) and _measure.on_device(array)
               for array in (input, labels))


def _on_gpu(name, input, labels, index):
    """glccl.cupyx's function `name` of device arrays."""
    from . import cupyx
    return getattr(cupyx, name)(input, labels, index)


def _safely_castable_to_int(dtype):
    """scipy's test: labels it counts with bincount as they are."""
    size = np.dtype(int).itemsize
    return ((np.issubdtype(dtype, np.signedinteger) and dtype.itemsize <= size)
            or (np.issubdtype(dtype, np.unsignedinteger) and dtype.itemsize < size))


def _measurable(input, where):
    """input as the measurement reads it: bool, integers, float32 or float64
    (float16 as float32, which holds it exactly)."""
    kind, size = input.dtype.kind, input.dtype.itemsize
    if kind == "f" and size < 4:
        return input.astype(np.float32)
    if kind in "biu" or (kind == "f" and size in (4, 8)):
        return input
    raise TypeError(f"{where}: input of dtype {input.dtype} is not measured by glccl (bool, integers, float16, "
                    f"float32 and float64 are)")


def _measured_shape(input):
    """The shape input is measured in: its own in 2-D and 3-D, else rows of
    its last axis (which keeps every element's flat index)."""
    if 2 <= input.ndim <= 3:
        return input.shape
    if input.ndim == 0:
        return (1, 1)
    return (input.size // input.shape[-1] if input.shape[-1] else 0, input.shape[-1])


def _finite_index(index, where):
    """index as an array, ValueError where it holds a NaN or an infinity
    (scipy cannot take either as a label)."""
    index = np.asanyarray(index)
    if index.dtype.kind in "fc" and not bool(np.all(np.isfinite(index))):
        raise ValueError(f"{where}: index holds a NaN or an infinity, which names no label")
    return index


def _grouped(input, labels, index, properties, where):
    """For a sequence `index`: (table, rows, present, flat_shape), table the
    measurement of `properties` of every label of `labels` (2-D or 3-D,
    other arrays as rows of their last axis), rows[i] the table's row of
    index.flat[i], valid where present[i]."""
    index = _finite_index(index, where)
    castable = _safely_castable_to_int(labels.dtype)
    top = labels.max() if castable and labels.size else 0
    if not castable or labels.min() < 0 or top > labels.size:
        unique, ids = np.unique(labels, return_inverse=True)
        ids = ids.reshape(labels.shape)
        wanted = np.searchsorted(unique, index)
        wanted[wanted >= unique.size] = 0
        found = unique[wanted] == index
    else:
        ids = labels
        wanted = np.asanyarray(index, np.int_).copy()
        found = (wanted >= 0) & (wanted <= top)
    wanted, found = wanted.ravel(), found.ravel()
    shape = _measured_shape(input)
    table = _measure.measure_terms(np.ascontiguousarray(ids.reshape(shape)),
                                   np.ascontiguousarray(_measurable(input, where).reshape(shape)),
                                   ["label"] + properties, None, None, background=bool(np.any(wanted[found] == 0)))
    measured = table["label"].astype(np.int64)
    rows = np.minimum(np.searchsorted(measured, wanted), max(len(measured) - 1, 0))
    present = found & (len(measured) > 0)
    present[present] = measured[rows[present]] == wanted[present]
    return table, rows, present, index.shape


def _column(table, name, rows, present, shape, dtype=np.float64):
    values = np.zeros(len(rows), dtype)
    values[present] = table[name][rows[present]]
    return values.reshape(shape)


def _inputs(input, labels):
    input = np.asanyarray(input)
    if labels is None:
        return input, None
    input, labels = np.broadcast_arrays(input, np.asanyarray(labels))
    return input, labels


# Bits of what glccl::sumsByLabel gathers (glccl/label_sums.hpp).
_COUNT, _SUM, _VARIANCE, _EXTREMA, _CENTRE = 1, 2, 4, 8, 16


def _one_pass_shape(shape):
    """The shape the one pass reads: the array's own with 1 to 3 axes, else
    rows of its last axis (which keeps every element's flat index)."""
    if 1 <= len(shape) <= 3:
        return shape
    if not shape:
        return (1,)
    return (int(np.prod(shape[:-1])), shape[-1])


def _one_pass_array(array, shape):
    """array as the one pass reads it: C-ordered, native byte order,
    booleans as bytes, float16 as float32 (which holds it exactly)."""
    if array.dtype == bool:
        array = array.view(np.uint8)
    elif array.dtype.kind == "f" and array.dtype.itemsize < 4:
        array = array.astype(np.float32)
    elif not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    return np.ascontiguousarray(array).reshape(shape)


def _index_keys(index, signed):
    """The labels index names, as the one pass takes them: (keys, asked,
    shape), keys int64 (signed labels) or uint64 (unsigned), asked a mask of
    index.flat of the labels such labels can hold (None: all); None where
    index (finite: _finite_index's) holds fractional numbers (scipy
    truncates them or not by the labels' values) or no numbers at all."""
    wanted = np.asanyarray(index)
    shape = wanted.shape
    flat = wanted.ravel()
    if flat.dtype == bool:
        flat = flat.astype(np.int64)
    elif flat.dtype.kind == "f":
        if flat.size and not np.all(flat == np.trunc(flat)):
            return None
        low, high = (float(flat.min()), float(flat.max())) if flat.size else (0.0, 0.0)
        if low >= 0 and high < 2.0 ** 64:
            flat = flat.astype(np.uint64 if high >= 2.0 ** 63 else np.int64)
        elif high < 2.0 ** 63:
            flat = flat.astype(np.int64)
        else:
            return None
    elif flat.dtype.kind not in "iu":
        return None
    asked = None
    if signed and flat.dtype == np.uint64:
        asked = flat <= np.uint64(np.iinfo(np.int64).max)
    elif not signed and flat.dtype.kind == "i":
        asked = flat >= 0
    if asked is not None and bool(asked.all()):
        asked = None
    keys = flat if asked is None else flat[asked]
    return keys.astype(np.int64 if signed else np.uint64, copy=False), asked, shape


# Where an index names no label the pass can hold (a negative label of
# unsigned labels): what scipy gives for a label absent.
_ABSENT = {"counts": 0, "sums": 0.0, "variances": np.nan, "minimum_at": 0, "maximum_at": 0}


def _label_sums(input, labels, index, terms, where):
    """For arrays input and labels of one shape and a sequence `index`: a
    dict of arrays of index's shape (counts, sums, variances, minimum_at,
    maximum_at, centre-<axis>, as `terms` asks) from one pass over labels
    and input (glccl::sumsByLabel); None where that pass does not measure
    them (labels empty or not integers or booleans, input not bool,
    integers or floats, an index of fractional labels)."""
    if labels.dtype.kind not in "biu" or labels.size == 0:
        return None  # empty labels: scipy's labels.min() refuses them
    kind, size = input.dtype.kind, input.dtype.itemsize
    if not (kind in "biu" or (kind == "f" and size in (2, 4, 8))):
        return None
    keys = _index_keys(_finite_index(index, where), labels.dtype.kind == "i")
    if keys is None:
        return None
    keys, asked, shape = keys
    if keys.size < 2 or bool(np.all(keys[1:] > keys[:-1])):
        listed, inverse = keys, None
    else:
        listed, inverse = np.unique(keys, return_inverse=True)
    measured = _one_pass_shape(labels.shape)
    columns = _glccl.host_sums_by_label(_one_pass_array(labels, measured),
                                        _one_pass_array(input, measured) if terms != _COUNT else None,
                                        np.ascontiguousarray(listed), terms, 0, where)
    result = {}
    for name, column in columns.items():
        if inverse is not None:
            column = column[inverse.ravel()]
        if asked is not None:
            full = np.full(asked.size, _ABSENT.get(name, np.nan), column.dtype)
            full[asked] = column
            column = full
        result[name] = column.reshape(shape)
    return result


def _one_label(index):
    """Whether index names one label: a number, or an array of none of its
    own axes (numpy's 0-d), which scipy's extrema and positions take as one."""
    return np.isscalar(index) or (isinstance(index, np.ndarray) and index.ndim == 0)


def _sums_by_label(input, labels, index, terms, where):
    """_label_sums of broadcast input and labels, for a sequence `index`;
    None where labels or index is None, index is one label, or the one pass
    does not measure these arrays."""
    if labels is None or index is None or _one_label(index):
        return None
    input, labels = _inputs(input, labels)
    return _label_sums(input, labels, index, terms, where)


def _statistics(input, labels, index, centered, where):
    """scipy's _stats: (count, sum) or (count, sum, centred sum of squares)."""
    def single_group(values):
        if centered:
            centred = values - values.mean()
            return values.size, values.sum(), (centred * centred.conjugate()).sum()
        return values.size, values.sum()
    input, labels = _inputs(input, labels)
    if labels is None:
        return single_group(input)
    if index is None:
        return single_group(input[labels > 0])
    if _one_label(index):
        return single_group(input[labels == index])
    if not centered:
        sums = _label_sums(input, labels, index, _COUNT | _SUM, where)
        if sums is not None:
            return sums["counts"], sums["sums"]
    properties = ["num_pixels", "intensity_sum"] + (["intensity_variance"] if centered else [])
    table, rows, present, shape = _grouped(input, labels, index, properties, where)
    counts = _column(table, "num_pixels", rows, present, shape, np.int64)
    sums = _column(table, "intensity_sum", rows, present, shape)
    if not centered:
        return counts, sums
    return counts, sums, _column(table, "intensity_variance", rows, present, shape) * counts


def sum_labels(input, labels=None, index=None):
    """The sum of input over each labeled region, as scipy.ndimage.sum_labels.

    labels: None (the whole array), or labels broadcastable to input's shape;
    index: None (every element of a label > 0 as one group), one label (a
    number), or a sequence of labels (an array of float64 sums, 0 for a label
    absent)."""
    if _on_device(input, labels):
        return _on_gpu("sum_labels", input, labels, index)
    return _statistics(input, labels, index, False, "glccl.ndimage.sum_labels()")[1]


def sum(input, labels=None, index=None):
    """scipy.ndimage.sum: sum_labels."""
    return sum_labels(input, labels, index)


def mean(input, labels=None, index=None):
    """The mean of input over each labeled region, as scipy.ndimage.mean
    (NaN for a label absent)."""
    if _on_device(input, labels):
        return _on_gpu("mean", input, labels, index)
    count, total = _statistics(input, labels, index, False, "glccl.ndimage.mean()")
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / np.asanyarray(count).astype(np.float64)


def variance(input, labels=None, index=None):
    """The population variance of input over each labeled region, as
    scipy.ndimage.variance (NaN for a label absent)."""
    if _on_device(input, labels):
        return _on_gpu("variance", input, labels, index)
    sums = _sums_by_label(input, labels, index, _COUNT | _VARIANCE, "glccl.ndimage.variance()")
    if sums is not None:
        return sums["variances"]
    count, _, centred = _statistics(input, labels, index, True, "glccl.ndimage.variance()")
    with np.errstate(invalid="ignore", divide="ignore"):
        return centred / np.asanyarray(count).astype(float)


def standard_deviation(input, labels=None, index=None):
    """The population standard deviation of input over each labeled region,
    as scipy.ndimage.standard_deviation."""
    if _on_device(input, labels):
        return _on_gpu("standard_deviation", input, labels, index)
    return np.sqrt(variance(input, labels, index))


def _select_one_group(xp, input, labels, index, wanted):
    """_select where the elements form one group (no labels, index None or
    one label), on numpy or CuPy arrays (xp): each wanted extreme, or the
    flat index of its first element in raster order."""
    positions = None
    if any(item.endswith("position") for item in wanted):
        positions = xp.arange(input.size).reshape(input.shape)
    if labels is not None:
        mask = labels > 0 if index is None else labels == index
        input = input[mask]
        positions = None if positions is None else positions[mask]
    result = []
    for item in wanted:
        extreme = input.min() if item.startswith("min") else input.max()
        result.append(positions[input == extreme][0] if item.endswith("position") else extreme)
    return result


def _select(input, labels, index, wanted, where):
    """scipy's _select for wanted, a list of "min", "min_position", "max",
    "max_position": per wanted item, one value (a single group) or an array
    over index (0 for a label absent); positions are flat indices."""
    input, labels = _inputs(input, labels)
    if labels is None or index is None or _one_label(index):
        return _select_one_group(np, input, labels, index, wanted)
    sums = _label_sums(input, labels, index, _COUNT | _EXTREMA, where)
    if sums is not None:
        present = sums["counts"] > 0
        result = []
        for item in wanted:
            at = sums["minimum_at" if item.startswith("min") else "maximum_at"]
            if item.endswith("position"):
                result.append(at)
            else:
                values = np.ravel(input)[at]
                values[~present] = 0
                result.append(values)
        return result
    names = {"min": "intensity_min_position", "max": "intensity_max_position"}
    properties = sorted({names[item[:3]] for item in wanted})
    table, rows, present, shape = _grouped(input, labels, index, properties, where)
    measured_shape = _measured_shape(input)
    flat = {}
    for prefix, name in names.items():
        if name in properties:
            axes = [table[f"{name}-{axis}"] for axis in range(len(measured_shape))]
            at = np.ravel_multi_index([np.asarray(a, np.int64) for a in axes], measured_shape) if len(axes[0]) \
                else np.zeros(0, np.int64)
            flat[prefix] = _column({"at": at}, "at", rows, present, shape, np.int64)
    result = []
    for item in wanted:
        at = flat[item[:3]]
        if item.endswith("position"):
            result.append(at)
        else:
            values = input.ravel()[at.ravel()].reshape(at.shape)
            values[~present.reshape(at.shape)] = 0
            result.append(values)
    return result


def _index_tuples(positions, shape):
    """Flat indices as scipy gives them: one tuple of numpy ints, or a list
    of them."""
    dims = np.array(shape)
    dim_prod = np.cumprod([1] + list(dims[:0:-1]))[::-1]
    if np.isscalar(positions):
        return tuple((positions // dim_prod) % dims)
    return [tuple(v) for v in (np.asarray(positions).reshape(-1, 1) // dim_prod) % dims]


def minimum(input, labels=None, index=None):
    """The minimum of input over each labeled region, as
    scipy.ndimage.minimum: in input's dtype, 0 for a label absent."""
    if _on_device(input, labels):
        return _on_gpu("minimum", input, labels, index)
    return _select(input, labels, index, ["min"], "glccl.ndimage.minimum()")[0]


def maximum(input, labels=None, index=None):
    """The maximum of input over each labeled region, as
    scipy.ndimage.maximum: in input's dtype, 0 for a label absent."""
    if _on_device(input, labels):
        return _on_gpu("maximum", input, labels, index)
    return _select(input, labels, index, ["max"], "glccl.ndimage.maximum()")[0]


def minimum_position(input, labels=None, index=None):
    """Where input is smallest in each labeled region, as
    scipy.ndimage.minimum_position: an index tuple (a list of them for a
    sequence of labels), the first in raster order."""
    if _on_device(input, labels):
        return _on_gpu("minimum_position", input, labels, index)
    shape = np.asarray(input).shape
    return _index_tuples(_select(input, labels, index, ["min_position"], "glccl.ndimage.minimum_position()")[0],
                         shape)


def maximum_position(input, labels=None, index=None):
    """Where input is largest in each labeled region, as
    scipy.ndimage.maximum_position (the first in raster order)."""
    if _on_device(input, labels):
        return _on_gpu("maximum_position", input, labels, index)
    shape = np.asarray(input).shape
    return _index_tuples(_select(input, labels, index, ["max_position"], "glccl.ndimage.maximum_position()")[0],
                         shape)


def extrema(input, labels=None, index=None):
    """(minimums, maximums, min_positions, max_positions) of input over each
    labeled region, as scipy.ndimage.extrema."""
    if _on_device(input, labels):
        return _on_gpu("extrema", input, labels, index)
    shape = np.asarray(input).shape
    low, low_at, high, high_at = _select(input, labels, index, ["min", "min_position", "max", "max_position"],
                                         "glccl.ndimage.extrema()")
    return low, high, _index_tuples(low_at, shape), _index_tuples(high_at, shape)


def center_of_mass(input, labels=None, index=None):
    """The centre of mass of input over each labeled region, as
    scipy.ndimage.center_of_mass: a tuple of coordinates (a list of them for
    a sequence of labels); NaN (or inf) where a region's values sum to 0."""
    if _on_device(input, labels):
        return _on_gpu("center_of_mass", input, labels, index)
    where = "glccl.ndimage.center_of_mass()"
    input = np.asarray(input)
    if labels is not None and index is not None and not _one_label(index):
        values, ids = _inputs(input, labels)
        sums = _label_sums(values, ids, index, _COUNT | _CENTRE, where) if 1 <= values.ndim <= 3 else None
        if sums is not None:
            results = [sums[f"centre-{axis}"] for axis in range(values.ndim)]
            if sums["counts"].ndim == 1:
                return list(zip(*results))
            return [tuple(v) for v in np.array(results).T]
    if labels is None or index is None or _one_label(index) or not 2 <= input.ndim <= 3:
        normalizer = sum_labels(input, labels, index)
        grids = np.ogrid[[slice(0, side) for side in input.shape]]
        with np.errstate(invalid="ignore", divide="ignore"):
            results = [sum_labels(input * grids[axis].astype(float), labels, index) / normalizer
                       for axis in range(input.ndim)]
        if np.isscalar(results[0]):
            return tuple(results)
        return [tuple(v) for v in np.array(results).T]
    input, labels = _inputs(input, labels)
    table, rows, present, shape = _grouped(input, labels, index, ["intensity_sum", "centroid_weighted"], where)
    totals = _column(table, "intensity_sum", rows, present, shape)
    results = []
    for axis in range(input.ndim):
        centre = _column(table, f"centroid_weighted-{axis}", rows, present, shape)
        # A region whose values sum to 0 (or a label absent): scipy's 0 / 0 or x / 0.
        zero = totals == 0
        if np.any(zero):
            grid = np.ogrid[[slice(0, side) for side in input.shape]][axis].astype(float)
            moment = sum_labels(input * grid, labels, np.asanyarray(index).ravel()[zero.ravel()])
            with np.errstate(invalid="ignore", divide="ignore"):
                centre[zero] = np.asarray(moment).reshape(-1) / 0.0
        results.append(centre)
    if len(shape) == 1:
        # Tuples of numpy.float64, as scipy's, zipped from the columns: the
        # same elements, made faster than tuples of a 2-D array's rows.
        return list(zip(*results))
    return [tuple(v) for v in np.array(results).T]
