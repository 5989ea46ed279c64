"""The helpers (relabel, remove_small, keep_largest, find_objects, and the
label_extents behind cc3d.statistics) on numpy arrays of every integer
dtype, 0-d to 4-D and empty, against references computed here without
glccl: np.unique's values, first indices and counts,
skimage.segmentation.relabel_sequential, skimage.morphology.
remove_small_objects, scipy.ndimage.find_objects, and np.nonzero boxes.
The labels: labelings in raster order, with gaps, renumbered out of raster
order, and with sparse huge values (the module's hash map beyond its
per-label tables); as C, Fortran, strided, reversed, byte-swapped and
unaligned arrays. Also the refusals, and Ctrl-C during a long call."""

import warnings

import numpy as np
import pytest
from scipy import ndimage
from skimage import morphology, segmentation

import glccl
from glccl import _helpers
from interrupt_support import interrupt_call
from references import as_is, at_least, largest, numbered, present, skimage_removes_fewer_than_min_size

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
SHAPES = [(), (0,), (1,), (57,), (0, 5), (3, 0, 2), (1, 1), (23, 31), (1, 40), (40, 1), (6, 9, 11), (3, 4, 2, 5)]


# ---- the references, without glccl -----------------------------------------------------------

def boxes(labels, max_label=0):
    """scipy's find_objects list, from np.nonzero of each label."""
    labels = np.asarray(labels)
    top = int(max_label) if max_label else int(labels.max(initial=0))
    out = [None] * max(top, 0)
    for value in present(labels)[0]:
        if int(value) <= top:
            where = np.nonzero(labels == value) if labels.ndim else ()  # a 0-d box has no axes
            out[int(value) - 1] = tuple(slice(int(axis.min()), int(axis.max()) + 1) for axis in where)
    return out


def extents(labels, top):
    """label_extents' (counts, lows, highs) from np.nonzero of each label."""
    labels = np.asarray(labels)
    counts = np.zeros(top + 1, np.int64)
    lows = np.full((labels.ndim, top + 1), np.iinfo(np.int64).max, np.int64)
    highs = np.full((labels.ndim, top + 1), -1, np.int64)
    values, sizes = np.unique(labels, return_counts=True)
    for value, size in zip(values, sizes):
        if int(value) <= top:
            counts[value] = size
            for axis, where in enumerate(np.nonzero(labels == value)):
                lows[axis, value], highs[axis, value] = where.min(), where.max()
    return counts, lows, highs


# ---- the labels --------------------------------------------------------------------------------

