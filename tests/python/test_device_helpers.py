"""The helpers (relabel, remove_small, keep_largest, find_objects) on device
arrays, CuPy arrays and torch CUDA tensors of every dtype they take, in 1-D,
2-D and 3-D: each result equals the host helper's on the same labels AND a
reference computed here without glccl (np.unique's counts and first
indices, scipy's and cupyx's find_objects, skimage.morphology.
remove_small_objects), and comes back as an array of the labels' kind,
dtype and device. Run where CuPy or torch sees a GPU and the cuda backend
runs (bench/device-helpers-check.sh on the GPU machine); skipped with the
reason elsewhere. The refusals that need no GPU (dtypes, arguments, a
module without CUDA, no device) run everywhere, on stand-in objects."""

import warnings

import numpy as np
import pytest
from scipy import ndimage
from skimage import morphology

import glccl
from device_support import CUDA_RUNS, cupy, cupyx_ndimage, needs_cupy, needs_torch, torch, torch_dtype
from references import as_is, at_least, largest, numbered, present, skimage_removes_fewer_than_min_size

DTYPES = ["int32", "uint32", "int64", "uint64"]
SHAPES = [(1,), (1000,), (1, 1), (37, 101), (300, 1), (1, 300), (256, 256), (1, 1, 1), (20, 30, 40), (5, 1, 70)]
HELPERS = ("relabel", "remove_small", "keep_largest", "find_objects")


class StandIn:
    """An object that claims to be a device array, for the paths that must
    refuse it before touching its memory."""

    def __init__(self, typestr="<i4", shape=(4, 4)):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0, False),
                                         "strides": None, "version": 3}


def call(helper, labels):
    return {"relabel": lambda: glccl.relabel(labels), "remove_small": lambda: glccl.remove_small(labels, 2),
            "keep_largest": lambda: glccl.keep_largest(labels, 2),
            "find_objects": lambda: glccl.find_objects(labels)}[helper]()


# ---- the references, without glccl -----------------------------------------------------------

def labelings(rng, shape):
    """(what, labels): a labeling of a random mask (raster order), the same
    with every third label left (gaps), and with its labels given other
    values in random order (neither raster order nor dense)."""
    labels, n = ndimage.label(rng.random(shape) < 0.4, structure=np.ones((3,) * len(shape)))
    yield "raster order", labels
    yield "gaps", np.where(labels % 3 == 1, labels, 0)
    values = np.concatenate(([0], rng.permutation(n) * 7 + 5))
    yield "not in raster order", values[labels]


# ---- refused everywhere -------------------------------------------------------------------------

@pytest.mark.skipif(glccl.built_with_cuda, reason="this glccl is built with CUDA")
@pytest.mark.parametrize("helper", HELPERS)
def test_build_without_cuda_says_so(helper):
    with pytest.raises(TypeError, match="without CUDA"):
        call(helper, StandIn())


@pytest.mark.skipif(not glccl.built_with_cuda, reason="this glccl is built without CUDA")
@pytest.mark.parametrize("helper", HELPERS)
@pytest.mark.parametrize("typestr, words", [
    ("|u1", r"device labels must be int32, uint32, int64 or uint64, not uint8"),
    ("<i2", r"device labels must be int32, uint32, int64 or uint64, not int16"),
    ("<u2", r"not uint16; convert them on the device first"),
    (">i4", r"not big-endian int32"),
    ("<f4", r"labels must be an array of an integer dtype, not float32"),
    ("|b1", r"labels must be an array of an integer dtype, not bool"),
])
def test_device_dtypes_not_taken(helper, typestr, words):
    with pytest.raises(TypeError, match=rf"^glccl\.{helper}\(\): .*{words}"):
        call(helper, StandIn(typestr))


@pytest.mark.parametrize("standin", [StandIn("<i8"), StandIn("<u2")])
def test_device_keep_largest_refuses_negative_k(standin):
    # Checked before the labels are read: the host's ValueError, in any build.
    with pytest.raises(ValueError, match=r"^glccl\.keep_largest\(\): k must be 0 or more, not -1"):
        glccl.keep_largest(standin, -1)


