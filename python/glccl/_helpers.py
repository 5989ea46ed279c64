"""What people do with labels next, on label arrays in host memory: drop
small components, keep the largest, find each one's box, renumber."""

import numpy as np


def _host_labels(labels, where):
    if hasattr(labels, "__cuda_array_interface__") and not isinstance(labels, np.ndarray):
        raise TypeError(f"{where}: labels must be a numpy array; copy a device array to the host first "
                        f"(cupy.asnumpy(labels))")
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
    Host arrays of any dimensions; TypeError / ValueError for non-integer or
    negative labels."""
    labels = _host_labels(labels, "glccl.relabel()")
    top = int(labels.max()) if labels.size else 0
    return _relabel_kept(labels, np.ones(top + 1, dtype=bool))


def remove_small(labels, min_size, relabel=True):
    """The labels with every component of fewer than min_size elements set to
    0 (skimage.morphology.remove_small_objects and cc3d.dust on a labeling):
    (labels, m), m the components left, renumbered 1..m in raster order when
    relabel is True (the default), else keeping their labels (m is then
    still the number left). Host arrays of an integer dtype."""
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
    True (the default)."""
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


def find_objects(labels, max_label=0):
    """Each label's bounding box as a tuple of slices, as
    scipy.ndimage.find_objects: a list whose entry i is for label i + 1, of
    labels 1..max_label (every label up to the largest when max_label is 0),
    None for a label that is absent. Host arrays of any dimensions."""
    labels = _host_labels(labels, "glccl.find_objects()")
    top = int(max_label) if max_label else (int(labels.max()) if labels.size else 0)
    clipped = np.where(labels <= top, labels, 0) if labels.size and labels.max() > top else labels
    counts, lows, highs = label_extents(clipped, top)
    boxes = []
    for value in range(1, top + 1):
        if counts[value] == 0:
            boxes.append(None)
        else:
            boxes.append(tuple(slice(int(lows[a][value]), int(highs[a][value]) + 1) for a in range(labels.ndim)))
    return boxes