def labelings(rng, shape, dtype):
    """(what, labels of dtype): a labeling of a random mask (raster order),
    its every third label (gaps), its labels given other values in random
    order, and, where the dtype holds them, huge values mixed with small
    ones (beyond the module's per-label tables)."""
    info = np.iinfo(dtype)
    mask = rng.random(shape) < 0.45
    if mask.ndim:
        labels, n = ndimage.label(mask, structure=np.ones((3,) * mask.ndim))
    else:
        labels, n = mask.astype(np.int64) * 3, int(mask) * 3
    candidates = [("raster order", labels), ("gaps", np.where(labels % 3 == 1, labels, 0))]
    shuffled = np.concatenate(([0], rng.permutation(n) + 1))
    candidates.append(("not in raster order", shuffled[labels]))
    wide = np.concatenate(([0], rng.permutation(n) * 7919 + 60000))  # either side of 2**16
    candidates.append(("wide values", wide[labels]))
    for what, values in candidates:
        if values.max(initial=0) <= info.max:
            yield what, np.asarray(values).astype(dtype)
    if labels.max(initial=0) <= info.max:
        huge = np.zeros(n + 1, dtype)
        huge[1:] = rng.integers(max(info.max // 2, 1), info.max, size=n, endpoint=True, dtype=dtype)
        small = np.asarray(labels).astype(dtype)
        yield "huge values", np.where(small % 2 == 0, huge[labels], small)


def layouts(labels):
    """(what, the same values in another layout)."""
    yield "C", labels
    if labels.ndim >= 2:
        yield "Fortran", np.asfortranarray(labels)
        yield "transposed", np.ascontiguousarray(labels.T).T
    if labels.ndim >= 1 and labels.size:
        reversed_view = np.flip(np.repeat(labels, 2, axis=-1), axis=0)[..., ::2]
        yield "reversed, strided", np.flip(reversed_view, axis=0)
    if labels.dtype.itemsize > 1:
        yield "byte-swapped", labels.astype(labels.dtype.newbyteorder("S"))
        raw = np.zeros(labels.nbytes + 1, np.uint8)
        unaligned = np.frombuffer(raw.data, labels.dtype, labels.size, offset=1).reshape(labels.shape)
        unaligned[...] = labels
        yield "unaligned", unaligned


# ---- checks ------------------------------------------------------------------------------------

def check_result(result, want, what):
    out, m = result
    assert type(out) is np.ndarray and type(m) is int, what
    assert out.dtype == want[0].dtype and out.shape == want[0].shape, what
    np.testing.assert_array_equal(out, want[0], err_msg=str(what))
    assert m == want[1], (what, m, want[1])


def check_helpers(labels, case):
    """Every helper on `labels` against the references on its C-ordered
    values; a failure names `case`."""
    values = np.array(labels, order="C")  # (ascontiguousarray makes a 0-d array 1-d)
    check_result(glccl.relabel(labels), numbered(values, present(values)[0]), (case, "relabel"))
    relabeled = glccl.relabel(labels)[0]
    assert relabeled.flags.c_contiguous, case
    for min_size in (0, 1, 2, 2.5, 5, values.size + 1):
        kept = at_least(values, min_size)
        check_result(glccl.remove_small(labels, min_size), numbered(values, kept), (case, "remove_small", min_size))
        result = glccl.remove_small(labels, min_size, relabel=False)
        check_result(result, as_is(values, kept), (case, "remove_small as is", min_size))
        # Laid out as the labels, as np.where(keep[labels], labels, 0) lays it out.
        assert result[0].flags.c_contiguous or not labels.flags.c_contiguous, (case, "C order")
        assert result[0].flags.f_contiguous or not labels.flags.f_contiguous, (case, "Fortran order")
    count = len(present(values)[0])
    for k in (0, 1, 3, count, count + 4):
        chosen = largest(values, k)
        check_result(glccl.keep_largest(labels, k), numbered(values, chosen), (case, "keep_largest", k))
        check_result(glccl.keep_largest(labels, k, relabel=False), as_is(values, chosen),
                     (case, "keep_largest as is", k))
    top = int(values.max(initial=0))
    for max_label in ([0] if top < 10**6 else []) + [1, 3, top + 2 if top < 10**6 else 1000]:
        assert glccl.find_objects(labels, max_label) == boxes(values, max_label), (case, "find_objects", max_label)
    if values.ndim and top < 10**6:
        counts, lows, highs = _helpers.label_extents(labels, top)
        want = extents(values, top)
        assert counts.dtype == np.int64 and all(low.dtype == np.int64 for low in lows), case
        np.testing.assert_array_equal(counts, want[0], err_msg=str(case))
        np.testing.assert_array_equal(np.array(lows).reshape(want[1].shape), want[1], err_msg=str(case))
        np.testing.assert_array_equal(np.array(highs).reshape(want[2].shape), want[2], err_msg=str(case))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda dtype: np.dtype(dtype).name)
def test_every_helper_against_the_references(dtype):
    rng = np.random.default_rng(np.dtype(dtype).num)
    for shape in SHAPES:
        for what, labels in labelings(rng, shape, dtype):
            for layout, arranged in layouts(labels):
                check_helpers(arranged, f"{np.dtype(dtype).name} {shape} {what}, {layout}")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda dtype: np.dtype(dtype).name)
