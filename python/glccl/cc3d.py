"""cc3d's connected components, by glccl: replace

    import cc3d

with

    from glccl import cc3d

and connected_components, dust, largest_k and statistics give what cc3d's
documentation and code give on the same call: labels numbered in the order
cc3d scans the array's memory (raster order for C-ordered arrays, axis 0
first for Fortran-ordered ones), in the dtype cc3d picks (uint16, uint32 or
uint64 from its estimate of the label count, or out_dtype), in the array's
order. 2-D and 3-D arrays (1-D as one row), of either byte order.

The labels always hold every component: where cc3d's estimate of the label
count picks a dtype too small for the components found (its estimate for a
binary volume at 18-connectivity is an eighth of the voxels, where a
quarter can be components), the labels come in the next of uint32 and
uint64; an out_dtype too small for them is a ValueError.

periodic_boundary=True makes the array a torus: an element on a face
neighbours, by the connectivity's steps, the elements across that face on
the opposite one. glccl labels the array as it is, then joins the
components that such wrapped neighbours connect (a union-find over their
labels) and numbers the result again in memory order; it takes every
connectivity and criterion (cc3d takes 4, 8 and 6, without delta).

delta on float images joins neighbours whose values are equal or differ by
at most delta, the difference taken in the image's precision as cc3d takes
it: glccl labels the equal values, then joins the labels of neighbours
within delta in the same union-find (on the host, in numpy). float16 is
refused under delta, as cc3d refuses it.

Where cc3d's build and its documentation differ, glccl follows the
documentation: delta compares signed values by their difference (-1 and 1
differ by 2; cc3d's build compares the bits of signed arrays as unsigned
values, 255 and 1), and dust returns the image's own dtype when it removes
nothing (cc3d's build returns the unsigned view of a signed image then).
Floats are compared by value: NaN elements are never joined (NaN equals
nothing), -0.0 is background, float16 included (cc3d's build compares
float16 bits)."""

import itertools
import os

import numpy as np

from ._arrays import label_nd, segment_ids, smallest_roots
from . import _measure
from ._helpers import label_extents

__all__ = ["DimensionError", "connected_components", "dust", "largest_k", "statistics"]


class DimensionError(Exception):
    """The array has the wrong number of dimensions."""


_WHERE = "glccl.cc3d.connected_components()"


def _even_ceil(n):
    # cc3d's even_ceil doubles an odd side; its dtype estimate uses it.
    return n << 1 if n & 1 else n


def _rows(data):
    """data's elements in memory order, as rows along the axis cc3d calls x
    (the last axis of a C-ordered array, the first of a Fortran-ordered one)."""
    memory = data.T if (data.flags.f_contiguous and not data.flags.c_contiguous) else data
    return memory.reshape(-1, memory.shape[-1])


def _estimated_labels(data):
    """cc3d's estimate of the provisional labels: in each row, the elements
    that are nonzero and differ from the one before."""
    rows = _rows(data)
    starts = int(np.count_nonzero(rows[:, 0] != 0))
    changes = np.count_nonzero((rows[:, 1:] != rows[:, :-1]) & (rows[:, 1:] != 0))
    return starts + int(changes)


def _hops(connectivity, dims):
    """cc3d's connectivity as scipy's hops: 6 faces (1), 18 and edges (2),
    26 and corners (3); a 2-D (or 1-D) array is one slice, where 4 and 6
    join edges (1) and 8, 18 and 26 corners too (2)."""
    if dims == 3:
        return {6: 1, 18: 2, 26: 3}[int(connectivity)]
    return 1 if int(connectivity) in (4, 6) else 2


def _as_unsigned(array):
    if array.dtype.kind == "i":
        return array.view(np.dtype(f"u{array.dtype.itemsize}"))
    return array


def _smallest_unsigned(largest):
    """The smallest unsigned dtype that holds 0..largest."""
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        if largest <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    raise OverflowError(largest)


