"""glccl.dask on Dask arrays: the labels of the whole array, byte for byte,
whatever the chunking (one chunk, chunks of 1, uneven last chunks, chunks
that cut a spiral or a serpentine many times, diagonal neighbours across
chunk corners), against scipy.ndimage.label (binary) and glccl.label (the
criteria scipy has not), at every connectivity, on Dask's threaded
scheduler and a two-process dask.distributed cluster; the table, dask-image's
ndmeasure.label call, Zarr stores, and what the graph holds."""

import importlib
import importlib.util
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from scipy import ndimage

import glccl

dask = pytest.importorskip("dask", reason="dask cannot be imported; tools/install-deps.sh installs python3-dask")
da = pytest.importorskip("dask.array", reason="dask.array cannot be imported (python3-dask)")
import glccl.dask  # noqa: E402
from glccl import _dask_tasks  # noqa: E402

# glccl's connectivity -> scipy's structure of the same neighbours.
STRUCTURES = {4: (2, 1), 8: (2, 2), 6: (3, 1), 18: (3, 2), 26: (3, 3)}


def scipy_labels(image, connectivity):
    return ndimage.label(np.asarray(image) != 0, ndimage.generate_binary_structure(*STRUCTURES[connectivity]))


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes of one thread (they import glccl through the
    PYTHONPATH they inherit), for the whole module."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed cannot be imported; "
                                                            "tools/install-deps.sh installs python3-distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as local:
        with distributed.Client(local, set_as_default=False) as client:
            yield client


@pytest.fixture(params=["threads", "distributed"])
def compute(request):
    """dask.compute on the threaded scheduler, or on the cluster."""
    if request.param == "threads":
        run = lambda *collections: dask.compute(*collections, scheduler="threads")  # noqa: E731
    else:
        client = request.getfixturevalue("cluster")
        run = lambda *collections: tuple(client.compute(list(collections), sync=True))  # noqa: E731
    run.scheduler = request.param
    return run


def check(image, chunks, connectivity, criterion="binary", compute=None, table=False):
    """glccl.dask.label of image in `chunks` equals the whole array's
    labeling: scipy's for binary, glccl.label's for every criterion."""
    compute = compute or (lambda *c: dask.compute(*c, scheduler="threads"))
    array = da.from_array(image, chunks=chunks)
    result = glccl.dask.label(array, connectivity=connectivity, criterion=criterion, return_table=table)
    assert isinstance(result[0], da.Array) and result[0].chunks == array.chunks[:result[0].ndim]
    computed = compute(*result)
    labels, n = computed[0], int(computed[1])
    expected = glccl.label(image, connectivity=connectivity, criterion=criterion, return_table=table)
    assert labels.dtype == expected[0].dtype == np.uint32
    np.testing.assert_array_equal(labels, expected[0])
    assert n == expected[1]
    if criterion == "binary":
        reference, count = scipy_labels(image, connectivity)
        np.testing.assert_array_equal(labels, reference)
        assert n == count
    if table:
        assert list(computed[2]) == list(expected[2])
        for name, column in expected[2].items():
            assert computed[2][name].dtype == column.dtype, name
            np.testing.assert_array_equal(computed[2][name], column, err_msg=name)
    return labels, n


# ---- generated arrays ------------------------------------------------------------------------------------

