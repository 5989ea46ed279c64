"""scikit-image's label, regionprops and regionprops_table, by glccl: replace

    from skimage.measure import label, regionprops, regionprops_table

with

    from glccl.skimage import label, regionprops, regionprops_table

and the same call gives the same result. label: the same array (values,
dtype, shape and memory order) and count. Like scikit-image, it labels regions of equal value
(glccl's "segments" criterion); glccl.label's own default, "binary", joins
every nonzero pixel. Arrays of 1, 2 and 3 dimensions, and boolean arrays of
more whose axes longer than 1 are at most three (scikit-image labels
boolean arrays of any dimensions through scipy; glccl refuses the others
with ValueError). Values and background are read as scikit-image reads
them, as intp: a uint64 value of 2**63 or more is negative there (so
background=-1 is 2**64 - 1), floats, datetimes and complex numbers are cast
(strings of digits parsed), a float background is truncated, and one past
intp is an OverflowError.

regionprops and regionprops_table: the properties and columns of
scikit-image's newest release (spacing= included, area in float64,
num_pixels, intensity_std), the properties computed from totals measured for
every region in one pass over the labels (see glccl.regionprops_table)."""

import operator

import numpy as np

from ._arrays import label_nd, segment_ids

from . import _measure

__all__ = ["label", "regionprops", "regionprops_table"]


def _scan_swap(shape):
    """The two axes scikit-image's label swaps before it scans a
    non-boolean array, or None. It moves axes of length 1 to the front by
    pairing them, last first, with the longer axes, first first, while the
    axis of length 1 comes later; of those swaps it applies the last (each
    to the original array), and swaps back after labeling. In up to three
    dimensions there is at most one: an (a, b, 1) array is labeled as its
    (1, b, a) swap, so its labels follow the raster order of that swap,
    axis 0 fastest."""
    ones = [axis for axis, side in enumerate(shape) if side == 1][::-1]
    longer = [axis for axis, side in enumerate(shape) if side > 1]
    swap = None
    for one, axis in zip(ones, longer):
        if one < axis:
            break
        swap = (one, axis)
    return swap


def _background_intp(background, where):
    """background as scikit-image reads it: a C integer (intp). None is 0;
    a float is truncated (NaN and infinities refused as int() refuses
    them); a value outside intp's range is an OverflowError."""
    if background is None:
        return 0
    try:
        value = operator.index(background)
    except TypeError:
        if not hasattr(type(background), "__int__"):
            raise TypeError(f"{where}: background must be a number; an integer is required, not "
                            f"{type(background).__name__}") from None
        value = int(background)
    info = np.iinfo(np.intp)
    if not info.min <= value <= info.max:
        raise OverflowError(f"{where}: background {value} is outside intp ({info.min}..{info.max}), where "
                            f"scikit-image reads it: Python int too large to convert to C long")
    return value


def label(label_image, background=None, return_num=False, connectivity=None):
    """Label connected regions of an integer array, as skimage.measure.label.

    Two pixels are connected when they are neighbours and have the same value.

    Parameters
    ----------
    label_image : ndarray
        Image to label, of 1 to 3 dimensions (boolean: any dimensions of
        which at most three are longer than 1). Its values are read as
        intp, as scikit-image reads them: a float image is truncated to
        integers, a uint64 value of 2**63 or more is negative.
    background : int, optional
        Pixels of this value are background, labeled 0. By default, 0. Read
        as intp (a float truncated; OverflowError past intp). For a boolean
        image, background=1 labels the False pixels.
    return_num : bool, optional
        Also return the number of labels.
    connectivity : int, optional
        Maximum number of orthogonal hops to a neighbour: 1 to
        label_image.ndim; None (the default) is label_image.ndim.

    Returns
    -------
    labels : ndarray
        int64 (intp) labels, 1..num in raster order of each region's first
        pixel (of the array as scikit-image scans it: an (a, b, 1) array
        axis 0 fastest); int32 for a boolean image (scipy.ndimage's, which
        scikit-image calls for those).
    num : int, optional
        Number of labels, returned if return_num is True.
    """
    where = "glccl.skimage.label()"
    image = np.asarray(label_image)
    if image.dtype == bool:
        if background == 1:
            image = ~image
        hops = image.ndim if connectivity is None else connectivity
        if not 1 <= hops <= image.ndim:
            raise ValueError(f"Connectivity for {image.ndim}D image should be in [1, ..., {image.ndim}]. "
                             f"Got {hops}.")
        labels, n = label_nd(image, hops, "binary", where)
        dtype = np.intp if image.size >= 2**31 - 2 else np.int32
    else:
        kind, itemsize = image.dtype.kind, image.dtype.itemsize
        if kind not in "iu" or (kind == "u" and itemsize >= np.dtype(np.intp).itemsize):
            # scikit-image's cast, before anything else: uint64 wraps,
            # floats truncate, strings of digits parse, others raise as
            # numpy raises.
            image = image.astype(np.intp)
        if not 1 <= image.ndim <= 3:
            raise NotImplementedError(f"Only for images of dimension 1-3 are supported, got a {image.ndim}D one")
        value = _background_intp(background, where)
        hops = image.ndim if connectivity is None else connectivity
        if not 1 <= hops <= image.ndim:
            raise ValueError(f"Connectivity for {image.ndim}D image should be in [1, ..., {image.ndim}]. "
                             f"Got {connectivity}.")
        swap = _scan_swap(image.shape)
        scanned = image if swap is None else image.swapaxes(*swap)
        labels, n = label_nd(segment_ids(scanned, value), hops, "segments", where)
        if swap is not None:
            labels = labels.swapaxes(*swap)
        dtype = np.intp
    labels = labels.astype(dtype)
    if return_num:
        return labels, n
    return labels


def regionprops_table(label_image, intensity_image=None, properties=("label", "bbox"), *, cache=True, separator="-",
                      extra_properties=None, spacing=None):
    """Region properties as a dict of columns, as skimage.measure.regionprops_table
    (see glccl.regionprops_table): the same column names, in the same order,
    rows in ascending label order, scikit-image's newest definitions
    (spacing= included). Device arrays (CuPy, torch CUDA tensors) are
    measured on their GPU, as glccl.regionprops_table says."""
    return _measure.regionprops_table(label_image, intensity_image, properties, cache=cache, separator=separator,
                                      extra_properties=extra_properties, spacing=spacing,
                                      where="glccl.skimage.regionprops_table()")


def regionprops(label_image, intensity_image=None, cache=True, *, extra_properties=None, spacing=None):
    """The regions of a label image as a list of region objects, as
    skimage.measure.regionprops: region.area, region["area"], every
    property of regionprops_table and extra_properties, in ascending label
    order.

    label, bbox, slice and area come from one pass over the labels; a
    property computed from totals (moments, centroid, intensity_mean, ...)
    is measured for every region at once on its first access of any region;
    the others (image, coords, image_convex, solidity, ...) are computed
    from the region's crop on access, and kept when cache is True.
    Device labels (CuPy, torch CUDA tensors) are measured on their GPU, as
    glccl.regionprops_table says; the crops are cut from one host copy of
    the labels (and intensity), made on the first access of a crop
    property."""
    return _measure.regionprops(label_image, intensity_image, cache, extra_properties=extra_properties,
                                spacing=spacing)
