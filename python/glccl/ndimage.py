"""scipy.ndimage's label, by glccl: replace

    from scipy.ndimage import label

with

    from glccl.ndimage import label

and the same call gives the same labels (values, dtype and shape) and count,
or fills the same output array. Nonzero elements are foreground. Arrays of
any dimensions of which at most three are longer than 1 (others raise
ValueError: glccl labels images and volumes), with any structure scipy takes: 3 along every axis, symmetric about its centre.
generate_binary_structure's (the cross, the full square or cube, and in 3-D
the 18 neighbours of faces and edges) are glccl's connectivities, which every
backend labels; any other (a vertical line, one diagonal) is labeled by the
cpu backend."""

import numpy as np

from ._arrays import label_nd

__all__ = ["label"]


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
        elements or more).

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
    if output.dtype.kind in "iu" and count > np.iinfo(output.dtype).max:
        raise RuntimeError("insufficient bit-depth in requested output type")
    output[...] = labels
    return count if caller_provided_output else (output, count)