def spiral(side):
    """A square spiral one pixel wide, its turns two apart: one component
    that crosses every chunk boundary many times. Ring k (rows and columns
    k..side-1-k) is open at (k + 1, k) and goes on to ring k + 2 through
    (k + 2, k + 1)."""
    image = np.zeros((side, side), np.uint8)
    for k in range(0, side // 2, 2):
        last = side - 1 - k
        if last - k < 2:
            break
        image[k, k:last + 1] = image[k:last + 1, last] = image[last, k:last + 1] = 1
        image[k + 2:last + 1, k] = 1
        if last - k >= 6:
            image[k + 2, k + 1] = 1
    return image


def serpentine(height, width):
    """Rows joined at alternate ends: one path through every row."""
    image = np.zeros((height, width), np.uint8)
    image[::2] = 1
    image[1::4, -1] = 1
    image[3::4, 0] = 1
    return image


def serpentine_volume(depth, height, width):
    """Serpentine slices joined at alternate corners, through every slice."""
    volume = np.zeros((depth, height, width), np.uint8)
    volume[::2] = serpentine(height, width)
    volume[1::4, -1, -1] = 1
    volume[3::4, 0, 0] = 1
    return volume


def random_image(shape, density, seed, values=1):
    rng = np.random.default_rng(seed)
    return ((rng.random(shape) < density) * rng.integers(1, values + 1, shape)).astype(np.uint8)


# ---- exact against scipy and glccl.label ---------------------------------------------------------------

# On the cluster fewer chunkings: each chunk is a score of small tasks there.
# One chunk, uneven chunks on both axes, narrow ones; rows and columns of
# one and a grid of small chunks on the threaded scheduler (chunks of one on
# the cluster: test_chunks_of_one_everywhere).
IMAGE_CHUNKS = [(23, 31), (7, 30), (22, 3)]


@pytest.mark.parametrize("criterion", ["binary", "segments"])
@pytest.mark.parametrize("connectivity", [4, 8])
def test_images_every_chunking(compute, connectivity, criterion):
    image = random_image((23, 31), 0.55, connectivity, values=3 if criterion == "segments" else 1)
    more = [(1, 31), (23, 1), (4, 5)] if compute.scheduler == "threads" else []
    for chunks in IMAGE_CHUNKS + more:
        check(image, chunks, connectivity, criterion, compute)


VOLUME_CHUNKS = [(9, 11, 13), (1, 11, 13), ((1, 5, 3), (11,), (2, 2, 9)), (8, 10, 12)]


@pytest.mark.parametrize("criterion", ["binary", "segments"])
@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_volumes_every_chunking(compute, connectivity, criterion):
    volume = random_image((9, 11, 13), 0.4, connectivity, values=3 if criterion == "segments" else 1)
    more = [(4, 1, 5), (2, 3, 4)] if compute.scheduler == "threads" else []
    for chunks in VOLUME_CHUNKS + more:
        check(volume, chunks, connectivity, criterion, compute)


def test_chunks_of_one_everywhere(compute):
    check(random_image((6, 7), 0.6, 1), 1, 8, compute=compute)
    check(random_image((4, 5, 3), 0.5, 2), 1, 26, compute=compute)


@pytest.mark.parametrize("seed", range(4))
def test_random_shapes_and_chunks(seed):
    rng = np.random.default_rng(seed)
    for ndim, connectivities in ((2, (4, 8)), (3, (6, 18, 26))):
        shape = tuple(int(side) for side in rng.integers(2, 30 if ndim == 2 else 12, ndim))
        image = random_image(shape, (0.2, 0.4, 0.6, 0.8)[seed], seed, values=2)
        # At most four chunks an axis (test_chunks_of_one_everywhere takes the smallest).
        chunks = tuple(int(rng.integers(-(-side // 4), side + 1)) for side in shape)
        for connectivity in connectivities:
            for criterion in ("binary", "segments", ("delta", 1), ("threshold", 1), ("binary", 1)):
                check(image, chunks, connectivity, criterion, table=criterion == "binary")


@pytest.mark.parametrize("connectivity", [4, 8])
def test_spiral_and_serpentine_across_many_chunks(connectivity):
    image = spiral(41)
    labels, n = check(image, (5, 6), connectivity)
    assert n == 1
    labels, n = check(serpentine(29, 33), (4, 7), connectivity)
    assert n == 1


@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_serpentine_volume(connectivity):
    labels, n = check(serpentine_volume(9, 10, 11), (2, 3, 4), connectivity)
    assert n == 1


def test_diagonal_neighbours_across_chunk_corners():
    """Components joined only through chunk corners and edges: a
    checkerboard and diagonal lines, at 4/8 and 6/18/26."""
    board = np.indices((12, 14)).sum(axis=0) % 2
    assert check(board, (3, 5), 8)[1] == 1
    assert check(board, (3, 5), 4)[1] == board.sum()
    line = np.zeros((10, 10, 10), np.uint8)
    line[np.arange(10), np.arange(10), np.arange(10)] = 1                 # corners only: 26
    line[np.arange(10), np.arange(10), 0] = 2                             # edges: 18 and 26
    counts = [check(line, (3, 3, 3), connectivity)[1] for connectivity in (6, 18, 26)]
    assert counts[0] > counts[1] > counts[2] == 1
    cube = np.indices((6, 6, 6)).sum(axis=0) % 2
    assert check(cube, (2, 3, 4), 18)[1] == 1
    assert check(cube, (2, 3, 4), 26)[1] == 1


@pytest.mark.parametrize("dtype", [np.bool_, np.uint16, np.int16, np.uint32, np.int64, np.float32, np.uint64])
def test_dtypes(dtype):
    rng = np.random.default_rng(5)
    image = rng.integers(0, 3, (17, 19)).astype(dtype)
    check(image, (5, 4), 8, "binary")
    if dtype != np.bool_:
        check(image, (5, 4), 4, "segments")
        check(image, (6, 5), 8, ("delta", 1))


def test_large_segment_ids_and_colour():
    ids = np.full((12, 12), 2**40, np.uint64)
    ids[:, 6:] += 1
    ids[5] = 0
    check(ids, (5, 5), 4, "segments")
    rgb = np.random.default_rng(3).integers(0, 40, (15, 18, 3)).astype(np.uint8)
    array = da.from_array(rgb, chunks=(4, 5, 2))
    labels, n = glccl.dask.label(array, connectivity=8, criterion=("threshold", 12), channel_axis=-1)
    labels, n = dask.compute(labels, n, scheduler="threads")
    expected, count = glccl.label(rgb, connectivity=8, criterion=("threshold", 12), channel_axis=-1)
    np.testing.assert_array_equal(labels, expected)
    assert n == count


def test_tables_equal_glccl_label(compute):
    check(random_image((40, 37), 0.5, 7), (9, 8), 8, table=True, compute=compute)
    check(random_image((10, 12, 11), 0.35, 8), (3, 5, 4), 6, table=True, compute=compute)
    check(spiral(33), (4, 7), 4, table=True, compute=compute)


def test_labeled_again_instead_of_kept(compute):
    """keep_labels=False: the input read and labeled again for the
    relabeling, its tasks started once the count is known."""
    volume = random_image((10, 12, 14), 0.4, 9)
    array = da.from_array(volume, chunks=(4, 5, 6))
    labels, n, table = glccl.dask.label(array, connectivity=18, return_table=True, keep_labels=False)
    labels, n, table = compute(labels, n, table)
    expected, count, expected_table = glccl.label(volume, connectivity=18, return_table=True)
    np.testing.assert_array_equal(labels, expected)
    assert n == count and np.array_equal(table["centroid_z"], expected_table["centroid_z"])


def test_values_changed_between_the_reads():
    reads = []

    def changing(block, block_info=None):
        reads.append(1)
        return block if len(reads) <= 4 else 1 - block

    array = da.from_array(serpentine(8, 8), chunks=4).map_blocks(changing, dtype=np.uint8)
    labels, n = glccl.dask.label(array, connectivity=4, keep_labels=False)
    with pytest.raises(RuntimeError, match="differs from its first labeling"):
        dask.compute(labels, n, scheduler="sync")


def test_no_component():
    labels, n, table = dask.compute(*glccl.dask.label(da.zeros((8, 9), np.uint8, chunks=3), return_table=True),
                                    scheduler="threads")
    assert n == 0 and not labels.any() and len(table["label"]) == 0 and "centroid_y" in table


# ---- the merge is what joins chunks ------------------------------------------------------------------------

def test_skipping_the_merge_changes_the_labels(monkeypatch):
    image = spiral(31)
    array = da.from_array(image, chunks=(8, 8))
    monkeypatch.setattr(_dask_tasks, "joined_remap", lambda firsts, seconds: _dask_tasks.NO_MAP)
    labels, n = dask.compute(*glccl.dask.label(array, connectivity=4), scheduler="threads")
    reference, count = scipy_labels(image, 4)
    assert count == 1 and n > 1
    assert not np.array_equal(labels, reference)


def test_graph_spreads_the_work(monkeypatch):
    """Task names readable by Dask's diagnostics; a merge task per pair of
    boxes; no task with more than eight inputs; each merge sees faces of
    at most a plane of the array."""
    from dask.utils import key_split

    volume = random_image((12, 15, 18), 0.3, 4)
    array = da.from_array(volume, chunks=(3, 5, 6))
    sizes = []
    merge = _dask_tasks.merge

    def recording(low, high, axis, spec):
        sizes.append(max(plane.size for plane, _ in list(low.values()) + list(high.values())))
        return merge(low, high, axis, spec)

    monkeypatch.setattr(_dask_tasks, "merge", recording)
    labels, n, table = glccl.dask.label(array, connectivity=26, return_table=True)
    graph = dict(dask.base.collections_to_dsk([labels, n, table], optimize_graph=False))
    names = {key_split(key) for key in graph}
    assert {"glccl-label", "glccl-merge", "glccl-relabel", "glccl-resolve", "glccl-rank-up", "glccl-table"} <= names
    merges = [key for key in graph if key_split(key) == "glccl-merge"]
    assert len(merges) == array.npartitions - 1
    assert max(len(dask.core.get_dependencies(graph, key)) for key in graph) <= 8
    computed = dask.compute(labels, n, scheduler="sync")
    assert len(sizes) == array.npartitions - 1 and max(sizes) <= 15 * 18
    np.testing.assert_array_equal(computed[0], scipy_labels(volume, 26)[0])


def test_lazy_until_computed():
    def fail(block):
        raise RuntimeError("computed")

    array = da.zeros((8, 8), np.uint8, chunks=4).map_blocks(fail, dtype=np.uint8)
    labels, n = glccl.dask.label(array)
    with pytest.raises(RuntimeError, match="computed"):
        n.compute(scheduler="threads")


# ---- dtypes, errors ---------------------------------------------------------------------------------------

def test_label_dtype():
    array = da.from_array(random_image((9, 9), 0.5, 1), chunks=4)
    labels, _ = glccl.dask.label(array, dtype="uint64")
    assert labels.dtype == np.uint64 and labels.compute(scheduler="threads").dtype == np.uint64
    assert glccl.dask.label(array)[0].dtype == np.uint32
    assert glccl.dask.label(da.zeros((2**16, 2**16 + 1), bool, chunks=2**14))[0].dtype == np.uint64


@pytest.mark.parametrize("call,error,text", [
    (lambda: glccl.dask.label(np.ones((4, 4))), TypeError, "must be a dask.array.Array"),
    (lambda: glccl.dask.label(da.ones(5, chunks=2)), ValueError, "got 1-D"),
    (lambda: glccl.dask.label(da.ones((2, 2, 2, 2), chunks=1)), ValueError, "got 4-D"),
    (lambda: glccl.dask.label(da.ones((4, 4), dtype=np.complex64, chunks=2)), TypeError, "complex"),
    (lambda: glccl.dask.label(da.ones((4, 4, 4), chunks=2), connectivity=4), ValueError, "connectivity"),
    (lambda: glccl.dask.label(da.ones((4, 4), chunks=2), connectivity=5), ValueError, "connectivity"),
    (lambda: glccl.dask.label(da.ones((4, 4), chunks=2), criterion="nearby"), ValueError, "criterion"),
    (lambda: glccl.dask.label(da.ones((4, 4), chunks=2), backend="gpu"), ValueError, "backend"),
    (lambda: glccl.dask.label(da.ones((4, 4), chunks=2), structure=None), TypeError, "structure"),
    (lambda: glccl.dask.label(da.ones((0, 4), chunks=2)), ValueError, "empty"),
])
def test_wrong_input(call, error, text):
    with pytest.raises(error, match=r"^glccl\.dask\.label\(\)") as raised:
        call()
    assert text in str(raised.value)


def test_bad_values_are_refused_when_computed():
    array = da.from_array(np.array([[0, 1], [-1, 1]], np.int16), chunks=1)
    labels, n = glccl.dask.label(array)
    with pytest.raises(ValueError, match="not an unsigned integer"):
        dask.compute(labels, n, scheduler="threads")


# ---- dask-image's call, Zarr --------------------------------------------------------------------------------

def test_ndmeasure_label_as_dask_image_calls_it():
    from glccl.dask.ndmeasure import label

    volume = random_image((8, 9, 10), 0.4, 11)
    array = da.from_array(volume, chunks=(3, 4, 5))
    for structure in (None, ndimage.generate_binary_structure(3, 2), np.ones((3, 3, 3), bool)):
        labels, num_features = label(array, structure)
        assert isinstance(labels, da.Array) and isinstance(num_features, da.Array)
        labels, num_features = dask.compute(labels, num_features, scheduler="threads")
        expected, count = ndimage.label(volume, structure)
        assert labels.dtype == expected.dtype == np.int32
        np.testing.assert_array_equal(labels, expected)
        assert num_features == count and num_features.dtype == np.int32
    labels, count = label(np.array([1, 1, 0, 1]))
    np.testing.assert_array_equal(labels.compute(scheduler="threads"), [1, 1, 0, 2])
    with pytest.raises(ValueError, match="structure"):
        label(array, np.ones((3, 3, 3), bool) & (np.arange(3) != 1))
    assert importlib.import_module("glccl.dask.ndmeasure").label is label


def test_zarr_round_trip(tmp_path):
    zarr = pytest.importorskip("zarr", reason="zarr cannot be imported; tools/install-deps.sh installs python3-zarr")
    volume = random_image((14, 15, 16), 0.35, 12)
    source = zarr.open(str(tmp_path / "volume.zarr"), mode="w", shape=volume.shape, chunks=(5, 6, 7),
                       dtype=volume.dtype)
    source[:] = volume
    labels, n = glccl.dask.label(da.from_zarr(str(tmp_path / "volume.zarr")), connectivity=6)
    stored = labels.to_zarr(str(tmp_path / "labels.zarr"), compute=False)
    _, n = dask.compute(stored, n, scheduler="threads")
    written = zarr.open(str(tmp_path / "labels.zarr"), mode="r")
    assert written.chunks == (5, 6, 7) and written.dtype == np.uint32
    expected, count = scipy_labels(volume, 6)
    np.testing.assert_array_equal(written[:], expected)
    assert n == count
    with dask.config.set(scheduler="threads"):
        assert glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), str(tmp_path / "again.zarr"), 6) == count
    np.testing.assert_array_equal(zarr.open(str(tmp_path / "again.zarr"), mode="r")[:], expected)


def test_zarr_example(tmp_path):
    """python/examples/dask_zarr_volume.py (the example of docs/python.md),
    small: its labels are scipy's and its picture is written."""
    zarr = pytest.importorskip("zarr", reason="zarr cannot be imported; tools/install-deps.sh installs python3-zarr")
    pytest.importorskip("matplotlib", reason="matplotlib cannot be imported (python3-matplotlib)")
    path = pathlib.Path(__file__).resolve().parents[2] / "python" / "examples" / "dask_zarr_volume.py"
    spec = importlib.util.spec_from_file_location("dask_zarr_volume", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    with dask.config.set(scheduler="threads"):
        n, cells, labels, picture = example.main(str(tmp_path), shape=(24, 70, 90), chunks=32)
    expected, count = scipy_labels(zarr.open(cells, mode="r")[:], 6)
    assert n == count > 10
    np.testing.assert_array_equal(zarr.open(labels, mode="r")[:], expected)
    assert pathlib.Path(picture).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---- label_zarr: refused or all written, never half ------------------------------------------------------

def zarr_module():
    return pytest.importorskip("zarr", reason="zarr cannot be imported; tools/install-deps.sh installs python3-zarr")


def files(path):
    """Every file under `path` (or the file itself), relative path -> bytes;
    None where nothing is there."""
    path = pathlib.Path(path)
    if not path.exists() and not path.is_symlink():
        return None
    if not path.is_dir():
        return {".": path.read_bytes()}
    return {str(item.relative_to(path)): item.read_bytes() for item in sorted(path.rglob("*")) if item.is_file()}


def stored_volume(zarr, path, seed=12, shape=(14, 15, 16), chunks=(5, 6, 7), density=0.35):
    volume = random_image(shape, density, seed)
    array = zarr.open(str(path), mode="w", shape=volume.shape, chunks=chunks, dtype=volume.dtype)
    array[:] = volume
    return volume


def fenced(tmp_path):
    """A folder of the test's, with what else lies there (to see nothing
    is left beside a target)."""
    (tmp_path / "out").mkdir()
    return tmp_path / "out"


def test_label_zarr_refuses_an_existing_target_without_overwrite(tmp_path):
    zarr = zarr_module()
    stored_volume(zarr, tmp_path / "volume.zarr")
    old = zarr.open(str(tmp_path / "old.zarr"), mode="w", shape=(14, 15, 16), chunks=(5, 6, 7), dtype=np.uint8)
    old[:] = 5
    zarr.open_group(str(tmp_path / "group.zarr"), mode="w").zeros("a", shape=(2, 2))
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "keep.txt").write_text("mine")
    for target in (str(tmp_path / "old.zarr"), tmp_path / "old.zarr", old, str(tmp_path / "group.zarr"),
                   str(tmp_path / "notes")):
        before = {name: files(tmp_path / name) for name in ("old.zarr", "group.zarr", "notes")}
        with pytest.raises(ValueError, match=r"^glccl\.dask\.label_zarr\(\): target .*(overwrite=True|no Zarr)"):
            glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), target, 6)
        assert {name: files(tmp_path / name) for name in before} == before
    # overwrite=True replaces a Zarr array or group, never a folder of other files
    with pytest.raises(ValueError, match=r"^glccl\.dask\.label_zarr\(\): target .*no Zarr array or group"):
        glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), str(tmp_path / "notes"), 6, overwrite=True)
    assert (tmp_path / "notes" / "keep.txt").read_text() == "mine"


