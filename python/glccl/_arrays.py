"""What the drop-ins share: any array of at most 3 axes longer than 1
labeled through glccl.label(), and integer values turned into segment ids
that the engines take (0 the background, equal values equal ids)."""

import numpy as np

_UINT32_MAX = int(np.iinfo(np.uint32).max)


def hops_to_connectivity(hops, ndim):
    """scikit-image's and scipy's connectivity (neighbours at most `hops`
    orthogonal steps away) as glccl's for an array of `ndim` (0 to 3)
    dimensions; an array of 0 or 1 dimensions is labeled as one row. A
    fractional count (scikit-image takes 1.5) is its whole part: a
    neighbour joins whose steps are at most it."""
    hops = min(int(np.floor(hops)), max(ndim, 1))
    if ndim <= 2:
        return 4 if hops == 1 else 8
    return {1: 6, 2: 18, 3: 26}[hops]


def label_nd(image, hops, criterion, where, structure=None):
    """glccl.label() of a host array at `hops` (scipy's and scikit-image's
    connectivity: neighbours at most that many orthogonal steps away), or
    with `structure` (scipy's: a bool array of 3 along each of image's axes,
    symmetric) in its place: (uint32 labels of image's shape, n). Axes of
    length 1 change neither which elements are neighbours nor their raster
    order, so they are left out first, and the structure's offsets along
    them with them: an array of any dimensions with at most three axes
    longer than 1 is an image or a volume (one of at most one such axis a
    row); an empty one gives no labels. ValueError for more than three axes
    longer than 1: glccl's engines label images and volumes."""
    from . import label

    image = np.asarray(image)
    if image.size == 0:
        return np.zeros(image.shape, np.uint32), 0
    kept = image.reshape([side for side in image.shape if side != 1])
    if kept.ndim > 3:
        raise ValueError(f"{where}: glccl labels arrays of at most 3 axes longer than 1 (images and volumes); this "
                         f"one is {image.shape}")
    shaped = kept.reshape(1, -1) if kept.ndim <= 1 else kept
    if structure is None:
        connectivity = hops_to_connectivity(hops, kept.ndim)
    else:
        # The structure's middle along every left-out axis; a row's in the
        # middle of a 3x3 one.
        connectivity = np.asarray(structure, dtype=bool)[tuple(slice(None) if side != 1 else 1
                                                               for side in image.shape)]
        if connectivity.ndim <= 1:
            row = connectivity
            connectivity = np.zeros((3, 3), dtype=bool)
            connectivity[1] = row
    labels, n = label(shaped, connectivity=connectivity, criterion=criterion)
    return labels.reshape(image.shape), n


def segment_ids(values, background):
    """An array the segments criterion labels as scikit-image labels
    `values` (an integer array) with `background`: the background value
    becomes 0 and every other value a nonzero id, equal ids for equal values.
    The values themselves where they already are such ids."""
    dtype = values.dtype
    info = np.iinfo(dtype)
    if values.size == 0:
        return values.astype(np.uint32)
    if dtype.kind == "u" and dtype.itemsize <= 4 and background == 0:
        return values
    if dtype.itemsize <= 2:
        # Every value shifted into 1..65536, the background to 0.
        ids = values.astype(np.uint32)
        if info.min < 0:
            ids = (values.astype(np.int32) - info.min + 1).astype(np.uint32)
        else:
            ids += 1
        ids[values == background] = 0
        return ids
    low, high = int(values.min()), int(values.max())
    if high - low < _UINT32_MAX - 1:
        # Shifted into 1..2^32-1 in the values' own type, which holds the
        # difference: no value wraps.
        ids = (values - values.dtype.type(low)).astype(np.uint32) + np.uint32(1)
        ids[values == background] = 0
        return ids
    # Values too far apart for 32-bit ids: their ranks.
    unique, inverse = np.unique(values, return_inverse=True)
    ids = inverse.reshape(values.shape).astype(np.uint32) + np.uint32(1)
    ids[values == background] = 0
    return ids


def smallest_roots(u, v, n):
    """For nodes 0..n-1 joined by edges (u, v): the smallest node of each
    one's component. Roots hook to the smallest root they meet, then every
    path is compressed; repeated until no edge joins two roots."""
    parent = np.arange(n)
    while len(u):
        pu, pv = parent[u], parent[v]
        apart = pu != pv
        u, v, pu, pv = u[apart], v[apart], pu[apart], pv[apart]
        if not len(u):
            break
        low, high = np.minimum(pu, pv), np.maximum(pu, pv)
        order = np.lexsort((low, high))
        high, low = high[order], low[order]
        first = np.concatenate([[True], high[1:] != high[:-1]])
        parent[high[first]] = low[first]
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
    return parent
