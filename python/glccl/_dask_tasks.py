"""What each task of glccl.dask computes, on numpy arrays only (glccl.dask
wires them into a Dask graph). Every task holds one chunk, or the faces of
one box of chunks, never the whole array.

Keys. A component of a chunk is named by the global linear index (+ 1) of
its first element in raster order: its key. A chunk's own labels are
numbered in raster order, and the raster order of a box agrees with the
whole array's, so a chunk's keys ascend with its labels, and the smallest
key of a component is its first element in the whole array. 0 is the
background.

Faces. A box (a chunk or a box of chunks) passes up the planes on its sides
that touch another box: {(axis, side): (keys, values)}, side 0 the low
plane, 1 the high one; values (uint64, channels last) only where the
criterion compares them.

    box A | box B          merge(A, B) links A's (axis, 1) plane with B's
    ......|......          (axis, 0) plane at every in-plane offset the
    ...a--|--b...          connectivity takes (edges and corners too), and
    ......|......          maps each key it joins to the smallest key of
                           its component (the remap)."""

import os
import re

import numpy as np

from ._arrays import smallest_roots
from ._table import ComponentTable

_EMPTY = np.zeros(0, np.int64)
NO_MAP = (_EMPTY, _EMPTY)  # a map that changes no key


def _lookup(sorted_keys, keys):
    """(found, where): which of `keys` are in `sorted_keys` (sorted, unique)
    and their positions there (0 where not found)."""
    where = np.searchsorted(sorted_keys, keys)
    where[where == len(sorted_keys)] = 0
    found = sorted_keys[where] == keys if len(sorted_keys) else np.zeros(np.shape(keys), bool)
    return found, where


def remapped(keys, mapping):
    """keys with mapping = (src, dst) applied (src sorted; others kept)."""
    src, dst = mapping
    if not len(src):
        return keys
    found, where = _lookup(src, keys)
    out = keys.copy()
    out[found] = dst[where[found]]
    return out


def _unique_keys(faces):
    """The sorted nonzero keys on a box's faces."""
    if not faces:
        return _EMPTY
    keys = np.unique(np.concatenate([plane.ravel() for plane, _ in faces.values()]))
    return keys[1:] if len(keys) and keys[0] == 0 else keys


def _first_elements(labels):
    """Flat indices of the first element of labels 1..n (raster-numbered):
    where the running maximum rises."""
    flat = labels.reshape(-1)
    running = np.maximum.accumulate(flat)
    rises = np.flatnonzero(running[1:] != running[:-1]) + 1
    return np.concatenate([[0], rises]) if flat[0] else rises


def _roots(keys, final):
    """Which of a chunk's keys (sorted) are final: not moved by `final`,
    whose keys are among them."""
    is_root = np.ones(len(keys), bool)
    is_root[np.searchsorted(keys, final[0])] = False
    return is_root


def _rows(keys, start, shape, sides):
    """The flat index, within a chunk of `sides` at `start`, of the row
    (every axis but the last) of each key."""
    coords = np.unravel_index(keys - 1, shape)
    return np.ravel_multi_index(tuple(c - s for c, s in zip(coords[:-1], start[:-1])), sides[:-1])


def _face_values(block, axis, index, spec):
    """The samples of a face that the criterion compares, as uint64 (every
    sample glccl labels is an unsigned integer, checked by the chunk's
    labeling), or None where the keys say all (binary)."""
    return None if spec["kind"] == "binary" else block.take(index, axis=axis).astype(np.uint64)