def test_label_zarr_overwrite_replaces_and_never_wraps(tmp_path):
    """A path's array is replaced by the labels' own; a zarr.Array keeps its
    chunks and dtype, which must hold the count: a uint8 one cannot hold
    more than 255 labels (OverflowError, nothing written)."""
    zarr = zarr_module()
    volume = stored_volume(zarr, tmp_path / "volume.zarr", shape=(20, 30, 30), chunks=(7, 8, 9), density=0.3)
    expected, count = scipy_labels(volume, 6)
    assert count > 255
    narrow = zarr.open(str(tmp_path / "narrow.zarr"), mode="w", shape=volume.shape, chunks=(7, 8, 9), dtype=np.uint8)
    narrow[:] = 5
    before = files(tmp_path / "narrow.zarr")
    with dask.config.set(scheduler="threads"):
        with pytest.raises(OverflowError, match=f"{count} components do not fit dtype uint8"):
            glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), narrow, 6, overwrite=True)
        assert files(tmp_path / "narrow.zarr") == before
        assert sorted(path.name for path in tmp_path.iterdir()) == ["narrow.zarr", "volume.zarr"]
        # a path: the array there is replaced by the labels' (uint32, the source's chunks)
        assert glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), str(tmp_path / "narrow.zarr"), 6,
                                     overwrite=True) == count
        written = zarr.open(str(tmp_path / "narrow.zarr"), mode="r")
        assert written.dtype == np.uint32 and written.chunks == (7, 8, 9)
        np.testing.assert_array_equal(written[:], expected)
        # a zarr.Array of another chunking and a signed dtype: written in them
        wide = zarr.open(str(tmp_path / "wide.zarr"), mode="w", shape=volume.shape, chunks=(4, 30, 11), dtype=np.int32)
        assert glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), wide, 6, overwrite=True) == count
        reread = zarr.open(str(tmp_path / "wide.zarr"), mode="r")
        assert reread.dtype == np.int32 and reread.chunks == (4, 30, 11)
        np.testing.assert_array_equal(reread[:], expected)
        np.testing.assert_array_equal(wide[:], expected)