def test_against_scipy_and_skimage(dtype):
    # Where their rules are glccl's: scipy's find_objects on any labels,
    # relabel_sequential's numbering on labels in raster order (value order
    # is raster order there), remove_small_objects' on any labels.
    rng = np.random.default_rng(7)
    skimage_rule = skimage_removes_fewer_than_min_size()
    for shape in [(1,), (300,), (64, 48), (1, 50), (12, 10, 14)]:
        for what, labels in labelings(rng, shape, dtype):
            wide = labels.astype(np.int64) if labels.max(initial=0) < 2**20 else None
            if wide is None:
                continue
            case = f"{np.dtype(dtype).name} {shape} {what}"
            assert glccl.find_objects(labels) == ndimage.find_objects(wide), case
            assert glccl.find_objects(labels, 4) == ndimage.find_objects(wide, 4), case
            if what in ("raster order", "gaps"):
                want, _, _ = segmentation.relabel_sequential(wide)
                out, m = glccl.relabel(labels)
                np.testing.assert_array_equal(out, want, err_msg=case)
                assert m == int(want.max(initial=0)), case
            if skimage_rule:
                for min_size in (1, 3, 10):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # "only one label", deprecations
                        want = morphology.remove_small_objects(wide, min_size)
                    out, m = glccl.remove_small(labels, min_size, relabel=False)
                    np.testing.assert_array_equal(out, want, err_msg=f"{case} {min_size}")
                    assert m == len(present(want)[0]), case