def task_threads(threads):
    """The threads of one task's glccl call: `threads` where the caller gave
    them, else this process's cores shared among the tasks that run at once
    (a distributed worker's threads, or the local threaded scheduler's), so
    that a worker of T threads runs T calls of cores / T threads each, not T
    calls of every core."""
    if threads is not None:
        return threads
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        from distributed import get_worker

        worker = get_worker()
        at_once = getattr(getattr(worker, "state", None), "nthreads", None) or worker.nthreads
    except (ImportError, ValueError, AttributeError):
        import dask

        at_once = dask.config.get("num_workers", None) or cores
    return max(1, cores // max(1, int(at_once)))


def _labeled(block, start, spec):
    """glccl.label of a chunk (the fastest engine on this worker); a value
    it refuses is reported at its place in the whole array."""
    from . import label

    try:
        return label(block, spec["connectivity"], spec["criterion"], spec["backend"], spec["table"],
                     spec["channel_axis"], threads=task_threads(spec["threads"]))
    except ValueError as error:
        raise ValueError(placed(str(error), start, spec["where"])) from None


_PLACE = re.compile(r" at \[(\d+(?:, \d+)*)\]")


def placed(message, start, where):
    """glccl.label's message about a chunk, from the entry `where`, with
    the place it names ("at [y, x]", channel last) moved to the whole
    array's coordinates; without one, the chunk's place added."""
    message = message.replace("glccl.label()", where, 1)
    found = _PLACE.search(message)
    if found is None:
        return f"{message} (in the chunk at {list(start)})"
    place = [int(value) for value in found.group(1).split(", ")]
    place[:len(start)] = [value + offset for value, offset in zip(place, start)]
    return f"{message[:found.start()]} at [{', '.join(map(str, place))}]{message[found.end():]}"


def _keys(labels, n, start, shape, where):
    """The keys of a chunk's labels 1..n: their first elements' global
    linear indices + 1."""
    first = _first_elements(labels)
    if len(first) != n:
        raise RuntimeError(f"glccl.dask.label(): the chunk at {tuple(start)} has {n} labels but {len(first)} first "
                           f"elements{where}: its labels are not in raster order")
    local = np.unravel_index(first, labels.shape)
    return np.ravel_multi_index(tuple(c + s for c, s in zip(local, start)), shape).astype(np.int64) + 1


def label_chunk(block, start, shape, spec):
    """Labels one chunk and summarises it: its labels (unless they are
    labeled again for the relabeling), its keys, the keys on its inner
    faces and, for the table, each label's box, area and coordinate sums;
    and apart, its faces."""
    result = _labeled(block, start, spec)
    labels, n = result[0], result[1]
    keys = _keys(labels, n, start, shape, "")
    key_of = np.concatenate([[0], keys])
    faces = {}
    for axis, side in _inner_sides(start, labels.shape, shape):
        index = 0 if side == 0 else labels.shape[axis] - 1
        faces[axis, side] = (key_of[labels.take(index, axis=axis)], _face_values(block, axis, index, spec))
    stats = _chunk_stats(labels, n, result[2], start) if spec["table"] else None
    summary = {"labels": labels if spec["keep_labels"] else None, "keys": keys, "face_keys": _unique_keys(faces),
               "stats": stats}
    # Two parts, taken apart by the graph: the faces are dropped once merged.
    return summary, faces


def relabel_again(block, keys, lut, start, shape, spec, dtype, count=None):
    """The chunk's final labels from the chunk itself, labeled again (the
    first labeling's keys checked: the same labels)."""
    labels, n = _labeled(block, start, dict(spec, table=False))
    if n != len(keys) or not np.array_equal(_keys(labels, n, start, shape, " when labeled again"), keys):
        raise RuntimeError(f"glccl.dask.label(): the chunk at {tuple(start)} labeled again differs from its first "
                           f"labeling ({n} labels, {len(keys)} before): its values changed between the reads")
    return relabel(labels, lut, dtype, count, spec["where"])


def _inner_sides(start, sides, shape):
    """The (axis, side) of a chunk's planes that touch another chunk."""
    for axis in range(len(shape)):
        if start[axis] > 0:
            yield axis, 0
        if start[axis] + sides[axis] < shape[axis]:
            yield axis, 1


# ---- the table ---------------------------------------------------------------------------------------------

# The table's columns of each spatial axis, 2-D (y, x) and 3-D (z, y, x).
_AXIS_COLUMNS = {2: (("top", "height", "centroid_y"), ("left", "width", "centroid_x")),
                 3: (("front", "depth", "centroid_z"), ("top", "height", "centroid_y"),
                     ("left", "width", "centroid_x"))}


def _chunk_stats(labels, n, table, start):
    """Per label of a chunk: (lows, highs, area, sums) in the whole array's
    coordinates; lows and highs (n, d) the box, sums (n, d) uint64 the exact
    coordinate sums. glccl's chunk table gives the box and the area; its
    centroid, sum / area rounded once, gives the chunk's own coordinate sum
    back exactly while that sum is below 2^51 (area * side), else the sums
    are counted here."""
    d = labels.ndim
    area = np.asarray(table["area"], np.uint64)
    lows = np.stack([np.asarray(table[low], np.int64) for low, _, _ in _AXIS_COLUMNS[d]], axis=1)
    highs = lows + np.stack([np.asarray(table[extent], np.int64) for _, extent, _ in _AXIS_COLUMNS[d]], axis=1) - 1
    if labels.size * max(labels.shape) < 2**51:
        sums = np.stack([np.rint(np.asarray(table[centroid]) * area).astype(np.uint64)
                         for _, _, centroid in _AXIS_COLUMNS[d]], axis=1)
    else:
        sums = _counted_sums(labels, n)
    offset = np.asarray(start, np.int64)
    sums = sums + area[:, None] * offset.astype(np.uint64)
    return lows + offset, highs + offset, area, sums


def _counted_sums(labels, n):
    """Exact per-label coordinate sums of a chunk too large for the
    centroid's round trip, a slab of planes at a time (float64 sums of a
    slab stay exact integers)."""
    sums = np.zeros((n + 1, labels.ndim), np.uint64)
    step = max(1, (1 << 22) // max(1, labels[0].size))
    for first in range(0, labels.shape[0], step):
        slab = labels[first:first + step]
        flat = slab.reshape(-1)
        for axis in range(labels.ndim):
            coordinate = np.arange(slab.shape[axis], dtype=np.float64) + (first if axis == 0 else 0)
            coordinate = np.broadcast_to(coordinate.reshape([-1 if a == axis else 1 for a in range(slab.ndim)]),
                                         slab.shape).reshape(-1)
            sums[:, axis] += np.bincount(flat, weights=coordinate, minlength=n + 1).astype(np.uint64)
    return sums[1:]


def table_rows(stats, lut):
    """A chunk's rows of the table: its labels' stats under their final
    labels, one row per final label (a component may hold several of the
    chunk's labels)."""
    lows, highs, area, sums = stats
    return combine_rows((lut[1:], lows, highs, area, sums))


def combine_rows(*parts):
    """Rows (label, lows, highs, area, sums) of several parts joined per
    label: the smallest lows, largest highs, summed area and sums."""
    label, lows, highs, area, sums = (np.concatenate(column) for column in zip(*parts))
    if not len(label):
        return label, lows, highs, area, sums
    order = np.argsort(label, kind="stable")
    label = label[order]
    starts = np.flatnonzero(np.concatenate([[True], label[1:] != label[:-1]]))
    return (label[starts], np.minimum.reduceat(lows[order], starts, axis=0),
            np.maximum.reduceat(highs[order], starts, axis=0), np.add.reduceat(area[order], starts),
            np.add.reduceat(sums[order], starts, axis=0))


def table_columns(rows, n, ndim):
    """The table's columns (glccl.label's, in its order) of rows 1..n."""
    label, lows, highs, area, sums = rows
    if len(label) != n or (n and (label[0] != 1 or label[-1] != n)):
        raise RuntimeError(f"glccl.dask.label(): the table has {len(label)} rows for {n} labels")
    columns = {"area": area.astype(np.uint64)}
    for axis, (low, extent, centroid) in enumerate(_AXIS_COLUMNS[ndim]):
        columns[low] = lows[:, axis].astype(np.uint32)
        columns[extent] = (highs[:, axis] - lows[:, axis] + 1).astype(np.uint32)
        # glccl's centroid: the exact sum and the area as doubles, divided once.
        columns[centroid] = sums[:, axis].astype(np.float64) / area.astype(np.float64)
    order = ["left", "top", "width", "height", "area", "centroid_x", "centroid_y", "front", "depth", "centroid_z"]
    return {name: columns[name] for name in order if name in columns}


# ---- the merge tree -------------------------------------------------------------------------------------------

def _plane_offsets(face_ndim, hops):
    """In-plane offsets of the neighbours across a face: the crossing step
    is one hop, so an offset may take hops - 1 more (4/6: straight across;
    8/18: and one in-plane step; 26: and the corners)."""
    grids = np.indices((3,) * face_ndim).reshape(face_ndim, -1).T - 1
    return [tuple(int(v) for v in offset) for offset in grids if np.count_nonzero(offset) + 1 <= hops]


def _joined(low_values, high_values, spec):
    """Which neighbouring samples the criterion joins (both are foreground:
    their keys are nonzero)."""
    kind = spec["kind"]
    if kind == "segments":
        return np.all(low_values == high_values, axis=-1) if spec["channels"] else low_values == high_values
    # threshold and delta: every channel within the number
    difference = np.where(low_values > high_values, low_values - high_values, high_values - low_values)
    near = difference <= np.uint64(spec["number"])
    return np.all(near, axis=-1) if spec["channels"] else near


def face_pairs(low, high, spec):
    """The pairs of keys (low side, high side) the criterion joins across a
    shared face: low's plane against high's at every in-plane offset."""
    low_keys, low_values = low
    high_keys, high_values = high
    sides = low_keys.shape
    firsts, seconds = [], []
    for offset in _plane_offsets(low_keys.ndim, spec["hops"]):
        a = tuple(slice(max(0, -o), side - max(0, o)) for o, side in zip(offset, sides))
        b = tuple(slice(max(0, o), side + min(0, o)) for o, side in zip(offset, sides))
        first, second = low_keys[a], high_keys[b]
        joined = (first != 0) & (second != 0)
        if low_values is not None:
            joined &= _joined(low_values[a], high_values[b], spec)
        first, second = first[joined], second[joined]
        # Neighbouring pairs along a run repeat; one of each run is enough.
        if len(first) > 1:
            new = np.concatenate([[True], (first[1:] != first[:-1]) | (second[1:] != second[:-1])])
            first, second = first[new], second[new]
        firsts.append(first)
        seconds.append(second)
    return np.concatenate(firsts), np.concatenate(seconds)


def joined_remap(firsts, seconds):
    """(src, dst): every key the pairs join mapped to the smallest key of
    its component, where that is another key; src sorted."""
    if not len(firsts):
        return NO_MAP
    nodes = np.unique(np.concatenate([firsts, seconds]))
    roots = smallest_roots(np.searchsorted(nodes, firsts), np.searchsorted(nodes, seconds), len(nodes))
    moved = roots != np.arange(len(nodes))
    return nodes[moved], nodes[roots[moved]]


def merge(low, high, axis, spec):
    """Merges two boxes side by side along `axis` (low below, high above):
    links their shared face, and passes up the merged box's faces with the
    remap applied. Returns {"faces", "remap", "keys"} (the keys on the
    faces)."""
    remap = joined_remap(*face_pairs(low[axis, 1], high[axis, 0], spec))
    faces = {}
    for (face_axis, side), plane in low.items():
        if face_axis == axis:
            if side == 0:
                faces[face_axis, side] = plane
            continue
        # The other faces of both halves, joined along `axis` as it lies in the plane.
        other = high[face_axis, side]
        along = axis if axis < face_axis else axis - 1
        faces[face_axis, side] = (np.concatenate([plane[0], other[0]], axis=along),
                                  None if plane[1] is None else np.concatenate([plane[1], other[1]], axis=along))
    if (axis, 1) in high:
        faces[axis, 1] = high[axis, 1]
    faces = {side: (remapped(keys, remap), values) for side, (keys, values) in faces.items()}
    return {"faces": faces, "remap": remap, "keys": _unique_keys(faces)}


def resolve(parent_final, parent_remap, face_keys):
    """The final key of each key on a box's faces, given its parent's remap
    and the final keys of the parent's face keys: (src, dst) for the keys
    whose final key is another. A component that does not reach the
    parent's faces is final at the parent."""
    final = remapped(remapped(face_keys, parent_remap), parent_final)
    moved = final != face_keys
    return face_keys[moved], final[moved]


# ---- numbering: roots counted per row, prefix sums over lines of chunks ---------------------------------------

def count_roots(keys, final, start, shape, sides):
    """How many of a chunk's components start in each of its rows (every
    axis but the last): its keys that are final (roots)."""
    roots = keys[_roots(keys, final)]
    rows = int(np.prod(sides[:-1]))
    return np.bincount(_rows(roots, start, shape, sides), minlength=rows).astype(np.int64).reshape(sides[:-1])


def line_start(position_start, totals):
    """Roots before each row's start, for the lines of a level: the line's
    start (roots before it, per row of the level above) plus the rows of
    the line before each row."""
    return np.expand_dims(np.asarray(position_start), -1) + np.cumsum(totals, axis=-1) - totals


def rows_total(totals):
    """A line's totals summed over its last axis: one item of the level
    above."""
    return totals.sum(axis=-1)


def add(a, b):
    return np.add(a, b)


def rank_roots(keys, final, row_starts, face_keys, start, shape, sides):
    """Final labels of a chunk's roots (roots before a root's row, and
    before it in its row, plus one): the chunk's lookup table with 0 where
    the key is not a root, and (keys, labels) of its roots on its faces,
    which other chunks' keys may resolve to."""
    is_root = _roots(keys, final)
    rows = _rows(keys[is_root], start, shape, sides)
    counts = np.bincount(rows, minlength=int(np.prod(sides[:-1])))
    before_row = np.cumsum(counts) - counts
    lut = np.zeros(len(keys) + 1, np.int64)
    lut[1:][is_root] = np.asarray(row_starts).reshape(-1)[rows] + np.arange(len(rows)) - before_row[rows] + 1
    face_roots = face_keys[~_lookup(final[0], face_keys)[0]]
    return lut, (face_roots, lut[np.searchsorted(keys, face_roots) + 1])


def ranks_up(low_up, high_up, face_keys):
    """The labels of a box's roots on its own faces, from its halves'."""
    keys = np.concatenate([low_up[0], high_up[0]])
    labels = np.concatenate([low_up[1], high_up[1]])
    keep = _lookup(face_keys, keys)[0]
    order = np.argsort(keys[keep])
    return keys[keep][order], labels[keep][order]


def ranks_down(parent_down, low_up, high_up, final):
    """The labels of the final keys a box's face keys resolve to: from the
    parent's (components leaving the parent) and the halves' roots."""
    keys = np.concatenate([parent_down[0], low_up[0], high_up[0]])
    labels = np.concatenate([parent_down[1], low_up[1], high_up[1]])
    order = np.argsort(keys)
    keys, labels = keys[order], labels[order]
    wanted = np.unique(final[1])
    found, where = _lookup(keys, wanted)
    if not found.all():
        raise RuntimeError(f"glccl.dask.label(): {np.count_nonzero(~found)} final keys have no label")
    return wanted, labels[where]


def chunk_lut(keys, lut, final, down):
    """A chunk's full lookup table: its roots' labels, and for the others
    the labels of their final keys."""
    if len(final[0]):
        lut = lut.copy()
        found, where = _lookup(down[0], final[1])
        if not found.all():
            raise RuntimeError(f"glccl.dask.label(): {np.count_nonzero(~found)} final keys have no label")
        lut[np.searchsorted(keys, final[0]) + 1] = down[1][where]
    return lut


def relabel(labels, lut, dtype, count=None, where="glccl.dask.label()"):
    """The chunk's final labels; `count`, where given, is checked to fit
    the dtype."""
    dtype = np.dtype(dtype)
    if count is not None and int(count) > np.iinfo(dtype).max:
        raise OverflowError(f"{where}: {int(count)} components do not fit dtype {dtype.name}")
    return lut.astype(dtype)[labels]


def count_array(total, dtype):
    """The count as a 0-d array of `dtype`."""
    return np.asarray(total, dtype=dtype)


def no_map():
    """The final keys and labels above the root: none."""
    return NO_MAP


def component_table(rows, n, ndim):
    """The glccl.ComponentTable of the joined rows of labels 1..n."""
    return ComponentTable.from_columns(table_columns(rows, int(n), ndim))


# --- Measuring regions: glccl.dask.regionprops_table and ndmeasure ------------------------------------------------
#
# A chunk's terms are gathered from the chunk and a margin of up to
# MARGIN elements of its neighbours on every side (a border pixel of the
# perimeter is told by its neighbours' neighbours); only the chunk's own
# elements, and the 2x2 (2x2x2) windows whose far corner it owns, are
# counted, so the chunks' terms merged are the whole array's.
#
#     . . . . . . . .        o: the chunk's own elements
#     . . . . . . . .        .: its margin, read from the neighbours
#     . . o o o o . .
#     . . o o o o . .
#     . . . . . . . .
#     . . . . . . . .

MARGIN = 2


def _assembled(parts, places, shape, dtype):
    """One array of `shape` from the pieces of the chunks it spans."""
    out = np.empty(shape, dtype)
    for part, place in zip(parts, places):
        out[place] = part
    return out


def _selected(labels, start, spec, select=None):
    """The labels the terms are gathered under: the labels themselves
    (refused where negative, named at their place in the whole array, the
    labels' first element at `start`), those > 0 as one region 1, or the
    position + 1 of each label among `select` (sorted, unique; 0 for the
    others)."""
    if labels.dtype == bool:
        labels = labels.view(np.uint8)
    if spec.get("positive"):
        return (labels > 0).astype(np.uint8)
    if select is not None:
        ids = np.arange(1, len(select) + 1, dtype=np.uint64)
        if labels.dtype.kind in "iu" and select.dtype.kind in "iu" and select.dtype != labels.dtype:
            # Compared in the labels' dtype (not through float64, inexact past 2**53).
            have, want = np.iinfo(select.dtype), np.iinfo(labels.dtype)
            fits = (select >= max(have.min, want.min)) & (select <= min(have.max, want.max))
            ids, select = ids[fits], select[fits].astype(labels.dtype)
        where = np.searchsorted(select, labels)
        where[where == len(select)] = 0
        found = select[where] == labels if len(select) else np.zeros(labels.shape, bool)
        return np.where(found, ids[where] if len(ids) else 0, 0).astype(np.uint64)
    if labels.dtype.kind == "i" and labels.size:
        low = labels.min()
        if low < 0:
            place = [int(c) + s for c, s in zip(np.unravel_index(int(np.argmin(labels)), labels.shape), start)]
            raise ValueError(f"{spec['where']}: label_image must hold 0 (background) and positive labels; it holds "
                             f"{int(low)} at {place}")
    if not labels.dtype.isnative:
        labels = labels.astype(labels.dtype.newbyteorder("="))
    return np.ascontiguousarray(labels)


def _measured_intensity(intensity):
    """An intensity piece in a dtype the compiled module reads."""
    if intensity.dtype.kind == "f" and intensity.dtype.itemsize < 4:
        intensity = intensity.astype(np.float32)
    if not intensity.dtype.isnative:
        intensity = intensity.astype(intensity.dtype.newbyteorder("="))
    return np.ascontiguousarray(intensity)


def chunk_terms(label_parts, intensity_parts, places, box, own, spec, select=None):
    """The terms of the regions of one chunk: the chunk and its margin
    assembled from the pieces of the chunks they span (`places`: where each
    piece goes), `box` the (start, stop) of that array in the whole array,
    `own` the (start, stop) of the chunk, spec["shape"] the whole array's.
    Labels absent (label_image=None): one region over everything; `select`:
    the labels measured (see _selected)."""
    from . import _glccl

    shape = tuple(stop - start for start, stop in box)
    if label_parts is None:
        labels = np.ones(shape, np.uint8)
    else:
        labels = _assembled(label_parts, places, shape, label_parts[0].dtype)
        labels = _selected(labels, [start for start, _ in box], spec, select)
    intensity = None
    if intensity_parts is not None:
        channels = intensity_parts[0].shape[len(shape):]
        intensity = _measured_intensity(_assembled(intensity_parts, [place + (slice(None),) * len(channels)
                                                                     for place in places],
                                                   shape + channels, intensity_parts[0].dtype))
    origin = [start for start, _ in box]
    return _glccl.measure_terms(labels, intensity, spec["properties"], origin,
                                [start - first for (start, _), first in zip(own, origin)],
                                [stop - first for (_, stop), first in zip(own, origin)], list(spec["shape"]),
                                task_threads(spec["threads"]), spec["background"])


def merged_terms(*parts):
    """The terms of several boxes of chunks merged into one record."""
    from . import _glccl

    return parts[0] if len(parts) == 1 else _glccl.merge_terms(list(parts))


def finalized(terms, properties, spacing):
    """The columns (named with '-') of `properties` from merged terms."""
    from . import _glccl

    return _glccl.finalize_terms(terms, list(properties), spacing, "-")


def property_table(columns, asked, separator):
    """regionprops_table's dict: the module's columns of each property
    asked (name asked, canonical name), named with `separator`, in
    scikit-image's dtypes."""
    from . import _measure

    groups = _measure._group(columns, list(dict.fromkeys(canonical for _, canonical in asked)), "-")
    out = {}
    for name, canonical in asked:
        for suffix, values in groups[canonical]:
            out[separator.join((name,) + tuple(map(str, suffix)))] = _measure._term_column(canonical, values)
    return out


def per_index(columns, terms, column, count, inverse, shape, axes, dtype, default):
    """dask_image.ndmeasure's values of one measurement: the values of
    `column` (its columns "column-a" for a in `axes`, last, where given) of
    the regions 1..count, `default` for those absent, taken at `inverse`
    and shaped `shape`. Integer extrema are read from the terms' raw
    samples, exact past 2**53."""
    dtype = np.dtype(dtype)
    rows = np.asarray(columns["label"], dtype=np.int64) - 1
    if axes is None:
        values = np.asarray(columns[column])
        if column in ("intensity_min", "intensity_max") and dtype.kind in "iub":
            raw = np.asarray(terms[column + "_bits"], dtype=np.uint64).reshape(-1)
            order = np.searchsorted(np.asarray(terms["labels"], dtype=np.uint64).reshape(-1), rows + 1)
            values = raw[order].view(np.int64 if dtype.kind == "i" else np.uint64)
        out = np.full(count, default, dtype)
    else:
        values = np.stack([np.asarray(columns[f"{column}-{axis}"]) for axis in axes], axis=-1)
        out = np.full((count, len(axes)), default, dtype)
    out[rows] = values.astype(dtype) if dtype.kind != "b" else values != 0
    return out[inverse].reshape(shape + out.shape[1:])