@pytest.mark.parametrize("overwrite", [False, True])
def test_label_zarr_refuses_its_source_as_target(tmp_path, overwrite):
    """The source by its own path, another path, a symlink, a zarr.Array of
    it, a Dask array read from it, the group that holds it, or a path inside
    it: refused, and the source's bytes unchanged."""
    zarr = zarr_module()
    group = zarr.open_group(str(tmp_path / "data.zarr"), mode="w")
    volume = random_image((10, 11, 12), 0.4, 3)
    group.array("volume", volume, chunks=(4, 5, 6))
    source = tmp_path / "data.zarr" / "volume"
    (tmp_path / "link.zarr").symlink_to(source, target_is_directory=True)
    before = files(tmp_path / "data.zarr")
    cases = [(str(source), str(source)), (str(source), str(tmp_path / "data.zarr" / "." / "volume")),
             (str(source), str(tmp_path / "link.zarr")), (str(tmp_path / "link.zarr"), source),
             (str(source), zarr.open(str(source), mode="r+")), (zarr.open(str(source), mode="r"), str(source)),
             (da.from_zarr(str(source)), str(tmp_path / "link.zarr")),
             (str(source), str(tmp_path / "data.zarr")), (str(source), str(source / "labels"))]
    for src, target in cases:
        with pytest.raises(ValueError, match=r"^glccl\.dask\.label_zarr\(\): .*the source"):
            glccl.dask.label_zarr(src, target, 6, overwrite=overwrite)
        assert files(tmp_path / "data.zarr") == before
    with dask.config.set(scheduler="threads"):
        assert glccl.dask.label_zarr(str(tmp_path / "link.zarr"), str(tmp_path / "labels.zarr"), 6) == \
            scipy_labels(volume, 6)[1]


