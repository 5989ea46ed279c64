"""Region measurements of Dask arrays: glccl.dask.regionprops_table and
dask_image.ndmeasure's measurements (glccl.dask.ndmeasure.mean, ...).

How. Each chunk, with a margin of 2 elements read from its neighbours,
gives the terms of the regions it holds (glccl._glccl.measure_terms:
counts, boxes, sums of coordinate powers, intensity sums and extrema,
counts of local configurations), counting only its own elements and the
2x2 (2x2x2) windows whose far corner it owns. The chunks' terms are merged
exactly (integer sums re-centred on the merged boxes, regions matched by
label) in a tree of eight at a time, the chunks taken in Z order so that
each merge joins neighbours, and the properties are computed from the
merged terms once. No task holds more than a chunk and its margin, or the
terms of the regions of one box of chunks; only the last merge holds every
region's.

Tasks are named glccl-measure-margin-*, glccl-measure-terms-*,
glccl-measure-merge-*, glccl-measure-finalize-*, glccl-measure-table-* and
glccl-ndmeasure-*."""

import operator
import warnings
from bisect import bisect_right
from itertools import product

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph

from . import _dask_tasks as tasks
from . import _measure
from ._keywords import refuse_unknown

_FAN_IN = 8


def _spans(offsets, index):
    """Along one axis, for chunk `index` (its start and stop at
    offsets[index], offsets[index + 1]): the (start, stop) of the chunk with
    its margin, and for each chunk that range meets, (that chunk's index,
    the slice of it read, where it goes in the range)."""
    start, stop = max(0, offsets[index] - tasks.MARGIN), min(offsets[-1], offsets[index + 1] + tasks.MARGIN)
    pieces = []
    other = bisect_right(offsets, start) - 1
    while other < len(offsets) - 1 and offsets[other] < stop:
        low, high = max(start, offsets[other]), min(stop, offsets[other + 1])
        pieces.append((other, slice(low - offsets[other], high - offsets[other]), slice(low - start, high - start)))
        other += 1
    return (start, stop), pieces


def _z_order(blocks):
    """The chunk indices in Z (Morton) order: runs of eight are boxes of
    neighbours."""
    bits = max(1, max((max(block) for block in blocks), default=0).bit_length())
    return sorted(blocks, key=lambda block: [(index >> bit) & 1 for bit in reversed(range(bits)) for index in block])


def _without_empty_chunks(array, spatial):
    """The array without chunks of length 0, its axes past `spatial` (a
    channel axis) in one chunk."""
    chunks = tuple(tuple(side for side in sides if side) for sides in array.chunks[:spatial])
    chunks += tuple((side,) for side in array.shape[spatial:])
    return array if chunks == array.chunks else array.rechunk(chunks)