@pytest.mark.skipif(not glccl.built_with_cuda or CUDA_RUNS, reason="needs a CUDA build where the cuda backend cannot run")
@pytest.mark.parametrize("helper", HELPERS)
def test_no_cuda_device_is_runtime_error(helper):
    with pytest.raises(RuntimeError, match=r"filtered with CUDA, which cannot run here"):
        call(helper, StandIn("<u4"))


def test_host_arrays_stay_on_the_host():
    # A numpy array never reaches the device entries, in any build.
    labels = np.array([[0, 5, 5], [2, 0, 5]], np.int16)
    relabeled, m = glccl.relabel(labels)
    assert type(relabeled) is np.ndarray and relabeled.dtype == np.int16 and m == 2
    np.testing.assert_array_equal(relabeled, [[0, 1, 1], [2, 0, 1]])


def check_host_result(result, want):
    out, m = result
    assert type(out) is np.ndarray and out.dtype == want[0].dtype and type(m) is int
    np.testing.assert_array_equal(out, want[0])
    assert m == want[1]


@pytest.mark.parametrize("dtype", DTYPES + ["int16", "uint8"])
def test_host_helpers_match_the_references(dtype):
    # The same comparisons as on the device, with numpy arrays on both sides:
    # the host helpers against the references the device tests use.
    rng = np.random.default_rng(40)
    for shape in SHAPES + [(0,), (0, 5)]:
        for what, labels in labelings(rng, shape):
            if labels.max(initial=0) > np.iinfo(dtype).max:
                continue
            host = labels.astype(dtype)
            check_every_helper(host, host, check_host_result, f"{dtype} {shape} {what}")


def test_host_find_objects_of_one_element_and_many_labels():
    # A 0-d array has one element, whose box has no axes; a labeling of
    # many labels goes through the same table of slices as a small one.
    for value in (0, 1, 3):
        for max_label in (0, 2, 5):
            assert glccl.find_objects(np.array(value, np.int32), max_label) == \
                ndimage.find_objects(np.array(value, np.int32), max_label)
    labels, _ = ndimage.label(np.random.default_rng(3).random((300, 400)) < 0.3)
    assert glccl.find_objects(labels) == ndimage.find_objects(labels)


# ---- CuPy ---------------------------------------------------------------------------------------

def check_cupy_result(result, labels, want):
    out, m = result
    assert isinstance(out, cupy.ndarray) and out.dtype == labels.dtype and out.shape == labels.shape
    assert out.device.id == labels.device.id
    assert type(m) is int
    np.testing.assert_array_equal(cupy.asnumpy(out), want[0])
    assert m == want[1]


def check_every_helper(device_labels, host_labels, check_result, case):
    """Each helper on `device_labels` against the host helper on
    `host_labels` (the same values) and against the references; a failure
    names `case`."""
    try:
        check_helpers(device_labels, host_labels, check_result)
    except AssertionError as error:
        raise AssertionError(f"{case}: {error}") from error


def check_helpers(device_labels, host_labels, check_result):
    host = np.asarray(host_labels)
    count = len(present(host)[0])
    check_result(glccl.relabel(device_labels), glccl.relabel(host))
    check_result(glccl.relabel(device_labels), numbered(host, present(host)[0]))
    skimage_rule = skimage_removes_fewer_than_min_size()
    for min_size in (0, 1, 2, 5, host.size + 1):
        kept = at_least(host, min_size)
        for relabel in (True, False):
            result = glccl.remove_small(device_labels, min_size, relabel=relabel)
            check_result(result, glccl.remove_small(host, min_size, relabel=relabel))
            check_result(result, numbered(host, kept) if relabel else as_is(host, kept))
        if skimage_rule and host.size:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "only one label", and deprecations of min_size
                want = morphology.remove_small_objects(host.astype(np.int64), min_size)
            check_result(glccl.remove_small(device_labels, min_size, relabel=False),
                         (want.astype(host.dtype), len(kept)))
    for k in (0, 1, 3, count, count + 5):
        for relabel in (True, False):
            result = glccl.keep_largest(device_labels, k, relabel=relabel)
            check_result(result, glccl.keep_largest(host, k, relabel=relabel))
            check_result(result, numbered(host, largest(host, k)) if relabel else as_is(host, largest(host, k)))
    top = int(host.max()) if host.size else 0
    for max_label in (0, 1, 3, top + 4):
        boxes = glccl.find_objects(device_labels, max_label)
        assert boxes == glccl.find_objects(host, max_label)
        if host.ndim and host.size:
            assert boxes == ndimage.find_objects(host.astype(np.int64), max_label)