class FailingStore(dict):
    """A Zarr store in memory whose chunk `fail` raises `error` when read,
    or, for error None, sends this process SIGINT (Ctrl-C) as it is read."""

    def __init__(self, fail, error):
        super().__init__()
        self.fail, self.error = fail, error

    def __getitem__(self, key):
        if key == self.fail:
            if self.error is None:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.5)
            else:
                raise self.error
        return super().__getitem__(key)


@pytest.mark.parametrize("scheduler", ["sync", "threads"])
@pytest.mark.parametrize("failure", ["source chunk", "relabel", "interrupt", "ctrl-c"])
@pytest.mark.parametrize("existing", [False, True])
def test_label_zarr_failing_leaves_the_target_as_it_was(tmp_path, monkeypatch, scheduler, failure, existing):
    """A labeling that fails while computing (a chunk that cannot be read, a
    task that raises, Ctrl-C in a task) writes nothing: an earlier target
    keeps every byte, a new one does not appear, nothing is left beside
    it; the same call then succeeds."""
    zarr = zarr_module()
    volume = random_image((12, 13, 14), 0.4, 21)
    store = FailingStore("1.1.1" if failure in ("source chunk", "ctrl-c") else None,
                         None if failure == "ctrl-c" else OSError("disk gone"))
    source = zarr.open_array(store, mode="w", shape=volume.shape, chunks=(4, 5, 6), dtype=volume.dtype)
    source[:] = volume
    out = fenced(tmp_path)
    target = out / "labels.zarr"
    if existing:
        earlier = zarr.open(str(target), mode="w", shape=(3, 4), chunks=(2, 2), dtype=np.uint16)
        earlier[:] = 7
    before, listing = files(target), sorted(path.name for path in out.iterdir())
    relabel = _dask_tasks.relabel
    calls = []

    def failing(*args):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt if failure == "interrupt" else RuntimeError("a task failed")
        return relabel(*args)

    if failure in ("relabel", "interrupt"):
        monkeypatch.setattr(_dask_tasks, "relabel", failing)
    error = {"source chunk": OSError, "relabel": RuntimeError, "interrupt": KeyboardInterrupt,
             "ctrl-c": KeyboardInterrupt}[failure]
    with dask.config.set(scheduler=scheduler), pytest.raises(error):
        glccl.dask.label_zarr(source, str(target), 6, overwrite=existing)
    assert files(target) == before
    assert sorted(path.name for path in out.iterdir()) == listing
    monkeypatch.setattr(_dask_tasks, "relabel", relabel)
    store.fail = None
    with dask.config.set(scheduler=scheduler):
        n = glccl.dask.label_zarr(source, str(target), 6, overwrite=existing)
    expected, count = scipy_labels(volume, 6)
    assert n == count
    np.testing.assert_array_equal(zarr.open(str(target), mode="r")[:], expected)
    assert sorted(path.name for path in out.iterdir()) == ["labels.zarr"]