class _Terms:
    """The tasks that gather the terms of `properties` chunk by chunk and
    merge them into one record: labels (or None: one region over
    everything) and intensity (or None) Dask arrays of one spatial shape and
    chunking, the intensity maybe with a channel axis last."""

    def __init__(self, labels, intensity, properties, spec, token, select=None):
        self.grid = labels if labels is not None else intensity
        self.labels, self.intensity = labels, intensity
        self.spatial = len(spec["shape"])
        self.spec = dict(spec, properties=list(properties))
        self.token = token
        self.chunks = self.grid.chunks[:self.spatial]
        self.offsets = [np.concatenate([[0], np.cumsum(sides)]).astype(int).tolist() for sides in self.chunks]
        self.dsk = {}
        self.select = None
        if select is not None:
            # The labels measured, in the graph once (not in every chunk's task).
            self.select = (self.name("measure-index"),)
            self.dsk[self.select] = select
        blocks = list(np.ndindex(*[len(sides) for sides in self.chunks]))
        level = [self._chunk(block) for block in _z_order(blocks)]
        depth = 0
        while len(level) > 1:
            depth += 1
            level = [self._merge(depth, index // _FAN_IN, level[index:index + _FAN_IN])
                     for index in range(0, len(level), _FAN_IN)]
        self.terms = level[0]

    def name(self, stage):
        return f"glccl-{stage}-{self.token}"

    def _pieces(self, array, block, spans):
        """The keys of the pieces of `array` that chunk `block` and its
        margin span (a piece of a neighbour a task of its own, so that only
        it travels), and where each goes."""
        channel = (0,) * (array.ndim - self.spatial)
        keys, places = [], []
        for combination in product(*spans):
            other = tuple(index for index, _, _ in combination)
            read = tuple(part for _, part, _ in combination)
            places.append(tuple(place for _, _, place in combination))
            source = (array.name,) + other + channel
            if other == block:
                keys.append(source)
                continue
            key = (self.name("measure-margin"), array.name) + block + other
            self.dsk[key] = (operator.getitem, source, read)
            keys.append(key)
        return keys, places

    def _chunk(self, block):
        box, spans = zip(*(_spans(self.offsets[axis], index) for axis, index in enumerate(block)))
        own = tuple((self.offsets[axis][index], self.offsets[axis][index + 1]) for axis, index in enumerate(block))
        label_keys = intensity_keys = places = None
        if self.labels is not None:
            label_keys, places = self._pieces(self.labels, block, spans)
        if self.intensity is not None:
            intensity_keys, places = self._pieces(self.intensity, block, spans)
        key = (self.name("measure-terms"),) + block
        self.dsk[key] = (tasks.chunk_terms, label_keys, intensity_keys, places, box, own, self.spec, self.select)
        return key

    def _merge(self, depth, index, parts):
        if len(parts) == 1:
            return parts[0]
        key = (self.name("measure-merge"), depth, index)
        self.dsk[key] = (tasks.merged_terms,) + tuple(parts)
        return key

    def graph(self, tops):
        """A HighLevelGraph of the arrays' layers, these tasks and the layers
        `tops` ({name: dsk}) on top of them."""
        inner = self.name("measure")
        layers, dependencies = {}, {}
        for array in (self.labels, self.intensity):
            if array is not None:
                layers.update(array.dask.layers)
                dependencies.update(array.dask.dependencies)
        layers[inner] = self.dsk
        dependencies[inner] = set().union(*(set(array.__dask_layers__()) for array in (self.labels, self.intensity)
                                            if array is not None))
        for name, dsk in tops.items():
            layers[name] = dsk
            dependencies[name] = {inner}
        return HighLevelGraph(layers, dependencies)


def _as_dask(array, what, where):
    """A Dask array of `array` (a numpy array in one chunk per
    dask.array.asarray's automatic chunks)."""
    if isinstance(array, da.Array):
        result = array
    else:
        try:
            result = da.asarray(array)
        except (TypeError, ValueError) as error:
            raise TypeError(f"{where}: {what} must be a Dask or numpy array, not {type(array).__name__} "
                            f"({error})") from None
    if any(np.isnan(side) for side in result.shape):
        raise ValueError(f"{where}: the {what}'s chunk sizes are unknown; call {what}.compute_chunk_sizes() first")
    return result


def _intensity_dtype(dtype, what, where):
    """TypeError for an intensity dtype the compiled module does not read."""
    if not (dtype.kind in "biu" or (dtype.kind == "f" and dtype.itemsize <= 8)):
        raise TypeError(f"{where}: {what} must hold booleans, integers or floats (up to float64), not {dtype}")


def regionprops_table(label_image, intensity_image=None, properties=("label", "bbox"), *, separator="-",
                      spacing=None, threads=None, **unknown):
    """Region properties of a Dask label image, as
    skimage.measure.regionprops_table of the whole array, lazily.

    Parameters
    ----------
    label_image : dask.array.Array (or numpy, made one)
        2-D (rows, columns) or 3-D (planes, rows, columns), of an integer
        dtype; 0 is background, the positive labels regions (a region may
        span any number of chunks; labels up to 2**64 - 1). Any chunking.
    intensity_image : dask.array.Array, optional
        Of the labels' shape, or that shape and a channel axis last;
        booleans, integers or floats. Rechunked to the labels' chunks.
    properties : sequence of str
        scikit-image's names (earlier names too) of the properties computed
        from per-region terms: glccl._glccl.term_properties() (label, bbox,
        area, centroid, moments*, inertia_tensor*, perimeter*, euler_number,
        intensity_*, centroid_weighted*, ...). Those computed from each
        region's crop (image, coords, solidity, feret_diameter_max,
        intensity_median, ...) raise ValueError: glccl.regionprops_table
        computes them on a numpy array.
    separator, spacing
        As scikit-image's regionprops_table (keyword only).
    threads : int, optional
        Threads of each chunk's measurement (None: the process's cores
        shared among the tasks a worker runs at once).

    Returns
    -------
    dask.delayed.Delayed
        Computes to regionprops_table's dict of numpy columns, one row per
        label in ascending order, equal to glccl.regionprops_table of the
        whole array.

    Raises
    ------
    TypeError or ValueError for an argument it does not take (now), and
    ValueError for a negative label (when computed, named at its place in
    the chunk).

    Cost
    ----
    One pass per chunk over it and its margin; merges in a tree of eight
    at a time, each holding the terms of the regions of its box of chunks.
    """
    where = "glccl.dask.regionprops_table()"
    refuse_unknown(unknown, where)
    labels = _as_dask(label_image, "label_image", where)
    if labels.ndim not in (2, 3):
        raise TypeError(f"{where}: label_image must have 2 dimensions (rows, columns) or 3 (planes, rows, columns), "
                        f"not {labels.ndim} (shape {labels.shape})")
    if labels.dtype == bool:
        raise TypeError(f"{where}: label_image is boolean, which is ambiguous: label it first (glccl.dask.label) to "
                        f"measure its connected components, or pass label_image.astype(np.uint8) to measure the True "
                        f"elements as one region")
    if labels.dtype.kind not in "iu":
        raise TypeError(f"{where}: label_image must hold integers (any width, signed or not), not {labels.dtype}")
    if labels.size == 0:
        raise ValueError(f"{where}: label_image is empty (its shape {labels.shape} has a zero)")
    intensity = None
    if intensity_image is not None:
        intensity = _as_dask(intensity_image, "intensity_image", where)
        if intensity.shape[:labels.ndim] != labels.shape or intensity.ndim not in (labels.ndim, labels.ndim + 1):
            raise ValueError(f"{where}: intensity_image must have the labels' shape {labels.shape}, or that shape "
                             f"and one channel axis last, not {intensity.shape}")
        _intensity_dtype(intensity.dtype, "intensity_image", where)
    if not isinstance(separator, str):
        raise TypeError(f"{where}: separator must be a string, not {type(separator).__name__}")
    spacing = _measure.checked_spacing(spacing, labels.ndim, where)
    threads = _measure.checked_threads(threads, where)
    asked = _measure.checked_properties(properties, labels.ndim, intensity is not None, where, spacing)
    crops = list(dict.fromkeys(name for name, canonical in asked if canonical not in _measure.term_properties()))
    if crops:
        raise ValueError(f"{where}: {', '.join(map(repr, crops))} {'is' if len(crops) == 1 else 'are'} computed "
                         f"from each region's crop, which glccl.dask does not gather; glccl.regionprops_table "
                         f"computes {'it' if len(crops) == 1 else 'them'} on a numpy array. glccl.dask measures "
                         f"{', '.join(sorted(_measure.term_properties()))}")
    canonicals = list(dict.fromkeys(canonical for _, canonical in asked)) or ["label"]
    if not any(canonical in _measure._NEEDS_INTENSITY for canonical in canonicals):
        intensity = None  # not read where no property needs it
    labels = _without_empty_chunks(labels, labels.ndim)
    if intensity is not None:
        intensity = _without_empty_chunks(intensity.rechunk(labels.chunks + intensity.shape[labels.ndim:]),
                                          labels.ndim)
    spec = {"background": False, "threads": threads, "where": where, "shape": labels.shape}
    token = tokenize(labels.name, None if intensity is None else intensity.name, asked, separator, spacing, threads)
    terms = _Terms(labels, intensity, canonicals, spec, token)
    columns, table = terms.name("measure-finalize"), terms.name("measure-table")
    terms.dsk[columns] = (tasks.finalized, terms.terms, canonicals, spacing)
    return Delayed(table, terms.graph({table: {table: (tasks.property_table, columns, asked, separator)}}))


# --- dask_image.ndmeasure's measurements --------------------------------------------------------------------------

def _ndmeasure_inputs(image, label_image, index, where):
    """The image and labels as Dask arrays of 2 or 3 dimensions and one
    chunking (a 1-D image as one row), whether it was 1-D, the spec's
    choice of labels, and the index: its shape, the unique values measured
    and where each of its values is among them."""
    image = _as_dask(image, "image", where)
    if image.ndim not in (1, 2, 3):
        raise ValueError(f"{where}: glccl measures 1-D, 2-D and 3-D images; this one is {image.ndim}-D")
    _intensity_dtype(image.dtype, "image", where)
    select = {}
    if label_image is None:
        labels, shape, inverse, count = None, (), np.zeros(1, np.intp), 1
    else:
        labels = _as_dask(label_image, "label_image", where)
        if labels.shape != image.shape:
            raise ValueError(f"{where}: the image and label_image arrays must be the same shape, not {image.shape} "
                             f"and {labels.shape}")
        if index is None:
            select, shape, inverse, count = {"positive": True}, (), np.zeros(1, np.intp), 1
        else:
            index = np.asarray(index)
            if index.ndim > 1:
                warnings.warn("Having index with dimensionality greater than 1 is undefined.", FutureWarning,
                              stacklevel=3)
            unique, inverse = np.unique(index, return_inverse=True)
            select, shape, count = {"select": unique}, index.shape, len(unique)
            if unique.dtype.kind not in "biuf":
                raise TypeError(f"{where}: index must hold integers (labels), not {unique.dtype}")
    if image.size == 0:
        raise ValueError(f"{where}: image is empty (its shape {image.shape} has a zero)")
    flat = image.ndim == 1
    if flat:
        image = image[None, :]
        labels = None if labels is None else labels[None, :]
    image = _without_empty_chunks(image, image.ndim)
    if labels is not None:
        labels = _without_empty_chunks(labels.rechunk(image.chunks), labels.ndim)
    return image, labels, flat, select, (shape, np.asarray(inverse).reshape(-1), count)


def _measured(where, image, label_image, index, properties, outputs):
    """Dask arrays of the measurements `outputs`: (column, by axis (one
    value per axis of the image, or one), dtype (None: the image's),
    default) of the regions of `index`, from one run of the terms of
    `properties`."""
    image, labels, flat, select, (shape, inverse, count) = _ndmeasure_inputs(image, label_image, index, where)
    spec = dict(positive=select.get("positive", False), background=False, threads=None, where=where,
                shape=image.shape)
    token = tokenize(image.name, None if labels is None else labels.name, properties, select.get("positive"),
                     select.get("select"), shape, inverse, outputs)
    needs_image = labels is None or any(name.startswith(("intensity", "centroid_weighted")) for name in properties)
    terms = _Terms(labels, image if needs_image else None, ["label"] + list(properties), spec, token,
                   select.get("select"))
    columns = terms.name("measure-finalize")
    terms.dsk[columns] = (tasks.finalized, terms.terms, ["label"] + list(properties), None)
    axes = list(range(1 if flat else 0, image.ndim))
    tops, results = {}, []
    for number, (column, by_axis, dtype, default) in enumerate(outputs):
        dtype = image.dtype if dtype is None else np.dtype(dtype)
        name = terms.name(f"ndmeasure-{number}")
        out_shape = shape + ((len(axes),) if by_axis else ())
        tops[name] = {(name,) + (0,) * len(out_shape): (tasks.per_index, columns, terms.terms, column, count, inverse,
                                                        shape, axes if by_axis else None, dtype.str, default)}
        results.append((name, out_shape, dtype))
    graph = terms.graph(tops)
    return [da.Array(graph, name, tuple((side,) for side in out_shape), dtype=dtype)
            for name, out_shape, dtype in results]


def area(image, label_image=None, index=None):
    """The number of elements of each region: dask_image.ndmeasure.area.

    Without label_image, the image's size (a 0-d Dask array); with it and
    no index, the elements of positive labels as one region; else one value
    per label of `index` (0 for a label absent). Returns a Dask array of
    int (index's shape)."""
    if label_image is None:
        return da.prod(np.array([side for side in np.shape(image)]))
    return _measured("glccl.dask.ndmeasure.area()", image, label_image, index, ["num_pixels"],
                     [("num_pixels", False, int, 0)])[0]


def center_of_mass(image, label_image=None, index=None):
    """The intensity-weighted centre of each region:
    dask_image.ndmeasure.center_of_mass. Returns a float64 Dask array of
    index's shape (transposed, as dask-image and scipy) plus the image's
    axes; NaN for a label absent."""
    if index is not None and label_image is not None:
        index = np.asarray(index).T
    return _measured("glccl.dask.ndmeasure.center_of_mass()", image, label_image, index, ["centroid_weighted"],
                     [("centroid_weighted", True, np.float64, np.nan)])[0]


def extrema(image, label_image=None, index=None):
    """(minimums, maximums, min_positions, max_positions) of each region:
    dask_image.ndmeasure.extrema. Values in the image's dtype, positions
    int (index's shape plus the image's axes, squeezed for a scalar index,
    rows of a flattened index past 1-D), the first in raster order where
    several elements hold the extremum; 0 for a label absent. Dask arrays."""
    properties = ["intensity_min", "intensity_max", "intensity_min_position", "intensity_max_position"]
    minimum_, maximum_, low, high = _measured(
        "glccl.dask.ndmeasure.extrema()", image, label_image, index, properties,
        [("intensity_min", False, None, 0), ("intensity_max", False, None, 0),
         ("intensity_min_position", True, int, 0), ("intensity_max_position", True, int, 0)])
    shaped = []
    for positions in (low, high):
        if positions.ndim == 1:
            positions = da.squeeze(positions)
        elif positions.ndim > 2:
            positions = positions.reshape((int(np.prod(positions.shape[:-1])), positions.shape[-1]))
        shaped.append(positions)
    return minimum_, maximum_, shaped[0], shaped[1]


def _one(where, column, dtype, default):
    def measurement(image, label_image=None, index=None):
        return _measured(where, image, label_image, index, [column], [(column, False, dtype, default)])[0]
    return measurement


maximum = _one("glccl.dask.ndmeasure.maximum()", "intensity_max", None, 0)
maximum.__doc__ = """The largest value of each region: dask_image.ndmeasure.maximum. A Dask
array of the image's dtype and index's shape (0-d without index); 0 for a
label absent."""
minimum = _one("glccl.dask.ndmeasure.minimum()", "intensity_min", None, 0)
minimum.__doc__ = """The smallest value of each region: dask_image.ndmeasure.minimum. A Dask
array of the image's dtype and index's shape (0-d without index); 0 for a
label absent."""
mean = _one("glccl.dask.ndmeasure.mean()", "intensity_mean", np.float64, np.nan)
mean.__doc__ = """The mean of each region: dask_image.ndmeasure.mean. A float64 Dask array
of index's shape (0-d without index); NaN for a label absent. From exact
sums (integer images) or double-double ones (floating-point images)."""
standard_deviation = _one("glccl.dask.ndmeasure.standard_deviation()", "intensity_std", np.float64, np.nan)
standard_deviation.__doc__ = """The standard deviation (numpy.std's) of each region:
dask_image.ndmeasure.standard_deviation. A float64 Dask array of index's
shape (0-d without index); NaN for a label absent."""
sum_labels = _one("glccl.dask.ndmeasure.sum_labels()", "intensity_sum", np.float64, 0.0)
sum_labels.__doc__ = """The sum of each region: dask_image.ndmeasure.sum_labels. A float64 Dask
array of index's shape (0-d without index); 0 for a label absent."""
variance = _one("glccl.dask.ndmeasure.variance()", "intensity_variance", np.float64, np.nan)
variance.__doc__ = """The variance (numpy.var's) of each region: dask_image.ndmeasure.variance.
A float64 Dask array of index's shape (0-d without index); NaN for a label
absent."""
for _name in ("maximum", "minimum", "mean", "standard_deviation", "sum_labels", "variance"):
    globals()[_name].__name__ = globals()[_name].__qualname__ = _name
del _name

NDMEASURE = ("area", "center_of_mass", "extrema", "maximum", "mean", "minimum", "standard_deviation", "sum_labels",
             "variance")
