"""What people do with labels next: drop small components, keep the
largest, find each one's box, renumber. On label arrays in host memory with
numpy; on device arrays (CuPy, torch CUDA tensors, any
__cuda_array_interface__ or CUDA DLPack producer) on their GPU, through the
module's device_* entries (python/label_filters.cpp), with the same
results."""

import gc
import math

import numpy as np

from . import _glccl


def _on_device(labels):
    return not isinstance(labels, np.ndarray) and _glccl.is_device_array(labels)


def _count_argument(value):
    """A size or a count for the device entries: a real number rounded up
    (counts >= 2.5 is counts >= 3, as numpy compares), within 0..2**64-1."""
    return min(max(math.ceil(value), 0), 2**64 - 1)


def _host_labels(labels, where):
    labels = np.asarray(labels)
    if labels.dtype.kind not in "iu":
        raise TypeError(f"{where}: labels must be an array of an integer dtype, not {labels.dtype}")
    if labels.dtype.kind == "i" and labels.size and labels.min() < 0:
        raise ValueError(f"{where}: labels must be 0 (background) or positive; the smallest is {labels.min()}")
    return labels


def _counts(flat):
    return np.bincount(flat.astype(np.intp, copy=False)) if flat.size else np.zeros(1, np.intp)


def _relabel_kept(labels, keep):
    """labels with the labels where keep[label] is False set to 0 and the
    others renumbered 1..m in raster order of their first element: (labels
    of labels' dtype, m). keep[0] is ignored."""
    keep = keep.copy()
    keep[0] = False
    flat = labels.ravel()
    order = first_order(flat, len(keep) - 1)
    new = np.zeros(len(keep), dtype=labels.dtype)
    kept = order[keep[order]]
    new[kept] = np.arange(1, len(kept) + 1)
    return new[flat].reshape(labels.shape), len(kept)


def first_order(flat, top):
    """The nonzero labels of `flat` (raster order, values 0..top) in the
    order of their first element."""
    present = np.zeros(top + 1, dtype=bool)
    present[flat] = True
    present[0] = False
    # Labels already numbered in raster order (glccl's, and any subset of
    # them): each label's first element is where it exceeds every label
    # before it, so those places alone name every label, in order.
    running = np.maximum.accumulate(flat)
    rising = np.empty(flat.size, dtype=bool)
    rising[:1] = flat[:1] > 0
    rising[1:] = flat[1:] > running[:-1]
    firsts = flat[rising]
    if firsts.size == np.count_nonzero(present):
        return firsts
    values, index = np.unique(flat, return_index=True)
    order = values[np.argsort(index, kind="stable")]
    return order[order != 0]


def relabel(labels):
    """The labels renumbered 1..m in raster order of each label's first
    element (scikit-image's and scipy's order, and glccl's), 0 staying the
    background: (relabeled, m), of the labels' dtype. For labels with gaps
    (after remove_small or any filtering) or from another numbering.
    Arrays of any dimensions; TypeError / ValueError for non-integer or
    negative labels. A device array stays on its device: see remove_small."""
    if _on_device(labels):
        return _glccl.device_relabel(labels)
    labels = _host_labels(labels, "glccl.relabel()")
    top = int(labels.max()) if labels.size else 0
    return _relabel_kept(labels, np.ones(top + 1, dtype=bool))


def remove_small(labels, min_size, relabel=True):
    """The labels with every component of fewer than min_size elements set to
    0 (skimage.morphology.remove_small_objects and cc3d.dust on a labeling):
    (labels, m), m the components left, renumbered 1..m in raster order when
    relabel is True (the default), else keeping their labels (m is then
    still the number left). Arrays of an integer dtype, any dimensions.

    A device array (CuPy, torch CUDA tensor, any __cuda_array_interface__ or
    CUDA DLPack producer) of int32, uint32, int64 or uint64 is filtered on
    its GPU, on its stream: the labels come back as an array of the same
    kind, dtype and device (torch in, torch out; CuPy otherwise), and only
    m (and the largest label, which sizes the per-label tables) is read
    back. Other dtypes there are a TypeError; tables for a largest label
    that the GPU cannot hold are a RuntimeError that names it."""
    if _on_device(labels):
        return _glccl.device_remove_small(labels, _count_argument(min_size), bool(relabel))
    labels = _host_labels(labels, "glccl.remove_small()")
    counts = _counts(labels.ravel())
    keep = counts >= min_size
    if relabel:
        return _relabel_kept(labels, keep)
    keep[0] = True
    out = np.where(keep[labels], labels, 0).astype(labels.dtype, copy=False)
    return out, int(np.count_nonzero(keep[1:] & (counts[1:] > 0)))