def test_label_zarr_failing_waits_for_the_writes_under_way(tmp_path, monkeypatch):
    """A chunk still being written when another task fails is waited for,
    and chunks that come after are refused: nothing is left beside the
    target once the call has raised."""
    zarr = zarr_module()
    stored_volume(zarr, tmp_path / "volume.zarr")
    out = fenced(tmp_path)
    writing = threading.Event()
    write = zarr.storage.DirectoryStore.__setitem__

    def slow(store, key, value):
        if not key.rpartition("/")[2].startswith("."):
            writing.set()
            time.sleep(0.5)
        write(store, key, value)

    relabel, calls = _dask_tasks.relabel, []

    def failing(*args):
        calls.append(1)
        if len(calls) == 2:
            writing.wait(10)
            raise RuntimeError("a task failed")
        return relabel(*args)

    monkeypatch.setattr(zarr.storage.DirectoryStore, "__setitem__", slow)
    monkeypatch.setattr(_dask_tasks, "relabel", failing)
    with dask.config.set(scheduler="threads", num_workers=4), pytest.raises(RuntimeError, match="a task failed"):
        glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), str(out / "labels.zarr"), 6)
    time.sleep(1.5)
    assert list(out.iterdir()) == []


def test_label_zarr_into_a_store_in_memory(tmp_path, monkeypatch):
    """A store that is no folder (zarr.MemoryStore): the store itself (its
    root array replaced) and a zarr.Array in a group of it (written in its
    chunks and dtype), each replaced only when every chunk is written."""
    zarr = zarr_module()
    volume = stored_volume(zarr, tmp_path / "volume.zarr")
    expected, count = scipy_labels(volume, 6)
    for path in ("", "group/labels"):
        store = zarr.MemoryStore()
        shape = (2, 2) if not path else volume.shape
        earlier = zarr.open_array(store, path=path, mode="w", shape=shape, chunks=(2, 2, 3)[:len(shape)],
                                  dtype=np.int64)
        earlier[:] = 9
        target = store if not path else earlier
        keys = {key: bytes(store[key]) for key in store.keys()}
        with dask.config.set(scheduler="threads"):
            with pytest.raises(ValueError, match="overwrite=True"):
                glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), target, 6)
            monkeypatch.setattr(_dask_tasks, "relabel", lambda *args: (_ for _ in ()).throw(RuntimeError("failed")))
            with pytest.raises(RuntimeError, match="failed"):
                glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), target, 6, overwrite=True)
            assert {key: bytes(store[key]) for key in store.keys()} == keys
            monkeypatch.undo()
            assert glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), target, 6, overwrite=True) == count
        written = zarr.open_array(store, path=path, mode="r")
        assert written.dtype == (np.uint32 if not path else np.int64)
        np.testing.assert_array_equal(written[:], expected)
        assert not [key for key in store.keys() if "glccl" in key]
        assert not [name for name in zarr.storage.listdir(store, path.rpartition("/")[0]) if "glccl" in name]


