"""What people do with labels next: drop small components, keep the
largest, find each one's box, renumber. On numpy label arrays through the
module's host_* entries (python/host_label_filters.cpp: a pass or two over
the labels, without the GIL); on device arrays (CuPy, torch CUDA tensors,
any __cuda_array_interface__ or CUDA DLPack producer) on their GPU, through
the module's device_* entries (python/label_filters.cpp), with the same
results."""

import gc
import math
import operator

import numpy as np

from . import _glccl


def _on_device(labels):
    return not isinstance(labels, np.ndarray) and _glccl.is_device_array(labels)


def _host_labels(labels, where):
    """labels as a numpy array of an integer dtype (TypeError otherwise).
    Negative labels are refused by the module's pass over them, or by
    _refuse_negative where no pass is made."""
    labels = np.asarray(labels)
    if labels.dtype.kind not in "iu":
        raise TypeError(f"{where}: labels must be an array of an integer dtype, not {labels.dtype}")
    return labels


def _refuse_negative(labels, where):
    if labels.dtype.kind == "i" and labels.size and labels.min() < 0:
        raise ValueError(f"{where}: labels must be 0 (background) or positive; the smallest is {labels.min()}")


def _native(labels):
    """labels in the byte order the module reads (a swapped array copied)."""
    return labels if labels.dtype.isnative else labels.astype(labels.dtype.newbyteorder("="))


def _filtered(entry, labels, *arguments):
    """entry(labels, *arguments) -> (labels, m) of the module, with the
    result in the labels' own dtype (byte order included)."""
    out, m = entry(_native(labels), *arguments)
    return out.astype(labels.dtype, copy=False), m


def _least_kept_size(min_size, labels, where):
    """The least count that `count >= min_size` keeps, as numpy compares an
    integer count with min_size (counts >= 2.5 is counts >= 3), clamped to
    0..2**64-1 (NaN keeps none), for the host and the device entries alike.
    A min_size that is no number is a TypeError, after the refusal of
    negative host labels."""
    try:
        least = operator.index(min_size)
    except TypeError:
        try:
            if isinstance(min_size, (str, bytes)):  # numpy compares no count with them
                raise TypeError
            value = float(min_size)
        except (TypeError, ValueError):
            if isinstance(labels, np.ndarray):
                _refuse_negative(labels, where)
            raise TypeError(f"{where}: min_size must be a real number, not {type(min_size).__name__}") from None
        if math.isnan(value) or value == math.inf:
            least = 2**64 - 1  # no count is that large
        elif value == -math.inf:
            least = 0
        else:
            least = math.ceil(value)
    return min(max(least, 0), 2**64 - 1)


def relabel(labels):
    """The labels renumbered 1..m in raster order of each label's first
    element (scikit-image's and scipy's order, and glccl's), 0 staying the
    background: (relabeled, m), of the labels' dtype. For labels with gaps
    (after remove_small or any filtering) or from another numbering.
    Arrays of any dimensions; TypeError / ValueError for non-integer or
    negative labels. A device array stays on its device: see remove_small."""
    if _on_device(labels):
        return _glccl.device_relabel(labels)
    return _filtered(_glccl.host_relabel, _host_labels(labels, "glccl.relabel()"))


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
        return _glccl.device_remove_small(labels, _least_kept_size(min_size, labels, "glccl.remove_small()"),
                                          bool(relabel))
    labels = _host_labels(labels, "glccl.remove_small()")
    least = _least_kept_size(min_size, labels, "glccl.remove_small()")
    return _filtered(_glccl.host_remove_small, labels, least, bool(relabel))


def keep_largest(labels, k, relabel=True):
    """The labels of the k components with the most elements (ties: the
    lower label first), the others set to 0: (labels, m), m = min(k, the
    components there are), renumbered 1..m in raster order when relabel is
    True (the default). A device array stays on its device: see
    remove_small."""
    if _on_device(labels):
        if int(k) < 0:
            raise ValueError(f"glccl.keep_largest(): k must be 0 or more, not {k}")
        return _glccl.device_keep_largest(labels, min(int(k), 2**64 - 1), bool(relabel))
    labels = _host_labels(labels, "glccl.keep_largest()")
    if int(k) < 0:
        _refuse_negative(labels, "glccl.keep_largest()")
        raise ValueError(f"glccl.keep_largest(): k must be 0 or more, not {k}")
    return _filtered(_glccl.host_keep_largest, labels, min(int(k), 2**64 - 1), bool(relabel))


def label_extents(labels, top):
    """Per label 0..top and axis: (counts, lows, highs), the first and last
    index of the label along each axis (lows[axis][label] > highs[...] for a
    label that is absent), int64; labels above top are left out."""
    labels = np.asarray(labels)
    if labels.dtype.kind not in "iu":
        labels = labels.astype(np.intp)
    counts, lows, highs = _glccl.host_label_extents(_native(labels), int(top))
    return counts, list(lows), list(highs)


def _without_collector(build, *arguments):
    """build(*arguments) with the cyclic garbage collector paused: hundreds
    of thousands of new tuples would set it off again and again, each time
    over every object alive, at several times the cost of the building
    itself. Tuples of slices of ints hold no cycles."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return build(*arguments)
    finally:
        if collecting:
            gc.enable()


def _slices(present, lows, highs):
    """find_objects' list from tables of labels 1..top: entry i a tuple of
    slice(lows[axis][i], highs[axis][i] + 1) per axis, or None where
    present[i] is False."""
    present = np.asarray(present, dtype=bool)
    shape = (len(lows), present.size)
    lows = np.asarray(lows).astype(np.int64, copy=False).reshape(shape)
    highs = np.asarray(highs).astype(np.int64, copy=False).reshape(shape)
    return _without_collector(_glccl.slices_of_boxes, present, lows, highs)


def find_objects(labels, max_label=0):
    """Each label's bounding box as a tuple of slices, as
    scipy.ndimage.find_objects: a list whose entry i is for label i + 1, of
    labels 1..max_label (every label up to the largest where max_label is
    below 1),
    None for a label that is absent. Arrays of any dimensions; a device
    array (see remove_small) of 1 to 32 dimensions is measured on its GPU,
    and only the table of boxes comes back."""
    # As scipy's: below 1 (any number), every label up to the largest (the
    # module's 0); else an int.
    try:
        top = 0 if max_label < 1 else min(operator.index(max_label), 2**63 - 1)
    except TypeError:
        raise TypeError(f"glccl.find_objects(): max_label must be an int, not {type(max_label).__name__}") from None
    if _on_device(labels):
        low, high = _glccl.device_boxes(labels, top)
        return _slices(low[0] <= high[0], low, high)
    labels = _host_labels(labels, "glccl.find_objects()")
    return _without_collector(_glccl.host_find_objects, _native(labels), top)
