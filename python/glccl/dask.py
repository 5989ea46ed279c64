"""glccl for Dask arrays: 2-D images and 3-D volumes of any size and any
chunking, labeled chunk by chunk on Dask's own schedulers (threads, or a
dask.distributed cluster), with the labels of glccl.label on the whole
array, byte for byte.

    import dask.array as da
    import glccl.dask

    volume = da.from_zarr("cells.zarr")                       # (D, H, W), chunked
    labels, n = glccl.dask.label(volume, connectivity=6)      # lazy: dask arrays
    labels.to_zarr("labels.zarr")                             # chunk by chunk
    n = glccl.dask.label_zarr("cells.zarr", "labels2.zarr")   # the same, all or nothing, and the count

    from glccl.dask import ndmeasure                          # dask_image.ndmeasure's label
    labels, n = ndmeasure.label(image)
    means = ndmeasure.mean(image, labels, [1, 2, 3])          # and its measurements

    table = glccl.dask.regionprops_table(labels, image, ["label", "area", "intensity_mean"])
    table.compute()                                           # skimage.measure.regionprops_table's dict

How. Each chunk is labeled by glccl.label on its worker (the fastest engine
there: a GPU engine where the worker has one, the CPU engine otherwise), and
each component is named by the position of its first element (its key). A
binary tree of merge tasks joins boxes of chunks side by side: each links
the shared face of its halves under the criterion and connectivity (edge
and corner neighbours too) and passes up its own faces. Final keys come
back down the tree, each chunk counts its components' first elements per
row, and prefix sums over lines of chunks (trees of additions) number them
in raster order; the labels of components that cross chunks go up and down
the tree once more. No task holds more than one chunk, or the faces of one
box of chunks (at most about a plane of the array); none holds all
equivalences or all offsets.

Tasks are named glccl-label-*, glccl-merge-*, glccl-resolve-*, glccl-count-*,
glccl-scan-*, glccl-rank-*, glccl-lut-*, glccl-relabel-* and glccl-table-*,
which Dask's progress bar and dashboard show. Measurements (regionprops_table,
ndmeasure's mean, ...) are described in glccl._dask_measure.
"""

import operator
import os
import secrets
import shutil
import subprocess
import sys
import threading
import types
from collections.abc import MutableMapping

try:
    import dask.array as da
    from dask.base import tokenize
    from dask.delayed import Delayed
    from dask.graph_manipulation import bind
    from dask.highlevelgraph import HighLevelGraph
except ImportError as _error:
    raise ImportError(
        f"glccl.dask needs Dask, which {sys.executable} cannot import ({_error}); install Debian's python3-dask "
        f"(and python3-distributed for a cluster, python3-zarr for Zarr stores): "
        f"apt-get install python3-dask python3-distributed python3-zarr") from None

import numpy as np

from . import _dask_measure
from . import _dask_tasks as tasks
from . import _label_dtype, backends
from . import label as _label_numpy
from ._dask_measure import regionprops_table
from ._keywords import refuse_unknown

__all__ = ["gpu_cluster", "label", "label_zarr", "ndmeasure", "regionprops_table"]

_HOPS = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}


def _probe(array, connectivity, criterion, channel_axis, threads, where):
    """The arguments checked by glccl.label itself on one element of the
    array's dtype (the cpu engine: no GL context in this process), so that
    a wrong one is refused now, in glccl.label's words, and not on a worker
    later."""
    sides = (1,) * (array.ndim - 1) + ((array.shape[-1],) if channel_axis is not None else (1,))
    sample = np.zeros(sides, array.dtype)
    try:
        _label_numpy(sample, connectivity, criterion, "cpu", False, channel_axis, threads=threads)
    except (TypeError, ValueError) as error:
        raise type(error)(str(error).replace("glccl.label()", where)) from None


def _connectivity(connectivity, volume):
    """glccl's connectivity (4, 8, 6, 18, 26) of a value glccl.label took."""
    if connectivity is None:
        return 26 if volume else 8
    value = operator.index(connectivity)
    return {1: 6 if volume else 4, 2: 18 if volume else 8, 3: 26}.get(value, value)


def _criterion(criterion, where):
    """(kind, number) of a criterion glccl.label took: binary (its level is
    in the keys: a background element has none), segments, threshold, delta."""
    if isinstance(criterion, tuple):
        kind, number = criterion[0], int(criterion[1])
    else:
        kind, _, number = criterion.partition(":")
        number = int(number) if number else 0
    if kind not in ("binary", "segments", "threshold", "delta"):
        raise ValueError(f"{where}: criterion {criterion!r} is not one glccl.dask compares across chunks "
                         f"(binary, segments, threshold, delta)")
    return kind, number


def _checked(array, connectivity, criterion, backend, channel_axis, threads, where):
    """The array ready to label (the channel axis in one chunk, no empty
    chunks) and the spec its tasks share, or TypeError / ValueError."""
    if not isinstance(array, da.Array):
        raise TypeError(f"{where}: array must be a dask.array.Array, not {type(array).__name__}; label a numpy "
                        f"array with glccl.label(), or make it a Dask array first "
                        f"(dask.array.from_array(image, chunks=...))")
    if array.ndim not in (2, 3):
        raise ValueError(f"{where}: array must be 2-D (H, W), a volume (D, H, W), or (H, W, C) with "
                         f"channel_axis=-1; got {array.ndim}-D")
    if any(np.isnan(side) for side in array.shape):
        raise ValueError(f"{where}: the array's chunk sizes are unknown; call array.compute_chunk_sizes() first")
    if array.size == 0:
        raise ValueError(f"{where}: array is empty (its shape has a zero)")
    if not isinstance(backend, str):
        raise TypeError(f"{where}: backend must be a str: auto, compute, raster, cuda, cpu or reference")
    if backend not in [entry["name"] for entry in backends()]:
        raise ValueError(f"{where}: unknown backend {backend!r}; expected auto, compute, raster, cuda, cpu or "
                         f"reference")
    _probe(array, connectivity, criterion, channel_axis, threads, where)
    channels = channel_axis is not None
    volume = array.ndim == 3 and not channels
    connectivity = _connectivity(connectivity, volume)
    kind, number = _criterion(criterion, where)
    # The channels of an element in one chunk; no chunk of length 0.
    chunks = tuple(tuple(side for side in sides if side) for sides in array.chunks)
    if channels:
        chunks = chunks[:-1] + ((array.shape[-1],),)
    if chunks != array.chunks:
        array = array.rechunk(chunks)
    spec = {"connectivity": connectivity, "criterion": criterion, "backend": backend, "channel_axis": channel_axis,
            "threads": threads, "kind": kind, "number": number, "hops": _HOPS[connectivity], "channels": channels,
            "where": where}
    return array, spec