def test_label_zarr_says_what_it_expected(tmp_path):
    zarr = zarr_module()
    stored_volume(zarr, tmp_path / "volume.zarr")
    (tmp_path / "afile").write_text("mine")
    flat = zarr.open(str(tmp_path / "flat.zarr"), mode="w", shape=(3, 3), dtype=np.uint32)
    floats = zarr.open(str(tmp_path / "floats.zarr"), mode="w", shape=(14, 15, 16), dtype=np.float32)
    zarr.open_group(str(tmp_path / "group.zarr"), mode="w")
    source = str(tmp_path / "volume.zarr")
    cases = [
        (lambda: glccl.dask.label_zarr(source, str(tmp_path / "afile"), 6), ValueError, "is a file"),
        (lambda: glccl.dask.label_zarr(source, str(tmp_path / "afile"), 6, overwrite=True), ValueError, "is a file"),
        (lambda: glccl.dask.label_zarr(source, flat, 6, overwrite=True), ValueError, "(3, 3)"),
        (lambda: glccl.dask.label_zarr(source, floats, 6, overwrite=True), TypeError, "float32"),
        (lambda: glccl.dask.label_zarr(source, 42, 6), TypeError, "target must be"),
        (lambda: glccl.dask.label_zarr(source, str(tmp_path / "o.zip"), 6), ValueError, "zip"),
        (lambda: glccl.dask.label_zarr(source, zarr.open(str(tmp_path / "flat.zarr"), mode="r"), 6, overwrite=True),
         ValueError, "read-only"),
        (lambda: glccl.dask.label_zarr(source, str(tmp_path / "o.zarr"), 6, dtype="int8"), ValueError, "dtype"),
        (lambda: glccl.dask.label_zarr(str(tmp_path / "missing.zarr"), str(tmp_path / "o.zarr")), ValueError,
         "no Zarr array"),
        (lambda: glccl.dask.label_zarr(str(tmp_path / "afile"), str(tmp_path / "o.zarr")), ValueError, "no Zarr array"),
        (lambda: glccl.dask.label_zarr(str(tmp_path / "group.zarr"), str(tmp_path / "o.zarr")), ValueError, "group"),
        (lambda: glccl.dask.label_zarr(3.5, str(tmp_path / "o.zarr")), TypeError, "source must be"),
        (lambda: glccl.dask.label_zarr(source, str(tmp_path / "o.zarr"), 4), ValueError, "connectivity"),
    ]
    for call, error, text in cases:
        with pytest.raises(error, match=r"^glccl\.dask\.label_zarr\(\)") as raised:
            call()
        assert text in str(raised.value), str(raised.value)
    assert (tmp_path / "afile").read_text() == "mine"
    assert not (tmp_path / "o.zarr").exists() and not (tmp_path / "o.zip").exists()


def test_label_zarr_failing_removes_the_folders_it_made(tmp_path, monkeypatch):
    zarr = zarr_module()
    stored_volume(zarr, tmp_path / "volume.zarr")
    out = fenced(tmp_path)
    monkeypatch.setattr(_dask_tasks, "relabel", lambda *args: (_ for _ in ()).throw(RuntimeError("failed")))
    with dask.config.set(scheduler="threads"), pytest.raises(RuntimeError, match="failed"):
        glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), str(out / "a" / "b" / "labels.zarr"), 6)
    assert list(out.iterdir()) == []

def test_label_zarr_on_a_cluster(tmp_path, cluster):
    """The partial array's store goes to the worker processes and back
    into place; an existing target replaced, a failing run leaves it."""
    zarr = zarr_module()
    volume = stored_volume(zarr, tmp_path / "volume.zarr")
    expected, count = scipy_labels(volume, 6)
    target = str(tmp_path / "labels.zarr")
    with dask.config.set(scheduler=cluster):
        assert glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), target, 6) == count
        np.testing.assert_array_equal(zarr.open(target, mode="r")[:], expected)
        before = files(target)
        broken = da.from_zarr(str(tmp_path / "volume.zarr")).map_blocks(
            lambda block: block if block.shape[0] == 5 else block.astype(np.int8) - 1, dtype=np.int8)
        with pytest.raises(ValueError, match="is not an unsigned integer"):
            glccl.dask.label_zarr(broken, target, 6, overwrite=True)
        assert files(target) == before
        assert sorted(path.name for path in tmp_path.iterdir()) == ["labels.zarr", "volume.zarr"]
        assert glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), target, 26, overwrite=True) == \
            scipy_labels(volume, 26)[1]
    np.testing.assert_array_equal(zarr.open(target, mode="r")[:], scipy_labels(volume, 26)[0])