def _float_ids(values):
    """Equal float values as equal ids, 0.0 (and -0.0) as 0, and each NaN
    an id of its own: NaN equals no value, not even NaN, so cc3d never joins
    a NaN element to a neighbour (and, being nonzero, labels it)."""
    nan = np.isnan(values)
    unique, inverse = np.unique(values[~nan], return_inverse=True)
    nans = int(np.count_nonzero(nan))
    dtype = _smallest_unsigned(max(len(unique) + nans, np.iinfo(np.uint32).max))
    ids = np.zeros(values.shape, dtype)
    ids[~nan] = inverse.astype(dtype) + dtype.type(1)
    ids[nan] = np.arange(len(unique) + 1, len(unique) + 1 + nans, dtype=dtype)
    ids[values == 0] = 0
    return ids


def _delta_samples(image, delta):
    """Samples of an integer array that glccl's delta criterion (nonzero
    neighbours join when their samples differ by at most delta; 0 the
    background) labels as cc3d documents delta on `image`: by the values'
    own differences, signed ones included (-1 and 1 differ by 2; cc3d's
    build compares the bits of signed arrays as unsigned, against its
    documentation). Values of no negative one are their own samples. Else
    each nonzero value v becomes v - low + 1 (low the smallest nonzero),
    which keeps every difference, in the smallest unsigned dtype that holds
    them; where they span every int64, the gaps between consecutive values
    wider than delta shrink to delta + 1 instead, which keeps whether any
    two differ by more than delta."""
    if image.dtype.kind != "i" or not np.any(image < 0):
        return _as_unsigned(image)
    foreground = image != 0
    low, high = int(image[foreground].min()), int(image[foreground].max())
    if high - low + 1 <= np.iinfo(np.uint64).max:
        dtype = _smallest_unsigned(high - low + 1)
        if image.dtype.itemsize < 8:
            shifted = image.astype(np.int64) - (low - 1)
        else:
            # v - (low - 1) modulo 2**64: exact, every result in 1..2**64 - 1.
            shifted = image.view(np.uint64) - np.uint64((low - 1) % 2**64)
        return np.where(foreground, shifted, 0).astype(dtype)
    unique, inverse = np.unique(image[foreground], return_inverse=True)
    gaps = np.diff(unique).view(np.uint64)  # exact modulo 2**64: consecutive values differ by less
    positions = np.concatenate(([0], np.cumsum(np.minimum(gaps, np.uint64(delta + 1)), dtype=np.uint64)))
    samples = np.zeros(image.shape, np.uint64)
    samples[foreground] = positions[inverse] + np.uint64(1)
    return samples


def _label_scanned(data, hops, criterion):
    """Labels of a C-contiguous array in raster order."""
    return label_nd(data, hops, criterion, _WHERE)


def _half_neighbourhood(hops, ndim):
    """One of each two opposite steps to the neighbours at most `hops`
    orthogonal steps away (the other is its negative): those whose first
    nonzero step is +1."""
    return [step for step in itertools.product((-1, 0, 1), repeat=ndim)
            if 0 < sum(map(abs, step)) <= hops and next(s for s in step if s) > 0]


def _inside_pairs(array, step):
    """(array at p, array at p + step) over every p whose neighbour p + step
    is in the array."""
    here = tuple(slice(max(0, -s), side - max(0, s)) for s, side in zip(step, array.shape))
    there = tuple(slice(max(0, s), side - max(0, -s)) for s, side in zip(step, array.shape))
    return array[here], array[there]


def _wrapped_pairs(array, step):
    """(array at p, array at p + step modulo the shape) over every p whose
    neighbour p + step lies past a face of the array: on the torus, p and
    its neighbour on the opposite face. One pair of slabs per face the step
    crosses (an element on an edge or corner comes once per face)."""
    for axis, s in enumerate(step):
        if s == 0:
            continue
        last = array.shape[axis] - 1
        here = np.take(array, [last if s > 0 else 0], axis=axis)
        there = np.take(array, [0 if s > 0 else last], axis=axis)
        across = [(other, -t) for other, t in enumerate(step) if other != axis and t != 0]
        if across:
            there = np.roll(there, [shift for _, shift in across], [other for other, _ in across])
        yield here, there