class _Node:
    """A box of chunks in the merge tree: a chunk (a leaf, keyed by the
    chunk's index) or two halves side by side along `axis` (keyed by
    (number,))."""

    def __init__(self, box, parent):
        self.box, self.parent = box, parent
        self.axis = self.low = self.high = None
        self.key = None

    @property
    def leaf(self):
        return self.axis is None


def _tree(offsets):
    """The merge tree over the chunk grid: each box is halved along its
    axis of the most elements that has two chunks or more, so that the
    faces passed up stay small (the top merge holds about one plane)."""
    nodes = []

    def build(box, parent):
        node = _Node(box, parent)
        split = [axis for axis, (low, high) in enumerate(box) if high - low > 1]
        if split:
            node.axis = max(split, key=lambda a: (offsets[a][box[a][1]] - offsets[a][box[a][0]], -a))
            low, high = box[node.axis]
            middle = (low + high) // 2
            node.low = build(box[:node.axis] + ((low, middle),) + box[node.axis + 1:], node)
            node.high = build(box[:node.axis] + ((middle, high),) + box[node.axis + 1:], node)
            node.key = (len(nodes),)
        else:
            node.key = tuple(low for low, _ in box)
        nodes.append(node)
        return node

    root = build(tuple((0, len(sides) - 1) for sides in offsets), None)
    return root, nodes