def test_label_zarr_into_a_new_empty_array_needs_no_overwrite(tmp_path):
    """A zarr.Array made to take the labels, no chunk written yet, is
    written without overwrite=True; one holding data still needs it."""
    zarr = zarr_module()
    volume = stored_volume(zarr, tmp_path / "volume.zarr")
    expected, count = scipy_labels(volume, 6)
    target = zarr.open_array(str(tmp_path / "labels.zarr"), mode="w", shape=volume.shape, chunks=(3, 4, 5), dtype="u2")
    target.attrs["kept"] = 1
    with dask.config.set(scheduler="threads"):
        assert glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), target, 6) == count
        written = zarr.open_array(str(tmp_path / "labels.zarr"), mode="r")
        np.testing.assert_array_equal(written[:], expected)
        assert written.dtype == np.uint16 and written.chunks == (3, 4, 5) and written.attrs["kept"] == 1
        with pytest.raises(ValueError, match="overwrite=True"):
            glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), zarr.open_array(str(tmp_path / "labels.zarr"),
                                                                                 mode="r+"), 6)


def test_label_zarr_under_a_default_client(tmp_path, cluster):
    """With a dask.distributed Client as the default (as `with Client(...):`
    makes it), a folder target is written by the worker processes."""
    zarr = zarr_module()
    volume = stored_volume(zarr, tmp_path / "volume.zarr")
    expected, count = scipy_labels(volume, 6)
    target = str(tmp_path / "labels.zarr")
    distributed = pytest.importorskip("distributed")
    with distributed.Client(cluster.cluster):  # set as the default, as the docs' example does
        assert glccl.dask.label_zarr(str(tmp_path / "volume.zarr"), target, 6) == count
    np.testing.assert_array_equal(zarr.open(target, mode="r")[:], expected)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["labels.zarr", "volume.zarr"]


@pytest.mark.parametrize("image, chunks, options, place", [
    (np.array([[0, 1, 0, 0], [1, 1, 0, -1], [0, 0, 0, 0]], np.int16), (2, 2), {}, "[1, 3]"),
    (np.array([[0, 1, 0], [1, 1, 0], [0, 0, np.nan]], np.float32), 1, {}, "[2, 2]"),
    (np.array([[0, 3], [0, 1], [0.5, 0]], np.float64), (2, 1), {"criterion": "segments"}, "[2, 0]"),
    (np.pad(np.array([[[-2]]], np.int64), ((3, 0), (1, 2), (4, 0))), (2, 2, 3), {"connectivity": 26},
     "[3, 1, 4]"),
    (np.pad(np.array([[[0, -7, 0]]], np.int8), ((2, 0), (3, 0), (0, 0))), (2, 2, 3),
     {"criterion": ("threshold", 1), "channel_axis": -1}, "[2, 3, 1]"),
])
def test_bad_values_are_placed_in_the_whole_array(image, chunks, options, place):
    """A chunk's value glccl does not take is reported at its place in the
    whole array (glccl.label's own place on the whole array), not in the
    chunk."""
    whole = None
    try:
        glccl.label(image, **options)
    except ValueError as error:
        whole = str(error)
    assert whole is not None and f" at {place} " in whole
    labels, n = glccl.dask.label(da.from_array(image, chunks=chunks), **options)
    with pytest.raises(ValueError) as raised:
        dask.compute(labels, n, scheduler="sync")
    assert str(raised.value) == whole.replace("glccl.label()", "glccl.dask.label()")


# ---- without Dask -----------------------------------------------------------------------------------------

def test_without_dask_glccl_imports_and_glccl_dask_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.array", None)
    monkeypatch.delitem(sys.modules, "glccl.dask")
    with pytest.raises(ImportError, match="python3-dask") as error:
        importlib.import_module("glccl.dask")
    assert "python3-distributed" in str(error.value) and "python3-zarr" in str(error.value)
    code = """
        import sys
        sys.modules["dask"] = None
        import glccl, numpy
        print(glccl.label(numpy.eye(3, dtype=bool))[1])
    """
    environment = dict(os.environ, PYTHONPATH=str(pathlib.Path(glccl.__file__).resolve().parents[1]))
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            timeout=120, cwd="/", env=environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1"


def test_gpu_cluster_gives_each_worker_its_own_device():
    # Named devices, whether or not this machine has them: each worker
    # process starts with only its own visible, and labels exactly.
    distributed = pytest.importorskip("distributed", reason="dask.distributed cannot be imported (python3-distributed)")
    with glccl.dask.gpu_cluster(gpus=[0, 1], threads_per_worker=1) as local:
        with distributed.Client(local, set_as_default=False) as client:
            seen = client.run(lambda: os.environ.get("CUDA_VISIBLE_DEVICES"))
            assert sorted(seen.values()) == ["0", "1"]
            volume = (np.random.default_rng(5).random((24, 30, 28)) < 0.35).astype(np.uint8)
            labels, n = glccl.dask.label(da.from_array(volume, chunks=(7, 11, 9)), 26)
            labels, n = client.compute([labels, n], sync=True)
            want, want_n = scipy_labels(volume, 26)
            assert n == want_n
            np.testing.assert_array_equal(labels, want)


@pytest.mark.parametrize("gpus, threads", [([0, 0], 1), ([-1], 1), ([], 1), ([0], 0)])
def test_gpu_cluster_refuses_bad_arguments(gpus, threads):
    with pytest.raises(ValueError):
        glccl.dask.gpu_cluster(gpus=gpus, threads_per_worker=threads)