def _merged(labels, n, first, second):
    """labels with the components first[i] and second[i] joined, numbered
    1..m in the order of each joined set's lowest label, and m: each label
    goes to its set's lowest label (smallest_roots), and labels numbered in
    memory order by their first element keep that order through it."""
    parent = smallest_roots(np.concatenate(first).astype(np.int64), np.concatenate(second).astype(np.int64), n + 1)
    roots = parent == np.arange(n + 1)
    numbers = np.cumsum(roots) - 1
    return numbers[parent][labels], int(numbers[-1])


def _joined_across(labels, n, compared, joins, steps, wrapped):
    """labels (n of them) with the components joined that neighbours p and
    p + step connect, for every step in steps, where joins(compared at p,
    compared at p + step) holds: the neighbours inside the array, or
    (wrapped) those across its faces on the torus of periodic_boundary."""
    pairs = _wrapped_pairs if wrapped else lambda array, step: [_inside_pairs(array, step)]
    first, second = [], []
    for step in steps:
        for (here, there), (a, b) in zip(pairs(labels, step), pairs(compared, step)):
            join = joins(a, b) & (here != there)
            first.append(here[join])
            second.append(there[join])
    if sum(len(labels_here) for labels_here in first) == 0:
        return labels, n
    return _merged(labels, n, first, second)