class _Graph:
    """The tasks of one labeling, in a dict keyed by (stage name, ...):
    label per chunk; merge up the tree and resolve down it; count per chunk
    and scan along lines of chunks; rank per chunk, up and down the tree;
    lut and relabel per chunk; table rows joined in a tree."""

    def __init__(self, array, spec, dtype, check_count, with_table, keep_labels):
        self.array, self.spec = array, dict(spec, table=with_table, keep_labels=keep_labels)
        self.spatial = array.ndim - (1 if spec["channels"] else 0)
        self.shape = array.shape[:self.spatial]
        self.chunks = array.chunks[:self.spatial]
        self.numblocks = [len(sides) for sides in self.chunks]
        self.offsets = [np.concatenate([[0], np.cumsum(sides)]).astype(int).tolist() for sides in self.chunks]
        self.token = tokenize(array.name, self.spec, np.dtype(dtype).str)
        self.dsk = {}
        self.blocks = list(np.ndindex(*self.numblocks))
        self.root, self.nodes = _tree(self.offsets)
        self.leaves = {node.key: node for node in self.nodes if node.leaf}
        self._label()
        self._merge()
        self._resolve()
        self.total = self._number()
        self._rank()
        self.labels_name = self.name("relabel")
        self.dtype, self.check_count = np.dtype(dtype).str, check_count
        if with_table:
            self._table()

    def name(self, stage):
        return f"glccl-{stage}-{self.token}"

    def start(self, block):
        return tuple(self.offsets[axis][index] for axis, index in enumerate(block))

    def sides(self, block):
        return tuple(self.chunks[axis][index] for axis, index in enumerate(block))

    def summary(self, block, part):
        return (operator.getitem, (self.name("label-summary"),) + block, part)

    def faces(self, node):
        return (self.name("label-faces" if node.leaf else "merge-faces"),) + node.key

    def face_keys(self, node):
        return self.summary(node.key, "face_keys") if node.leaf else (self.name("merge-keys"),) + node.key

    def final(self, node):
        return (self.name("resolve"),) + node.key

    def ranked(self, block, part):
        return (operator.getitem, (self.name("rank"),) + block, part)

    def rank_up(self, node):
        return self.ranked(node.key, 1) if node.leaf else (self.name("rank-up"),) + node.key

    def rank_down(self, node):
        return (self.name("rank-down"),) + node.key

    def _label(self):
        """A task per chunk: glccl.label, and the chunk's summary and faces
        taken apart (the faces are dropped once merged)."""
        channel = (0,) if self.spec["channels"] else ()
        for block in self.blocks:
            key = (self.name("label"),) + block
            self.dsk[key] = (tasks.label_chunk, (self.array.name,) + block + channel, self.start(block), self.shape,
                             self.spec)
            self.dsk[(self.name("label-summary"),) + block] = (operator.getitem, key, 0)
            self.dsk[(self.name("label-faces"),) + block] = (operator.getitem, key, 1)

    def _merge(self):
        """Up the tree: a task per pair of halves links their shared face."""
        for node in self.nodes:  # children before parents
            if not node.leaf:
                key = (self.name("merge"),) + node.key
                self.dsk[key] = (tasks.merge, self.faces(node.low), self.faces(node.high), node.axis, self.spec)
                for part in ("faces", "remap", "keys"):
                    self.dsk[(self.name("merge-" + part),) + node.key] = (operator.getitem, key, part)

    def _resolve(self):
        """Down the tree: the final key of every key on a box's faces."""
        self.dsk[self.final(self.root)] = (tasks.no_map,)
        for node in reversed(self.nodes):  # parents before children
            if node.parent is not None:
                self.dsk[self.final(node)] = (tasks.resolve, self.final(node.parent),
                                              (self.name("merge-remap"),) + node.parent.key, self.face_keys(node))

    def _sum(self, level, line, items, low, high):
        """The key of items[low:high] summed in a tree of additions."""
        if high - low == 1:
            return items[low]
        key = (self.name("scan"), level) + line + (low, high)
        if key not in self.dsk:
            middle = (low + high) // 2
            self.dsk[key] = (tasks.add, self._sum(level, line, items, low, middle),
                             self._sum(level, line, items, middle, high))
        return key

    def _starts(self, level, line, items, first, low, high, starts):
        """starts[i] for i in low..high-1: `first` plus items[low:i], down
        the tree of _sum."""
        if high - low == 1:
            starts.append(first)
            return starts
        middle = (low + high) // 2
        self._starts(level, line, items, first, low, middle, starts)
        key = (self.name("scan-start"), level) + line + (middle,)
        self.dsk[key] = (tasks.add, first, self._sum(level, line, items, low, middle))
        return self._starts(level, line, items, key, middle, high, starts)

    def _number(self):
        """Each chunk's row starts (the components that start before each
        of its rows): root counts per row of each chunk, summed along the
        lines of chunks of the last axis; those totals' rows summed along
        the next axis's lines, and so on to one number, the count; then the
        starts come back down, a line's positions after its start. Returns
        the key of the count."""
        d = self.spatial
        for block in self.blocks:
            self.dsk[(self.name("count"),) + block] = (
                tasks.count_roots, self.summary(block, "keys"), self.final(self.leaves[block]), self.start(block),
                self.shape, self.sides(block))
        items, totals = {}, {}
        for level in reversed(range(d)):  # along the last axis first
            for line in np.ndindex(*self.numblocks[:level]):
                positions = [line + (index,) for index in range(self.numblocks[level])]
                if level == d - 1:
                    line_items = [(self.name("count"),) + position for position in positions]
                else:
                    line_items = [(self.name("scan-item"), level) + position for position in positions]
                    for key, position in zip(line_items, positions):
                        self.dsk[key] = (tasks.rows_total, totals[level + 1, position])
                items[level, line] = line_items
                totals[level, line] = self._sum(level, line, line_items, 0, len(line_items))
        position_starts = {(): 0}
        for level in range(d):
            starts = {}
            for line in np.ndindex(*self.numblocks[:level]):
                first = 0
                if level:
                    first = (self.name("scan-line"), level) + line
                    self.dsk[first] = (tasks.line_start, position_starts[line], totals[level, line])
                line_items = items[level, line]
                for index, start in enumerate(self._starts(level, line, line_items, first, 0, len(line_items), [])):
                    starts[line + (index,)] = start
            position_starts = starts
        self.row_starts = position_starts
        return totals[0, ()]

    def _rank(self):
        """Labels of the roots in each chunk; then, for the keys that
        resolve to a root elsewhere, its label: roots on a box's faces go up
        the tree, the labels each box's final keys need come down."""
        for block in self.blocks:
            self.dsk[(self.name("rank"),) + block] = (
                tasks.rank_roots, self.summary(block, "keys"), self.final(self.leaves[block]),
                self.row_starts[block], self.summary(block, "face_keys"), self.start(block), self.shape,
                self.sides(block))
        for node in self.nodes:
            if not node.leaf and node.parent is not None:
                self.dsk[self.rank_up(node)] = (tasks.ranks_up, self.rank_up(node.low), self.rank_up(node.high),
                                                self.face_keys(node))
        self.dsk[self.rank_down(self.root)] = (tasks.no_map,)
        for node in reversed(self.nodes):
            if node.parent is not None:
                parent = node.parent
                self.dsk[self.rank_down(node)] = (tasks.ranks_down, self.rank_down(parent),
                                                  self.rank_up(parent.low), self.rank_up(parent.high),
                                                  self.final(node))
        for block in self.blocks:
            leaf = self.leaves[block]
            self.dsk[(self.name("lut"),) + block] = (tasks.chunk_lut, self.summary(block, "keys"),
                                                     self.ranked(block, 0), self.final(leaf), self.rank_down(leaf))

    def _table(self):
        """Each chunk's rows under their final labels, joined per label in
        a tree of eight at a time, then the table of rows 1..n."""
        level = [(self.name("table"),) + block for block in self.blocks]
        for key, block in zip(level, self.blocks):
            self.dsk[key] = (tasks.table_rows, self.summary(block, "stats"), (self.name("lut"),) + block)
        depth = 0
        while len(level) > 1:
            depth += 1
            level = [self._joined_rows(depth, index, level[index:index + 8]) for index in range(0, len(level), 8)]
        self.table_name = self.name("table-final")
        self.table_dsk = {self.table_name: (tasks.component_table, level[0], self.total, self.spatial)}

    def _joined_rows(self, depth, index, parts):
        key = (self.name("table-merge"), depth, index // 8)
        self.dsk[key] = (tasks.combine_rows,) + tuple(parts)
        return key

    def relabel(self, again=None):
        """The relabel layer: each chunk's kept labels through its lookup
        table, or, with `again` (the input read again), its labels made
        again."""
        count = self.total if self.check_count else None
        channel = (0,) if self.spec["channels"] else ()
        dsk = {}
        for block in self.blocks:
            lut = (self.name("lut"),) + block
            if again is None:
                dsk[(self.labels_name,) + block] = (tasks.relabel, self.summary(block, "labels"), lut, self.dtype,
                                                   count, self.spec["where"])
            else:
                dsk[(self.labels_name,) + block] = (
                    tasks.relabel_again, (again.name,) + block + channel, self.summary(block, "keys"), lut,
                    self.start(block), self.shape, self.spec, self.dtype, count)
        return dsk

    def graph(self, name, dsk, beside=None):
        """A HighLevelGraph of the array's layers, this labeling's tasks,
        the layers of the collection `beside` and the layer `name` (dsk) on
        top of them."""
        internal = f"glccl-{self.token}"
        layers = dict(self.array.dask.layers)
        dependencies = dict(self.array.dask.dependencies)
        layers[internal] = self.dsk
        dependencies[internal] = set(self.array.__dask_layers__())
        layers[name] = dsk
        dependencies[name] = {internal}
        if beside is not None:
            layers.update(beside.dask.layers)
            dependencies.update(beside.dask.dependencies)
            dependencies[name] |= set(beside.__dask_layers__())
        return HighLevelGraph(layers, dependencies)


def _lazy(array, spec, dtype, check_count, with_table, count_dtype, keep_labels=True):
    """(labels, n[, table]) of the array as Dask collections."""
    graph = _Graph(array, spec, dtype, check_count, with_table, keep_labels)
    total_name = graph.name("total")
    n = da.Array(graph.graph(total_name, {(total_name,): (tasks.count_array, graph.total, count_dtype)}), total_name,
                 (), dtype=count_dtype)
    if keep_labels:
        labels_graph = graph.graph(graph.labels_name, graph.relabel())
    else:
        # The input's graph again (a Zarr array: its chunks read again),
        # started once the count is known, so no chunk waits in memory.
        again = bind(graph.array, n)
        labels_graph = graph.graph(graph.labels_name, graph.relabel(again), beside=again)
    labels = da.Array(labels_graph, graph.labels_name, graph.chunks, dtype=dtype)
    if not with_table:
        return labels, n
    table = Delayed(graph.table_name, graph.graph(graph.table_name, graph.table_dsk))
    return labels, n, table


def label(array, connectivity=None, criterion="binary", backend="auto", return_table=False, channel_axis=None, *,
          dtype=None, threads=None, keep_labels=True, **unknown):
    """Connected-component labeling of a 2-D or 3-D Dask array, lazily.

    Parameters
    ----------
    array : dask.array.Array
        (H, W), a volume (D, H, W), or (H, W, C) colour with channel_axis=-1
        (threshold); any chunking, any dtype glccl.label takes, with the
        values glccl.label takes (checked chunk by chunk when computed).
    connectivity, criterion, backend, channel_axis, threads
        As glccl.label: 4 or 8, 6, 18 or 26 (scikit-image's 1..3 too; None:
        8 or 26); "binary", ("binary", L), "segments", ("threshold", T),
        ("delta", D); the engine of each chunk's glccl.label ("auto": the
        fastest on the worker); threads of the CPU engine per chunk (None:
        the process's cores shared among the tasks a worker runs at once).
    return_table : bool
        Also the component table, as a dask.delayed object that computes to
        the glccl.ComponentTable glccl.label gives.
    dtype : None, "auto", "uint32" or "uint64" (keyword only)
        None and "auto": uint32 for an array of fewer than 2**32 elements
        (no count can pass it), else uint64, since the dtype is fixed before
        the count is known. "uint32" for a larger array raises
        OverflowError when computed if the count does not fit.
    keep_labels : bool (keyword only)
        True (the default): each chunk's labels wait in the workers' memory
        from its labeling to its relabeling (4 bytes an element, 8 for a
        chunk of 2**32 elements or more), which Dask spills to disk when
        memory runs short. False: the relabeling reads each chunk again
        (the input's graph is run again: a Zarr chunk is read again,
        once the count is known) and labels it again, checked to give the
        same labels; a worker then holds the chunks in flight and the
        summaries (a key per component of its chunks, the faces in merge),
        for a second read and labeling.

    Returns
    -------
    (labels, n) or (labels, n, table)
        labels: a Dask array of the array's shape (without the channel
        axis) and chunks, 0 for background and 1..n in raster order of each
        component's first element: glccl.label's labels of the whole array,
        byte for byte. n: a 0-d Dask array (int64). Compute them together
        (dask.compute(labels, n), or labels.to_zarr(...) and n) so the
        shared tasks run once.

    Raises
    ------
    TypeError for an array that is no Dask array or a wrong argument type,
    ValueError for a wrong shape or value, as glccl.label (its own check,
    run now on one element of the array's dtype); errors of a chunk's
    labeling when computed (a value glccl does not take, named at its
    place in the whole array; an engine that cannot run).

    Cost
    ----
    A glccl.label call per chunk; per chunk or box of chunks, numpy work in
    the size of its faces; see keep_labels for what waits between the
    labeling and the relabeling.
    """
    where = "glccl.dask.label()"
    refuse_unknown(unknown, where)
    wanted = _label_dtype(dtype, where)
    array, spec = _checked(array, connectivity, criterion, backend, channel_axis, threads, where)
    elements = int(np.prod(array.shape[:array.ndim - (1 if spec["channels"] else 0)]))
    fits32 = elements < 2**32
    dtype = wanted or (np.uint32 if fits32 else np.uint64)
    return _lazy(array, spec, dtype, not fits32 and np.dtype(dtype) == np.uint32, bool(return_table), np.int64,
                 bool(keep_labels))


def label_zarr(source, target, connectivity=None, criterion="binary", backend="auto", *, dtype=None, threads=None,
               keep_labels=True, overwrite=False, **unknown):
    """Labels a Zarr array into another, chunk by chunk, all or nothing, and
    returns the count: the labels and the count computed together (one run
    of the graph), on the Dask scheduler in use (a dask.distributed Client
    where one is active).

    Parameters
    ----------
    source : path, Zarr store, zarr.Array or dask.array.Array
        A 2-D image or a volume; any dtype and values glccl.dask.label takes.
    target : path, Zarr store or zarr.Array
        Where the labels go. A path or a store: a new array of the source's
        chunks and the labels' dtype (uint32, or `dtype`). A zarr.Array:
        written in its own chunks, compressor and dtype; its shape must be
        the source's and its dtype an integer one, and a count it cannot
        hold is an OverflowError that leaves it as it was.
    overwrite : bool (keyword only)
        An existing array or group at the target is refused unless True
        (a zarr.Array target only where a chunk of data is written in it);
        a folder of other files, or a file, is refused always. Under a
        default dask.distributed Client a store in memory is refused (its
        workers would write into copies of it); a folder is written.
    connectivity, criterion, backend, dtype, threads, keep_labels
        As glccl.dask.label.

    All or nothing: the labels are written into a new array beside the
    target (a hidden `.NAME.glccl-partial-*` folder, or keys of that name
    in the target's store) and moved into its place only once every chunk
    is written, so a call that fails or is interrupted leaves the target
    as it was and removes what it wrote. A target that is the source, holds
    it (a group) or lies inside it, by whatever path or link, is refused.

    Raises
    ------
    TypeError or ValueError for a source, target or argument it does not
    take (nothing written); OverflowError for a count the target's dtype
    cannot hold; a chunk's error (a value glccl does not take, at its
    place in the whole array; a read that fails) when computed.
    """
    where = "glccl.dask.label_zarr()"
    refuse_unknown(unknown, where)
    import dask

    try:
        import zarr
    except ImportError as error:
        raise ImportError(f"{where} needs Zarr ({error}); install Debian's python3-zarr") from None
    array, read = _zarr_source(source, zarr, where)
    place = _Target(target, zarr, where)
    for source_array in read:
        place.refuse_overlap(source_array)
    if place.occupied():
        place.refuse_replacing(overwrite)
    wanted = _label_dtype(dtype, where)
    array, spec = _checked(array, connectivity, criterion, backend, None, threads, where)
    elements = int(np.prod(array.shape))
    if place.template is None:
        out_dtype = np.dtype(wanted or (np.uint32 if elements < 2**32 else np.uint64))
    else:
        out_dtype = place.checked_template(array.shape, wanted)
    labels, n = _lazy(array, spec, out_dtype, np.iinfo(out_dtype).max < elements, False, np.int64,
                      bool(keep_labels))
    try:
        partial = place.start(labels)
        if place.folder is not None:
            # A folder every worker on this machine reaches: stored directly.
            # to_zarr() refuses any store under a default dask.distributed
            # client, since a store in memory would be written in the
            # workers' copies; it keeps that refusal for the other stores.
            write = labels.rechunk(partial.chunks).store(partial, lock=False, compute=False)
        else:
            write = labels.to_zarr(partial, compute=False)
        _, count = dask.compute(write, n)
        place.finish()
    except BaseException:
        place.abandon()
        raise
    return int(count)


def _zarr_source(source, zarr, where):
    """The source as a Dask array, and the Zarr arrays it reads."""
    if isinstance(source, da.Array):
        return source, _zarr_arrays_read(source, zarr)
    if isinstance(source, zarr.Array):
        return da.from_zarr(source), [source]
    if not isinstance(source, (str, os.PathLike, MutableMapping)):
        raise TypeError(f"{where}: source must be a path, a Zarr store, a zarr.Array or a dask.array.Array, not "
                        f"{type(source).__name__}")
    name = repr(os.fspath(source)) if isinstance(source, (str, os.PathLike)) else type(source).__name__
    try:
        opened = zarr.open_array(source, mode="r")
    except (ValueError, KeyError, OSError) as error:
        try:
            zarr.open_group(source, mode="r")
        except (ValueError, KeyError, OSError):
            raise ValueError(f"{where}: source {name} holds no Zarr array ({type(error).__name__}: {error})") \
                from None
        raise ValueError(f"{where}: source {name} is a Zarr group; name one of its arrays (the group's path "
                         f"and the array's name)") from None
    return da.from_zarr(opened), [opened]


def _zarr_arrays_read(array, zarr):
    """The zarr.Arrays in a Dask array's graph (those da.from_zarr reads)."""
    found, seen = [], set()

    def visit(value, depth):
        if isinstance(value, zarr.Array):
            if id(value) not in seen:
                seen.add(id(value))
                found.append(value)
        elif isinstance(value, (tuple, list)) and depth < 4:
            for item in value:
                visit(item, depth + 1)

    for value in dict(array.__dask_graph__()).values():
        visit(value, 0)
    return found


def _inner_store(store):
    """A Zarr store without the wrappers zarr puts around a mapping."""
    while True:
        inner = getattr(store, "_mutable_mapping", None)
        if inner is None:
            inner = getattr(store, "_store", None)
        if inner is None or inner is store:
            return store
        store = inner


def _folder_of(store, path, zarr):
    """The folder a store keeps `path` in (a DirectoryStore's, or a local
    fsspec store's), resolved through links; None for other stores."""
    if isinstance(store, zarr.storage.DirectoryStore):
        root = store.path
    else:
        fs, root = getattr(store, "fs", None), getattr(store, "path", None)
        protocols = np.atleast_1d(getattr(fs, "protocol", ())).tolist()
        if not isinstance(root, str) or not {"file", "local"} & set(protocols):
            return None
    return os.path.realpath(os.path.join(root, path))


def _folders_overlap(a, b):
    """Whether folder a is b, or lies inside it, or holds it: by name and
    through the file system (bind mounts, links)."""
    if a == b or a.startswith(b.rstrip(os.sep) + os.sep) or b.startswith(a.rstrip(os.sep) + os.sep):
        return True
    for inner, outer in ((a, b), (b, a)):
        if not os.path.exists(outer):
            continue
        path = inner
        while True:
            if os.path.exists(path) and os.path.samefile(path, outer):
                return True
            parent = os.path.dirname(path)
            if parent == path:
                break
            path = parent
    return False


def _paths_overlap(a, b):
    return a == b or not a or not b or a.startswith(b + "/") or b.startswith(a + "/")


class _Guarded(MutableMapping):
    """The keys of a store under `prefix` (all its keys without one), as a
    store that takes writes until closed: close() waits for the writes
    under way (a failed run's tasks may still be running on the
    scheduler's threads) and refuses any after, so nothing lands in a
    partial array once it is removed. A copy sent to another process is a
    guard of its own."""

    def __init__(self, store, prefix=""):
        self.store, self.prefix = store, prefix + "/" if prefix else ""
        self._lock = threading.Condition()
        self._writing = 0
        self._closed = False

    def __reduce__(self):
        return _Guarded, (self.store, self.prefix[:-1])

    def _change(self, change, key, *value):
        with self._lock:
            if self._closed:
                raise RuntimeError("glccl.dask.label_zarr(): the labeling has ended; no more chunks are written")
            self._writing += 1
        try:
            change(self.prefix + key, *value)
        finally:
            with self._lock:
                self._writing -= 1
                self._lock.notify_all()

    def __setitem__(self, key, value):
        self._change(self.store.__setitem__, key, value)

    def __delitem__(self, key):
        self._change(self.store.__delitem__, key)

    def __getitem__(self, key):
        return self.store[self.prefix + key]

    def __contains__(self, key):
        return self.prefix + key in self.store

    def __iter__(self):
        return (key[len(self.prefix):] for key in list(self.store.keys()) if key.startswith(self.prefix))

    def __len__(self):
        return sum(1 for _ in self)

    def close(self):
        with self._lock:
            self._closed = True
            while self._writing:
                self._lock.wait()


class _Target:
    """Where label_zarr writes: a folder of a DirectoryStore (the labels
    written into a folder beside it, renamed into its place), or a path in
    another store (written under a path beside it, its keys moved into
    place)."""

    def __init__(self, target, zarr, where):
        self.zarr, self.where, self.template = zarr, where, None
        if isinstance(target, zarr.Array):
            if target._chunk_store is not None:
                raise TypeError(f"{where}: target is a zarr.Array with a separate chunk store, which glccl cannot "
                                f"replace all at once; pass a path or a store")
            if target.read_only:
                raise ValueError(f"{where}: target is a read-only zarr.Array; open it with mode='r+' (or pass its "
                                 f"path) to write the labels there")
            self.template, store, path = target, target.store, target.path
            self.name = f"(the zarr.Array {'/' + path!r} of a {type(_inner_store(store)).__name__})"
        elif isinstance(target, (str, os.PathLike)):
            text = os.fspath(target)
            if not isinstance(text, str):
                raise TypeError(f"{where}: target must be a str path, not {type(text).__name__}")
            self.name = repr(text)
            if os.path.lexists(text) and not os.path.isdir(text):
                raise ValueError(f"{where}: target {self.name} is a file, not a folder for a Zarr array; name a "
                                 f"new path (or a Zarr store, or a zarr.Array)")
            if text.endswith(".zip"):
                raise ValueError(f"{where}: target {self.name} names a zip store, whose entries cannot be "
                                 f"replaced; label into a folder and zip it after")
            store, path = zarr.storage.normalize_store_arg(text, mode="a"), ""
        elif isinstance(target, MutableMapping):
            store, path = target, ""
            self.name = f"(a {type(_inner_store(store)).__name__})"
        else:
            raise TypeError(f"{where}: target must be a path, a Zarr store or a zarr.Array, not "
                            f"{type(target).__name__}")
        self.store, self.path = store, path
        if isinstance(_inner_store(store), zarr.storage.ZipStore):
            raise ValueError(f"{where}: target {self.name} is a zip store, whose entries cannot be replaced; label "
                             f"into a folder and zip it after")
        self.folder = _folder_of(store, path, zarr) if isinstance(store, zarr.storage.DirectoryStore) else None
        self.partial = self.aside = self.guard = self.created = None

    def refuse_overlap(self, source):
        """ValueError where the target is the source array, holds it or
        lies inside it."""
        source_store, target_store = _inner_store(source.store), _inner_store(self.store)
        source_folder = _folder_of(source_store, source.path, self.zarr)
        target_folder = self.folder or _folder_of(target_store, self.path, self.zarr)
        if source_folder is not None and target_folder is not None:
            overlap = _folders_overlap(source_folder, target_folder)
        else:
            overlap = source_store is target_store and _paths_overlap(source.path, self.path)
        if overlap:
            raise ValueError(f"{self.where}: target {self.name} is the source array, holds it or lies inside it; "
                             f"its labels would overwrite the array being read: write them to another place")

    def occupied(self):
        """Whether anything is at the target: for a zarr.Array handed as
        the target, which is where the labels are asked to go, a chunk of
        data written in it."""
        if self.template is not None:
            return self.template.nchunks_initialized > 0
        if self.folder is not None:
            return os.path.isdir(self.folder) and bool(os.listdir(self.folder))
        return bool(self._keys_at(_inner_store(self.store), self.path))

    def refuse_replacing(self, overwrite):
        holds = self.zarr.storage.contains_array(self.store, self.path) or \
            self.zarr.storage.contains_group(self.store, self.path)
        if not holds:
            raise ValueError(f"{self.where}: target {self.name} holds files but no Zarr array or group; glccl "
                             f"replaces only those (with overwrite=True): name a new path")
        if not overwrite:
            kind = "array" if self.zarr.storage.contains_array(self.store, self.path) else "group"
            raise ValueError(f"{self.where}: target {self.name} holds a Zarr {kind}; pass overwrite=True to "
                             f"replace it")

    def checked_template(self, shape, wanted):
        """The labels' dtype in a zarr.Array target, checked against the
        source's shape."""
        template = self.template
        if tuple(template.shape) != tuple(shape):
            raise ValueError(f"{self.where}: target is a {tuple(template.shape)} array; the labels of a "
                             f"{tuple(shape)} source need one of that shape")
        dtype = np.dtype(template.dtype)
        if dtype.kind not in "iu":
            raise TypeError(f"{self.where}: target's dtype {dtype.name} does not hold labels; an integer one does "
                            f"(uint32, uint64, int32, ...)")
        if wanted is not None and np.dtype(wanted) != dtype:
            raise ValueError(f"{self.where}: dtype={np.dtype(wanted).name} differs from the target's dtype "
                             f"{dtype.name}; leave dtype out to write in the target's")
        return dtype

    def _beside(self, kind):
        token = secrets.token_hex(4)
        if self.folder is not None:
            parent, name = os.path.split(self.folder)
            return os.path.join(parent, f".{name}.glccl-{kind}-{token}")
        parent, _, name = self.path.rpartition("/")
        return (parent + "/" if parent else "") + (f".{name}." if name else ".") + f"glccl-{kind}-{token}"

    def start(self, labels):
        """The partial array, beside the target, that the labels go to."""
        zarr = self.zarr
        if self.template is not None:
            template = self.template
            layout = {"shape": template.shape, "chunks": template.chunks, "dtype": template.dtype,
                      "compressor": template.compressor, "filters": template.filters, "order": template.order,
                      "fill_value": template.fill_value,
                      "dimension_separator": getattr(template, "_dimension_separator", None)}
        else:
            layout = {"shape": labels.shape, "chunks": tuple(max(sides) for sides in labels.chunks),
                      "dtype": labels.dtype,
                      "dimension_separator": getattr(_inner_store(self.store), "_dimension_separator", None)}
        if self.folder is not None:
            self.partial = self._beside("partial")
            self.created = []
            parent = os.path.dirname(self.partial)
            while not os.path.isdir(parent):
                self.created.append(parent)
                parent = os.path.dirname(parent)
            self.guard = _Guarded(type(self.store)(self.partial))
            array = zarr.open_array(self.guard, mode="w-", **layout)
        else:
            self.partial = self._beside("partial")
            self.guard = _Guarded(_inner_store(self.store), self.partial)
            array = zarr.open_array(self.guard, mode="w-", **layout)
        if self.template is not None:
            array.attrs.update(self.template.attrs.asdict())
        return array

    def finish(self):
        """Every chunk written: the partial array takes the target's place
        (what was there moved aside first, and back if that fails)."""
        self.guard.close()
        if self.folder is not None:
            if not os.path.lexists(self.folder):
                os.rename(self.partial, self.folder)
                return
            self.aside = self._beside("replaced")
            os.rename(self.folder, self.aside)
            try:
                os.rename(self.partial, self.folder)
            except BaseException:
                os.rename(self.aside, self.folder)
                raise
            shutil.rmtree(self.aside, ignore_errors=True)
            return
        store = _inner_store(self.store)
        self.aside = self._beside("replaced")
        self._move(store, self.path, self.aside)
        try:
            self._move(store, self.partial, self.path)
        except BaseException:
            self._remove(store, self.path)
            self._move(store, self.aside, self.path)
            raise
        self._remove(store, self.aside)

    def abandon(self):
        """The call failed: what it wrote is removed, the target untouched."""
        if self.guard is None:
            return
        self.guard.close()
        if self.folder is not None:
            shutil.rmtree(self.partial, ignore_errors=True)
            for folder in self.created:
                try:
                    os.rmdir(folder)
                except OSError:
                    break
        else:
            self._remove(_inner_store(self.store), self.partial)

    def _keys_at(self, store, path):
        """The keys under `path`; at the root, all but this call's own."""
        if path:
            return [key for key in list(store.keys()) if key.startswith(path + "/")]
        ours = tuple(own + "/" for own in (self.partial, self.aside) if own)
        return [key for key in list(store.keys()) if not ours or not key.startswith(ours)]

    def _move(self, store, src, dst):
        for key in self._keys_at(store, src):
            rest = key[len(src) + 1:] if src else key
            store[dst + "/" + rest if dst else rest] = store[key]
            del store[key]
        self._prune(store, src)

    def _remove(self, store, path):
        for key in self._keys_at(store, path):
            del store[key]
        self._prune(store, path)

    def _prune(self, store, path):
        """The emptied path's own entry gone (a MemoryStore keeps one)."""
        if path:
            try:
                self.zarr.storage.rmdir(store, path)
            except (KeyError, OSError):
                pass


def gpu_cluster(gpus=None, threads_per_worker=4, **worker_options):
    """A dask.distributed cluster on this machine with one worker process per
    GPU, each seeing only its own (CUDA_VISIBLE_DEVICES set before the
    process starts, so every glccl call in it labels on that GPU), for
    glccl.dask.label on several GPUs: `Client(glccl.dask.gpu_cluster())`.

    gpus: the CUDA device numbers, one worker each (default: every device
    nvidia-smi lists; none found is a RuntimeError). threads_per_worker: the
    chunks a worker labels at once (their numpy passes run meanwhile).
    Other keywords go to each worker (distributed.Nanny), memory_limit for
    one. Close it (or use it in a `with`) when done."""
    where = "glccl.dask.gpu_cluster()"
    try:
        from distributed import Nanny, Scheduler, SpecCluster
    except ImportError as error:
        raise ImportError(f"{where} needs dask.distributed ({error}); install Debian's python3-distributed") from None
    if gpus is None:
        gpus = _visible_gpus(where)
    gpus = [int(g) for g in gpus]
    if not gpus or len(set(gpus)) != len(gpus) or min(gpus) < 0:
        raise ValueError(f"{where}: gpus must name distinct CUDA devices (0, 1, ...), not {gpus!r}")
    if not isinstance(threads_per_worker, int) or threads_per_worker < 1:
        raise ValueError(f"{where}: threads_per_worker must be a positive int, not {threads_per_worker!r}")
    env = dict(worker_options.pop("env", None) or {})
    workers = {
        f"gpu-{gpu}": {"cls": Nanny, "options": {**worker_options, "nthreads": threads_per_worker,
                                                 "env": {**env, "CUDA_VISIBLE_DEVICES": str(gpu)}}}
        for gpu in gpus}
    return SpecCluster(workers=workers, scheduler={"cls": Scheduler, "options": {"dashboard_address": ":0"}})


def _visible_gpus(where):
    """The CUDA devices this process may use: CUDA_VISIBLE_DEVICES where it
    lists numbers, else those nvidia-smi lists."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None and all(part.strip().isdigit() for part in listed.split(",") if part.strip()):
        return [int(part) for part in listed.split(",") if part.strip()]
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError) as error:
        raise RuntimeError(f"{where}: no GPU found here (nvidia-smi: {error}); name them with gpus=[0, 1, ...]") \
            from None
    return [int(line) for line in out.split() if line.strip().isdigit()]


def _structure_hops(structure, ndim, where):
    """The hops of `structure` (generate_binary_structure(ndim, hops)): the
    neighbourhoods glccl.dask joins across chunks; ValueError for others."""
    steps = np.abs(np.indices((3,) * ndim) - 1).sum(axis=0)
    for hops in range(1, max(ndim, 1) + 1):
        if np.array_equal(structure, steps <= hops):
            return hops
    raise ValueError(f"{where}: structure must be one of generate_binary_structure({ndim}, c) for c in "
                     f"1..{max(ndim, 1)} (the cross, the full {'square' if ndim == 2 else 'cube'}"
                     f"{', or the 18 neighbours' if ndim == 3 else ''}), the neighbourhoods glccl.dask joins "
                     f"across chunks; got {structure.astype(int).tolist()}")


def _ndmeasure_label(image, structure=None, wrap_axes=None):
    """Label features in a Dask array, as dask_image.ndmeasure.label (and
    scipy.ndimage.label), by glccl.

    Parameters
    ----------
    image : array_like
        1-D, 2-D or 3-D (dask.array.asarray makes a Dask array of others);
        nonzero elements are features.
    structure : array_like, optional
        The cross (the default), the full square or cube, or in 3-D the 18
        neighbours: scipy.ndimage.generate_binary_structure(ndim, c); others
        raise ValueError.
    wrap_axes : None
        Periodic boundaries are not taken (ValueError).

    Returns
    -------
    (label, num_features): a lazy int32 Dask array (intp for 2**31 - 2
    elements or more, as scipy) and a 0-d Dask array of the count, of the
    labels' dtype; numbered in raster order, as scipy.ndimage.label.
    """
    from ._arrays import hops_to_connectivity

    where = "glccl.dask.ndmeasure.label()"
    if wrap_axes is not None:
        raise ValueError(f"{where}: wrap_axes (periodic boundaries) is not taken by glccl; pass wrap_axes=None")
    image = da.asarray(image)
    if image.ndim not in (1, 2, 3):
        raise ValueError(f"{where}: glccl labels 1-D, 2-D and 3-D arrays; this one is {image.ndim}-D")
    if structure is None:
        hops = 1
    else:
        structure = np.asarray(structure, dtype=bool)
        if structure.ndim != image.ndim:
            raise RuntimeError("structure and input must have equal rank")
        hops = _structure_hops(structure, image.ndim, where)
    dtype = np.intp if image.size >= 2**31 - 2 else np.int32
    flat = image.ndim == 1
    features = (image != 0)
    if flat:
        features = features[None, :]
    array, spec = _checked(features, hops_to_connectivity(hops, image.ndim), "binary", "auto", None, None, where)
    labels, n = _lazy(array, spec, dtype, False, False, dtype)
    return (labels[0] if flat else labels), n


ndmeasure = types.ModuleType("glccl.dask.ndmeasure", """dask_image.ndmeasure's label and measurements, by glccl: replace

    from dask_image.ndmeasure import label, mean

with

    from glccl.dask.ndmeasure import label, mean

and label(image, structure=None) gives (labels, num_features) as Dask
collections, the labels numbered as scipy.ndimage.label numbers the whole
array (in raster order); area, center_of_mass, extrema, maximum, mean,
minimum, standard_deviation, sum_labels and variance (image,
label_image=None, index=None) give Dask arrays of dask-image's shapes and
dtypes, measured chunk by chunk and merged exactly (1-D, 2-D and 3-D
images).""")
ndmeasure.label = _ndmeasure_label
_ndmeasure_label.__name__ = _ndmeasure_label.__qualname__ = "label"
for _entry in (_ndmeasure_label,) + tuple(getattr(_dask_measure, name) for name in _dask_measure.NDMEASURE):
    setattr(ndmeasure, _entry.__name__, _entry)
    _entry.__module__ = ndmeasure.__name__
del _entry
ndmeasure.__all__ = ["label", *_dask_measure.NDMEASURE]
sys.modules[ndmeasure.__name__] = ndmeasure