def keep_largest(labels, k, relabel=True):
    """The labels of the k components with the most elements (ties: the
    lower label first), the others set to 0: (labels, m), m = min(k, the
    components there are), renumbered 1..m in raster order when relabel is
    True (the default). A device array stays on its device: see
    remove_small."""
    if _on_device(labels):
        if int(k) < 0:
            raise ValueError(f"glccl.keep_largest(): k must be 0 or more, not {k}")
        return _glccl.device_keep_largest(labels, _count_argument(int(k)), bool(relabel))
    labels = _host_labels(labels, "glccl.keep_largest()")
    if int(k) < 0:
        raise ValueError(f"glccl.keep_largest(): k must be 0 or more, not {k}")
    counts = _counts(labels.ravel())
    counts[0] = 0
    present = np.flatnonzero(counts)
    ranked = present[np.lexsort((present, -counts[present]))][: int(k)]
    keep = np.zeros(len(counts), dtype=bool)
    keep[ranked] = True
    if relabel:
        return _relabel_kept(labels, keep)
    keep[0] = True
    return np.where(keep[labels], labels, 0).astype(labels.dtype, copy=False), len(ranked)


def label_extents(labels, top):
    """Per label 0..top and axis: (counts, lows, highs), the first and last
    index of the label along each axis (lows[axis][label] > highs[...] for a
    label that is absent)."""
    flat = labels.ravel()
    counts = np.bincount(flat.astype(np.intp, copy=False), minlength=top + 1)[: top + 1]
    lows = [np.full(top + 1, np.iinfo(np.int64).max, dtype=np.int64) for _ in range(labels.ndim)]
    highs = [np.full(top + 1, -1, dtype=np.int64) for _ in range(labels.ndim)]
    if flat.size == 0:
        return counts, lows, highs
    order = np.argsort(flat, kind="stable")
    present = np.flatnonzero(counts)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))[present]
    coordinates = np.unravel_index(order, labels.shape)
    for axis in range(labels.ndim):
        lows[axis][present] = np.minimum.reduceat(coordinates[axis], starts)
        highs[axis][present] = np.maximum.reduceat(coordinates[axis], starts)
    return counts, lows, highs


def _slices(present, lows, highs):
    """find_objects' list from tables of labels 1..top: entry i a tuple of
    slice(lows[axis][i], highs[axis][i] + 1) per axis, or None where
    present[i] is False."""
    present = np.asarray(present, dtype=bool)
    shape = (len(lows), present.size)
    lows = np.asarray(lows).astype(np.int64, copy=False).reshape(shape)
    highs = np.asarray(highs).astype(np.int64, copy=False).reshape(shape)
    # Hundreds of thousands of new tuples would set off the cyclic garbage
    # collector again and again, each time over every object alive: it
    # cost several times the building itself. Tuples of slices of ints
    # hold no cycles.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _glccl.slices_of_boxes(present, lows, highs)
    finally:
        if collecting:
            gc.enable()


def find_objects(labels, max_label=0):
    """Each label's bounding box as a tuple of slices, as
    scipy.ndimage.find_objects: a list whose entry i is for label i + 1, of
    labels 1..max_label (every label up to the largest when max_label is 0),
    None for a label that is absent. Arrays of any dimensions; a device
    array (see remove_small) of 1 to 32 dimensions is measured on its GPU,
    and only the table of boxes comes back."""
    if _on_device(labels):
        low, high = _glccl.device_boxes(labels, min(int(max_label), 2**63 - 1))
        return _slices(low[0] <= high[0], low, high)
    labels = _host_labels(labels, "glccl.find_objects()")
    top = int(max_label) if max_label else (int(labels.max()) if labels.size else 0)
    if labels.ndim == 0:  # one element: its label's box has no axes
        return [() if value == int(labels) else None for value in range(1, top + 1)]
    clipped = np.where(labels <= top, labels, 0) if labels.size and labels.max() > top else labels
    counts, lows, highs = label_extents(clipped, top)
    if top < 1:
        return []
    return _slices(counts[1:] != 0, [low[1:] for low in lows], [high[1:] for high in highs])