def connected_components(data, max_labels=-1, connectivity=26, return_N=False, delta=0, out_dtype=None,
                         out_file=None, periodic_boundary=False, binary_image=False):
    """Connected components of a 2-D or 3-D image, as cc3d.connected_components.

    Images may be binary, multivalued (equal values connect, 0 is background)
    or continuously valued (delta: neighbours whose values differ by at most
    delta connect, 0 is background).

    data: a 1-D, 2-D or 3-D numpy (or PyTorch) array.
    max_labels: as cc3d's, a bound on the components (<= 0: none) that
      the dtype is chosen and out_dtype checked by.
    connectivity: 4 or 8 for 2-D images (6 is 4 there, 18 and 26 are 8); 6,
      18 or 26 for volumes.
    return_N: also return the number of components.
    delta: >= 0; 0 labels equal values. glccl's delta criterion
      (criterion "delta:D") on integer images; on float images (not
      float16) equal values and values at most delta apart join.
    out_dtype: None (cc3d's choice: uint16, uint32 or uint64 from its
      estimate, widened where the components found need more), or
      np.uint16, np.uint32, np.uint64 (ValueError when it cannot hold them).
    out_file: a file name or file object; the labels are written to a
      memory-mapped file there and returned as that np.memmap.
    periodic_boundary: the array is a torus: elements on opposite faces
      that the connectivity's steps reach across a face are neighbours.
    binary_image: treat the image as binary (nonzero is foreground); a bool
      image always is.

    Returns: labels, or (labels, N) with return_N.
    """
    is_torch = hasattr(data, "cpu") and not isinstance(data, np.ndarray)
    if is_torch:
        data = data.cpu().numpy()
    data = np.asarray(data)

    dims = data.ndim
    if dims not in (1, 2, 3):
        raise DimensionError("Only 1D, 2D, and 3D arrays supported. Got: " + str(dims))
    if dims == 2 and connectivity not in (4, 8, 6, 18, 26):
        raise ValueError("Only 4, 8, and 6, 18, 26 connectivities are supported for 2D images. Got: "
                         + str(connectivity))
    elif dims != 2 and connectivity not in (6, 18, 26):
        raise ValueError("Only 6, 18, and 26 connectivities are supported for 3D images. Got: " + str(connectivity))
    if data.size == 0:
        out_labels = np.zeros(shape=(0,), dtype=data.dtype if out_dtype is None else out_dtype)
        return (out_labels, 0) if return_N else out_labels

    order = "F" if data.flags.f_contiguous else "C"
    if not data.dtype.isnative:
        # The same values in this machine's byte order, in the same layout.
        data = data.astype(data.dtype.newbyteorder("="), order="K")
    while data.ndim < 3:
        data = data[np.newaxis, ...] if order == "C" else data[..., np.newaxis]
    if not data.flags.c_contiguous and not data.flags.f_contiguous:
        data = np.copy(data, order=order)
    if data.dtype == np.float16:
        if delta != 0:
            raise TypeError("float16 is not supported for continuous images (delta != 0).")
        # Compared by value, as every float (cc3d's build compares the bits,
        # so that -0.0 is foreground there and equal NaNs join): float32
        # holds every float16 exactly.
        data = data.astype(np.float32, order=order)

    sx, sy, sz = (data.shape[::-1] if order == "C" else data.shape)
    voxels = sx * sy * sz
    dtype = data.dtype
    if dtype.kind not in "biuf" or (dtype.kind == "f" and dtype.itemsize > 8):
        raise TypeError(f"Type {dtype} is not currently supported. Supported: bool, int8, int16, int32, int64, "
                        f"uint8, uint16, uint32, uint64, float16, float32, float64")
    binary_image = bool(binary_image) or dtype == bool
    epl = voxels if binary_image else _estimated_labels(data)
    estimate = min(epl, voxels)
    if max_labels > 0:
        # cc3d's bound from the caller: the dtype it picks and the check of
        # out_dtype take it (the labels come wider below where more are
        # found, or an out_dtype that cannot hold them is refused).
        estimate = min(estimate, int(max_labels))
    # cc3d takes a delta of the dtype's largest value for a binary image, in
    # its estimate too. For labeling, a signed image is binary only past
    # every difference of its values (below).
    estimate_binary = binary_image
    if dtype.kind == "f":
        delta = float(delta)
        if not delta >= 0:
            raise ValueError(f"{_WHERE}: delta must be >= 0 on a {dtype} image; got {delta}")
        binary_image = estimate_binary = binary_image or delta == np.finfo(dtype).max
    elif dtype != bool:
        delta = int(delta)
        estimate_binary = binary_image or delta == np.iinfo(dtype).max
    union_find_voxels = _even_ceil(data.shape[0]) * _even_ceil(data.shape[1]) * _even_ceil(data.shape[2])
    if estimate_binary:
        # cc3d's estimate: half the elements for 4 and 6, an eighth
        # otherwise (at 18 a quarter can be components: the count widens
        # the dtype below).
        estimate = min(estimate, union_find_voxels // (2 if connectivity in (4, 6) else 8) + 1)

    explicit_dtype = out_dtype is not None
    if out_dtype is not None:
        out_dtype = np.dtype(out_dtype)
        if out_dtype not in (np.uint16, np.uint32, np.uint64):
            raise ValueError(f"Explicitly defined out_dtype ({out_dtype}) must be one of: "
                             f"np.uint16, np.uint32, np.uint64")
        if np.iinfo(out_dtype).max < estimate:
            raise ValueError(f"Explicitly defined out_dtype ({out_dtype}) is too small "
                             f"to contain the estimated maximum number of labels ({estimate}).")
    elif estimate < np.iinfo(np.uint16).max:
        out_dtype = np.dtype(np.uint16)
    elif estimate < np.iinfo(np.uint32).max:
        out_dtype = np.dtype(np.uint32)
    else:
        out_dtype = np.dtype(np.uint64)

    # Scanned in memory order: a Fortran-ordered array is labeled as its
    # transpose, which is C-ordered.
    scanned = data if order == "C" else data.T
    image = scanned.reshape(scanned.shape[3 - dims:]) if dims < 3 else scanned
    hops = _hops(connectivity, dims)
    steps = _half_neighbourhood(hops, image.ndim)
    if delta != 0 and not binary_image and image.dtype.kind in "iu":
        info = np.iinfo(image.dtype)
        if not 0 <= delta <= info.max - info.min:
            raise ValueError(f"{_WHERE}: delta must be in 0..{info.max - info.min}, the differences of "
                             f"{image.dtype} values; got {delta}")
        foreground = image[image != 0]
        # Past the differences of the values there are: every nonzero
        # neighbour joins.
        binary_image = foreground.size == 0 or delta >= int(foreground.max()) - int(foreground.min())
    # compared and joins: what periodic_boundary's wrapped neighbours are
    # joined by, as the engines join neighbours inside.
    if binary_image:
        compared = image if image.dtype in (np.bool_, np.uint8) else image != 0
        labels, n = _label_scanned(compared, hops, "binary")
        joins = lambda a, b: (a != 0) & (b != 0)
    elif delta == 0:
        compared = _float_ids(image) if image.dtype.kind == "f" else segment_ids(_as_unsigned(image), 0)
        labels, n = _label_scanned(compared, hops, "segments")
        joins = lambda a, b: (a == b) & (a != 0)
    elif image.dtype.kind == "f":
        # Equal values on the engines; then the components of neighbours
        # within delta joined, the difference in the image's precision.
        labels, n = _label_scanned(_float_ids(image), hops, "segments")
        compared, within = image, image.dtype.type(delta)

        def joins(a, b):
            with np.errstate(over="ignore", invalid="ignore"):
                return (a != 0) & (b != 0) & ((a == b) | (np.abs(a - b) <= within))
        labels, n = _joined_across(labels, n, compared, joins, steps, wrapped=False)
    else:
        compared = _delta_samples(image, delta)
        if compared.dtype.itemsize == 8 and delta > np.iinfo(np.uint32).max:
            raise ValueError(f"{_WHERE}: delta {delta} on values that take 64 bits is past glccl's delta "
                             f"criterion, which takes deltas up to {np.iinfo(np.uint32).max} there")
        labels, n = _label_scanned(compared, hops, ("delta", delta))
        within = compared.dtype.type(delta)
        joins = lambda a, b: (a != 0) & (b != 0) & (np.maximum(a, b) - np.minimum(a, b) <= within)
    if periodic_boundary:
        labels, n = _joined_across(labels, n, compared, joins, steps, wrapped=True)

    # The count is known now: labels that cc3d's estimate would not hold
    # come in a wider dtype, or are refused in the one asked for.
    if n > np.iinfo(out_dtype).max:
        if explicit_dtype:
            raise ValueError(f"{_WHERE}: out_dtype {out_dtype} cannot hold the {n} components found (at most "
                             f"{np.iinfo(out_dtype).max}); use np.uint32 or np.uint64, or leave out_dtype out")
        out_dtype = np.dtype(np.uint32 if n <= np.iinfo(np.uint32).max else np.uint64)
    out_labels = labels.astype(out_dtype)
    if order == "F":
        out_labels = out_labels.T
    if out_file is not None:
        if isinstance(out_file, (str, os.PathLike)):
            with open(out_file, "wb") as f:
                os.ftruncate(f.fileno(), voxels * out_dtype.itemsize)
        mapped = np.memmap(out_file, order=order, dtype=out_dtype, shape=out_labels.shape)
        mapped[...] = out_labels
        out_labels = mapped
    if is_torch:
        import torch
        out_labels = torch.from_numpy(out_labels)
    return (out_labels, n) if return_N else out_labels


def _measured_extents(labels, top):
    """Per label 0..top of 2-D or 3-D labels, from one pass of glccl's
    region measurement (label 0 included): counts, and per axis the first
    and last index (where counts > 0) and the mean index of the labels
    present. A Fortran-ordered array is measured as its C-ordered
    transpose, without a copy."""
    transposed = labels.flags.f_contiguous and not labels.flags.c_contiguous
    measured = labels.T if transposed else labels
    if measured.dtype.kind not in "iu":
        measured = measured.astype(np.intp)
    elif not measured.dtype.isnative:
        measured = measured.astype(measured.dtype.newbyteorder("="))
    table = _measure.measure_terms(np.ascontiguousarray(measured), None, ["label", "num_pixels", "bbox", "centroid"],
                                   None, None, background=True)
    rows = table["label"].astype(np.intp)
    counts = np.zeros(top + 1, np.int64)
    counts[rows] = table["num_pixels"]
    ndim = labels.ndim
    lows, highs, means = [], [], []
    for axis in range(ndim):
        column = ndim - 1 - axis if transposed else axis
        low, high = np.zeros(top + 1, np.int64), np.zeros(top + 1, np.int64)
        low[rows] = table[f"bbox-{column}"]
        high[rows] = table[f"bbox-{ndim + column}"] - 1
        lows.append(low)
        highs.append(high)
        means.append(np.asarray(table[f"centroid-{column}"], dtype=np.float64))
    return counts, lows, highs, means


def statistics(out_labels, no_slice_conversion=False):
    """Per label 0..N (N the largest label), as cc3d.statistics: a dict of
    voxel_counts (uint32, N+1), bounding_boxes (a list of tuples of slices
    along axes 0, 1 (and 2), None for an absent label; with
    no_slice_conversion an (N+1, 4 or 6) array of min0, max0, min1, max1
    (min2, max2) in uint16, or uint32 where a side exceeds 65535) and
    centroids (float64, (N+1, 2 or 3), NaN for an absent label). Labels must
    be >= 0 and at most the number of elements."""
    out_labels = np.asarray(out_labels)
    while out_labels.ndim < 2:
        out_labels = out_labels[..., np.newaxis]
    if out_labels.dtype == bool:
        out_labels = out_labels.view(np.uint8)
    if out_labels.dtype.kind not in "iu":
        raise TypeError(f"glccl.cc3d.statistics(): out_labels must hold integers (or booleans), as cc3d's labels do, "
                        f"not {out_labels.dtype}")
    voxels = out_labels.size
    if voxels == 0:
        return {"voxel_counts": None, "bounding_boxes": None, "centroids": None}
    top = int(np.max(out_labels))
    if top > voxels:
        raise ValueError("Statistics can only be computed on volumes containing labels with values lower than "
                         f"the number of voxels. Max: {top}")
    if out_labels.dtype.kind == "i":
        low = int(np.min(out_labels))
        if low < 0:
            raise ValueError(f"Statistics can only be computed on volumes containing labels with values >= 0. "
                             f"Min: {low}")
    box_dtype = np.uint32 if any(side > np.iinfo(np.uint16).max for side in out_labels.shape) else np.uint16
    boxes = np.zeros((top + 1, 2 * out_labels.ndim), dtype=box_dtype)
    centroids = np.full((top + 1, out_labels.ndim), np.nan)
    if out_labels.ndim in (2, 3):
        counts, lows, highs, means = _measured_extents(out_labels, top)
        present = counts > 0
    else:
        counts, lows, highs = label_extents(out_labels, top)
        present = counts > 0
        flat = out_labels.ravel().astype(np.intp, copy=False)
        means = []
        for coordinate in np.indices(out_labels.shape, sparse=True):
            sums = np.bincount(flat, weights=np.broadcast_to(coordinate, out_labels.shape).ravel(), minlength=top + 1)
            means.append(sums[present] / counts[present])
    for axis in range(out_labels.ndim):
        boxes[:, 2 * axis] = np.where(present, lows[axis], np.iinfo(box_dtype).max)
        boxes[:, 2 * axis + 1] = np.where(present, highs[axis], 0)
        centroids[present, axis] = means[axis]
    output = {"voxel_counts": counts.astype(np.uint32), "bounding_boxes": boxes, "centroids": centroids}
    if no_slice_conversion:
        return output
    slices = []
    for row in boxes:
        starts, ends = row[0::2], row[1::2]
        if all(int(start) < voxels for start in starts):
            slices.append(tuple(slice(int(start), int(end) + 1) for start, end in zip(starts, ends)))
        else:
            slices.append(None)
    output["bounding_boxes"] = slices
    return output


def dust(img, threshold, connectivity=26, in_place=False, binary_image=False, precomputed_ccl=False,
         invert=False, return_N=False):
    """The image with its connected components smaller than threshold set to
    0, as cc3d.dust.

    threshold: an int (components of fewer voxels go) or a (lower, upper)
      pair (components whose size is outside [lower, upper) go).
    connectivity, binary_image: as connected_components.
    in_place: modify img itself.
    precomputed_ccl: img already is a labeling; no labeling pass.
    invert: remove the other components instead.
    return_N: also return the number of components left.
    """
    original_dtype = img.dtype
    img = _as_unsigned(img)
    if not in_place:
        img = np.copy(img)
    if precomputed_ccl:
        cc_labels, n = img, int(np.max(img))
    else:
        cc_labels, n = connected_components(img, connectivity=connectivity, return_N=True,
                                            binary_image=bool(binary_image))
    sizes = statistics(cc_labels, no_slice_conversion=True)["voxel_counts"]
    everything = np.arange(1, n + 1)
    if isinstance(threshold, (tuple, list)):
        goes = everything[~((threshold[0] <= sizes[1:n + 1]) & (sizes[1:n + 1] < threshold[1]))]
    else:
        goes = everything[sizes[1:n + 1] < threshold]
    left = len(goes) if invert else n - len(goes)
    if len(goes) == 0:
        if invert:
            img = np.zeros(img.shape, dtype=img.dtype, order="F")
        # In the image's own dtype, as cc3d documents (its build returns the
        # unsigned view of a signed image here).
        img = img.view(original_dtype)
        return (img, left) if return_N else img
    mask = np.isin(cc_labels, goes, assume_unique=True, invert=invert)
    img[mask] = 0
    img = img.view(original_dtype)
    return (img, left) if return_N else img


def largest_k(img, k, connectivity=26, delta=0, return_N=False, binary_image=False, precomputed_ccl=False):
    """The k largest connected components, as cc3d.largest_k: labels 1..k,
    the smallest of them 1 and the largest k (ties: the lower label first),
    in the labels' dtype; for k == 1 a bool mask; for k == 0 uint16 zeros;
    the labeling itself when it has k components or fewer.

    connectivity, delta, binary_image: as connected_components.
    return_N: also return the number of components returned.
    precomputed_ccl: img already is a labeling.
    """
    if k < 0:
        raise ValueError(f"glccl.cc3d.largest_k(): k must be >= 0, not {k}")
    order = "C" if img.flags.c_contiguous else "F"
    if k == 0:
        return np.zeros(img.shape, dtype=np.uint16, order=order)
    if precomputed_ccl:
        cc_labels, n = np.copy(img, order="F"), int(np.max(img))
    else:
        cc_labels, n = connected_components(img, connectivity=connectivity, return_N=True, delta=delta,
                                            binary_image=bool(binary_image))
    if n <= k:
        return (cc_labels, n) if return_N else cc_labels
    counts = statistics(cc_labels, no_slice_conversion=True)["voxel_counts"].astype(np.int64)
    if k == 1:
        cc_out = cc_labels == (np.argmax(counts[1:]) + 1)
        return (cc_out, 1) if return_N else cc_out
    candidates = np.arange(1, len(counts))
    # The k largest, ties to the lower label, then ordered smallest first.
    largest = candidates[np.lexsort((candidates, -counts[1:]))][:k]
    kept = largest[np.lexsort((largest, counts[largest]))]
    new = np.zeros(len(counts), dtype=cc_labels.dtype)
    new[kept] = np.arange(1, len(kept) + 1)
    cc_out = np.asarray(new[cc_labels], order="C" if cc_labels.flags.c_contiguous else "F")
    return (cc_out, len(kept)) if return_N else cc_out