def test_sparse_labels_beyond_any_table():
    # Labels of 2**40 and up cost one hash-map entry each: a table indexed
    # by label could not be allocated. Thousands of them grow the map.
    rng = np.random.default_rng(5)
    base, n = ndimage.label(rng.random((120, 130)) < 0.5)
    for dtype, low, high in [(np.uint64, 2**63, 2**64 - 1), (np.int64, 2**40, 2**63 - 1), (np.uint32, 2**20, 2**32 - 1)]:
        values = np.concatenate(([0], rng.choice(np.arange(1, 4 * n), n, replace=False).astype(np.uint64)))
        values = (values * ((high - low) // (4 * n))).astype(np.uint64) + np.uint64(low)
        values[0] = 0
        labels = values[base].astype(dtype)
        labels[0, :3] = [1, 2, 0]  # small labels beside them, in the table
        check_helpers(labels, f"{np.dtype(dtype).name} sparse")
        assert len(present(labels)[0]) > 1000


def test_find_objects_of_a_huge_largest_label():
    # Its list would have 2**62 (or 2**63 + 5) entries: a MemoryError, as
    # numpy and scipy give for lists and tables of that size.
    for labels in (np.array([0, 2**62], np.int64), np.array([[2**63 + 5]], np.uint64)):
        with pytest.raises(MemoryError):
            glccl.find_objects(labels)
        assert glccl.find_objects(labels, 2) == [None, None]


def test_zero_dimensional_and_empty():
    for dtype in DTYPES:
        for value in (0, 1, 3):
            labels = np.array(value, dtype)
            out, m = glccl.relabel(labels)
            assert out.shape == () and out.dtype == labels.dtype and int(out) == min(value, 1) and m == min(value, 1)
            for max_label in (0, 2, 5):
                assert glccl.find_objects(labels, max_label) == ndimage.find_objects(labels, max_label)
        empty = np.zeros((0, 4), dtype)
        for result in (glccl.relabel(empty), glccl.remove_small(empty, 3), glccl.keep_largest(empty, 2, False)):
            assert result[0].shape == (0, 4) and result[0].dtype == empty.dtype and result[1] == 0
        assert glccl.find_objects(empty) == [] and glccl.find_objects(empty, 3) == [None] * 3


def test_max_label_rules():
    labels = np.array([[0, 4, 4], [2, 0, 7]], np.uint16)
    assert glccl.find_objects(labels, 4) == ndimage.find_objects(labels, 4)  # 7 left out
    assert glccl.find_objects(labels, 9) == ndimage.find_objects(labels, 9)  # None after 7
    for max_label in (-1, -5, 0, 0.5, True):  # below 1: every label, as scipy takes it
        assert glccl.find_objects(labels, max_label) == ndimage.find_objects(labels, max_label)
    for max_label in (2.5, None, "2"):  # not an int: refused, as by scipy
        with pytest.raises(TypeError):
            ndimage.find_objects(labels, max_label)
        with pytest.raises(TypeError, match="max_label"):
            glccl.find_objects(labels, max_label)


def test_min_size_and_k_as_numpy_compares_them():
    labels = np.array([1, 1, 0, 2, 3, 3, 3], np.int32)
    counts = np.array([0, 2, 1, 3])
    for min_size in (2.5, np.float32(1.5), -3, 2**70, -(2**70), float("nan"), float("inf"), -float("inf"),
                     np.uint64(2**64 - 1), True):
        kept = np.flatnonzero((counts >= min_size)[1:]) + 1
        check_result(glccl.remove_small(labels, min_size, relabel=False), as_is(labels, kept), min_size)
    for k in (2.7, 2**70, np.int8(1)):
        check_result(glccl.keep_largest(labels, k), numbered(labels, largest(labels, int(k))), k)
    with pytest.raises(TypeError, match=r"^glccl\.remove_small\(\): min_size must be a real number, not str"):
        glccl.remove_small(labels, "3")


# ---- refused -----------------------------------------------------------------------------------

CALLS = {"relabel": lambda labels: glccl.relabel(labels),
         "remove_small": lambda labels: glccl.remove_small(labels, 2),
         "keep_largest": lambda labels: glccl.keep_largest(labels, 2),
         "find_objects": lambda labels: glccl.find_objects(labels)}


@pytest.mark.parametrize("helper", sorted(CALLS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, bool, np.complex64])
def test_non_integer_dtypes(helper, dtype):
    labels = np.zeros((3, 3), dtype)
    with pytest.raises(TypeError, match=rf"^glccl\.{helper}\(\): labels must be an array of an integer dtype, "
                                        rf"not {np.dtype(dtype).name}$"):
        CALLS[helper](labels)


@pytest.mark.parametrize("helper", sorted(CALLS))
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_negative_labels(helper, dtype):
    for labels in (np.array([[0, 3, -2], [-7, 1, 1]], dtype), np.array(-1, dtype),
                   np.asfortranarray(np.array([[0, 3], [-7, 1]], dtype)), np.tile(np.array([5, -128], dtype), 700000)):
        smallest = int(labels.min())
        with pytest.raises(ValueError, match=rf"^glccl\.{helper}\(\): labels must be 0 \(background\) or "
                                             rf"positive; the smallest is {smallest}$"):
            CALLS[helper](labels)


def test_negative_labels_before_negative_k():
    with pytest.raises(ValueError, match="the smallest is -2"):
        glccl.keep_largest(np.array([1, -2], np.int16), -1)
    with pytest.raises(ValueError, match=r"k must be 0 or more, not -1"):
        glccl.keep_largest(np.array([1, 2], np.int16), -1)


# ---- long calls --------------------------------------------------------------------------------

INTERRUPTED_SETUP = """
import numpy as np
import glccl
labels = np.broadcast_to(np.array(1, np.uint32), (2**37,))  # one element, read 2**37 times
"""


def test_ctrl_c_interrupts_a_long_pass():
    seconds = interrupt_call(INTERRUPTED_SETUP, "glccl.find_objects(labels)")
    assert seconds < 1.0, f"KeyboardInterrupt came {seconds:.2f} s after SIGINT"


def test_long_calls_on_a_worker_match_the_references():
    # Past 2**20 elements the passes run on a worker thread (the calls
    # Ctrl-C reaches): the same results.
    rng = np.random.default_rng(11)
    labels, _ = ndimage.label(ndimage.uniform_filter(rng.random((80, 120, 130)), 3) > 0.52,
                              structure=np.ones((3, 3, 3)))
    labels = labels.astype(np.uint32)
    assert labels.size > 2**20
    check_result(glccl.relabel(labels[:, ::-1]), numbered(labels[:, ::-1], present(labels)[0]), "relabel")
    kept = at_least(labels, 20)
    check_result(glccl.remove_small(labels, 20), numbered(labels, kept), "remove_small")
    assert glccl.find_objects(np.asfortranarray(labels)) == ndimage.find_objects(labels)