@needs_cupy
@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_helpers_match_the_host_and_the_references(dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    for shape in SHAPES:
        for what, labels in labelings(rng, shape):
            host = labels.astype(dtype)
            device = cupy.asarray(host)
            check_every_helper(device, host, lambda result, want: check_cupy_result(result, device, want),
                               f"{dtype} {shape} {what}")


@needs_cupy
def test_cupy_helpers_repeat_identically():
    # The label filters sum counts and keep first elements and boxes with
    # atomics, whose order the GPU chooses: on 30 random labelings of 1 to 3
    # axes, each helper runs 10 times and every repeat must equal the host
    # helper's result.
    rng = np.random.default_rng(11)
    for trial in range(30):
        axes = int(rng.integers(1, 4))
        shape = tuple(int(side) for side in rng.integers(1, [4000, 700, 90][axes - 1], size=axes))
        for what, labels in labelings(rng, shape):
            host = labels.astype(DTYPES[trial % len(DTYPES)])
            device = cupy.asarray(host)
            count = len(np.unique(host)) - (1 if (host == 0).any() else 0)
            want = [glccl.relabel(host), glccl.remove_small(host, 3), glccl.keep_largest(host, max(1, count // 2)),
                    glccl.find_objects(host)]
            for repeat in range(10):
                got = [glccl.relabel(device), glccl.remove_small(device, 3),
                       glccl.keep_largest(device, max(1, count // 2)), glccl.find_objects(device)]
                where = f"trial {trial} {shape} {what}, repeat {repeat}"
                for (out, m), (expected, want_m) in zip(got[:3], want[:3]):
                    assert m == want_m, where
                    np.testing.assert_array_equal(cupy.asnumpy(out), expected, err_msg=where)
                assert got[3] == want[3], where


@needs_cupy
@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_empty_all_background_and_one_label(dtype):
    for shape in ((0,), (0, 5), (3, 0, 4)):
        labels = cupy.zeros(shape, dtype)
        for helper in ("relabel", "remove_small", "keep_largest"):
            out, m = call(helper, labels)
            assert isinstance(out, cupy.ndarray) and out.shape == shape and out.dtype == labels.dtype and m == 0
        assert glccl.find_objects(labels) == []
        assert glccl.find_objects(labels, max_label=3) == [None, None, None]
        assert ndimage.find_objects(np.zeros(shape, np.int64), max_label=3) == [None, None, None]
    for host in (np.zeros((40, 50), dtype), np.full((7, 8, 9), 3, dtype), np.full((1,), 9, dtype)):
        device = cupy.asarray(host)
        check_every_helper(device, host, lambda result, want: check_cupy_result(result, device, want),
                           f"{dtype} {host.shape}")


@needs_cupy
def test_cupy_layouts_and_streams():
    rng = np.random.default_rng(7)
    labels, _ = ndimage.label(rng.random((120, 90)) < 0.4)
    labels = np.concatenate(([0], rng.permutation(labels.max()) + 1))[labels].astype(np.int64)
    device = cupy.asarray(labels)
    for view in (cupy.asfortranarray(device), device[::2, 3:], device[:, ::-1], device.T):
        host = cupy.asnumpy(view)
        out, m = glccl.relabel(view)
        assert out.flags.c_contiguous
        np.testing.assert_array_equal(cupy.asnumpy(out), glccl.relabel(host)[0])
        assert glccl.find_objects(view) == ndimage.find_objects(host)
        if hasattr(cupyx_ndimage, "find_objects"):
            assert glccl.find_objects(view) == cupyx_ndimage.find_objects(view)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        shuffled = cupy.asarray(labels)  # written on this stream, read by glccl after it
        kept, m = glccl.keep_largest(shuffled, 5)
        np.testing.assert_array_equal(cupy.asnumpy(kept), glccl.keep_largest(labels, 5)[0])
        assert m == 5


@needs_cupy
def test_cupy_labels_of_glccl_label_stay_on_the_gpu():
    rng = np.random.default_rng(8)
    mask = rng.random((512, 512)) < 0.45
    labels, n = glccl.label(cupy.asarray(mask))
    kept, m = glccl.remove_small(labels, 64)
    assert isinstance(kept, cupy.ndarray) and kept.dtype == cupy.uint32
    host = cupy.asnumpy(labels)
    np.testing.assert_array_equal(cupy.asnumpy(kept), numbered(host, at_least(host, 64))[0])
    assert m == len(at_least(host, 64))


@needs_cupy
def test_cupy_refusals():
    for helper in HELPERS:
        with pytest.raises(ValueError, match=rf"^glccl\.{helper}\(\): labels must be 0 \(background\) or positive; "
                                             r"the smallest is -3$"):
            call(helper, cupy.asarray(np.array([[0, 2], [-3, -1]], np.int32)))
        with pytest.raises(TypeError, match="int32, uint32, int64 or uint64, not int16"):
            call(helper, cupy.ones((4, 4), cupy.int16))
        with pytest.raises(TypeError, match="integer dtype, not float32"):
            call(helper, cupy.ones((4, 4), cupy.float32))
    # The host helpers' messages for the same negative labels.
    with pytest.raises(ValueError, match=r"the smallest is -3$"):
        glccl.relabel(np.array([[0, 2], [-3, -1]], np.int32))
    huge = cupy.asarray(np.array([0, 1, 2**40, 1], np.uint64))
    for helper in HELPERS:
        with pytest.raises(RuntimeError, match=r"labels up to 1099511627776 need tables .*glccl\.relabel on a host"):
            call(helper, huge)
    assert glccl.find_objects(huge, max_label=1) == [(slice(1, 4),)]
    with pytest.raises(ValueError, match="1 to 32 dimensions, not 0"):
        glccl.find_objects(cupy.asarray(np.int32(3)))


# ---- torch ------------------------------------------------------------------------------------


def torch_to_numpy(tensor, dtype):
    return tensor.to(torch.int64).cpu().numpy().astype(dtype)


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_helpers_match_the_host_and_the_references(dtype):
    wanted = torch_dtype(dtype)
    rng = np.random.default_rng(20 + DTYPES.index(dtype))

    def check_torch_result(result, want, device):
        out, m = result
        assert isinstance(out, torch.Tensor) and out.dtype == wanted and out.device == device.device
        assert tuple(out.shape) == tuple(device.shape) and type(m) is int
        np.testing.assert_array_equal(torch_to_numpy(out, dtype), want[0])
        assert m == want[1]

    for shape in ((1000,), (37, 101), (20, 30, 40), (0, 4)):
        for what, labels in labelings(rng, shape):
            host = labels.astype(dtype)
            device = torch.from_numpy(labels.astype(np.int64)).cuda().to(wanted)
            check_every_helper(device, host, lambda result, want: check_torch_result(result, want, device),
                               f"{dtype} {shape} {what}")


@needs_torch
def test_torch_on_its_own_stream_and_a_strided_view():
    rng = np.random.default_rng(30)
    labels, _ = ndimage.label(rng.random((200, 150)) < 0.4)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        device = torch.from_numpy(labels.astype(np.int64)).cuda(non_blocking=True)
        kept, m = glccl.remove_small(device[::2, 5:], 3)
        want = glccl.remove_small(labels[::2, 5:].astype(np.int64), 3)
        np.testing.assert_array_equal(kept.cpu().numpy(), want[0])
        assert m == want[1]
        assert glccl.find_objects(device.t()) == ndimage.find_objects(labels.T)
