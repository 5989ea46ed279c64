"""Device arrays (__cuda_array_interface__, CuPy, torch): labeled on the GPU
by the cuda backend, labels returned on the device, for every dtype it takes
(bool and unsigned integers of 8 to 64 bits under every criterion, signed
integers as segment ids and under binary). The CuPy and torch tests run
where they import and the cuda backend runs (skipped with the reason
elsewhere, as in CI); the tests of what is refused run everywhere, on
stand-in objects."""

import numpy as np
import pytest
from skimage import measure

import glccl
from device_support import WHY_NO_TORCH, torch, torch_dtype
from references import AVAILABLE, check_device_labels, random_binary, skimage_labels

try:
    import cupy
    WHY_NO_CUPY = ""
except Exception as error:  # ImportError, or a CuPy that finds no CUDA at import
    cupy = None
    WHY_NO_CUPY = f"CuPy cannot be imported here ({type(error).__name__}: {error})"

CUDA_RUNS = glccl.built_with_cuda and AVAILABLE["cuda"]["available"]
needs_cupy_and_cuda = pytest.mark.skipif(
    cupy is None or not CUDA_RUNS,
    reason=WHY_NO_CUPY or ("this glccl is built without CUDA" if not glccl.built_with_cuda
                           else "the cuda backend cannot run here: " + AVAILABLE["cuda"]["reason"]))


class StandIn:
    """An object that claims to be a device array, for the paths that must
    refuse it before touching its memory."""

    def __init__(self, shape=(4, 4), typestr="|u1", pointer=0):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (pointer, False),
                                         "strides": None, "version": 3}


# ---- refused everywhere -------------------------------------------------------------------

@pytest.mark.skipif(glccl.built_with_cuda, reason="this glccl is built with CUDA")
def test_build_without_cuda_says_so():
    for call in (lambda: glccl.label(StandIn()), lambda: glccl.Labeler().label(StandIn())):
        with pytest.raises(TypeError, match="without CUDA"):
            call()


@pytest.mark.skipif(not glccl.built_with_cuda or CUDA_RUNS, reason="needs a CUDA build where the cuda backend cannot run")
def test_no_cuda_device_is_runtime_error():
    with pytest.raises(RuntimeError, match="cuda backend cannot run"):
        glccl.label(StandIn())


@pytest.mark.skipif(not glccl.built_with_cuda, reason="this glccl is built without CUDA")
def test_device_arrays_need_the_cuda_backend():
    with pytest.raises(ValueError, match="cuda backend"):
        glccl.label(StandIn(), backend="compute")


@pytest.mark.skipif(not CUDA_RUNS, reason="needs a CUDA build where the cuda backend runs")
@pytest.mark.parametrize("standin, error", [
    (StandIn(typestr=">u2"), TypeError),     # big-endian
    (StandIn(typestr="<f4"), TypeError),
    (StandIn(shape=(0, 4)), ValueError),
    (StandIn(shape=(4, 4, 4)), ValueError),  # color is for threshold only
    (StandIn(shape=(4,)), ValueError),
    (StandIn(pointer=0), ValueError),        # not device memory
])
def test_refused_device_input(standin, error):
    with pytest.raises(error):
        glccl.label(standin)


def test_host_image_with_device_out():
    with pytest.raises(TypeError):
        glccl.Labeler().label(np.ones((4, 4), np.uint8), out=StandIn(typestr="<u4"))


# ---- CuPy ---------------------------------------------------------------------------------

@needs_cupy_and_cuda
@pytest.mark.parametrize("connectivity", [4, 8])
def test_cupy_against_skimage(connectivity):
    rng = np.random.default_rng(40 + connectivity)
    for shape in [(64, 64), (37, 101), (1, 300), (300, 1), (513, 257)]:
        image = random_binary(rng, *shape)
        for device_image in (cupy.asarray(image), cupy.asarray(image.astype(bool))):
            labels = check_device_labels(device_image, image, connectivity, cupy.asnumpy)
            assert isinstance(labels, cupy.ndarray) and labels.dtype == cupy.uint32
            assert labels.device.id == device_image.device.id


@needs_cupy_and_cuda
def test_cupy_segments_layouts_and_table():
    rng = np.random.default_rng(41)
    image = rng.integers(0, 4, size=(90, 70)).astype(np.uint8)
    device_image = cupy.asarray(image)
    want, want_n = skimage_labels(image, 8, segments=True)
    for view, expected in [(device_image, want), (cupy.asfortranarray(device_image), want),
                           (device_image[5:, 3:60], skimage_labels(image[5:, 3:60], 8, segments=True)[0]),
                           (device_image[::2, ::3], skimage_labels(image[::2, ::3], 8, segments=True)[0])]:
        labels, n, table = glccl.label(view, criterion="segments", return_table=True)
        np.testing.assert_array_equal(cupy.asnumpy(labels), expected)
        assert n == expected.max()
        np.testing.assert_array_equal(table["area"], np.bincount(expected.ravel())[1:])


@needs_cupy_and_cuda
def test_cupy_threshold_color():
    image = np.zeros((6, 8, 3), np.uint8)
    image[:, 4:, 1] = 50
    for device_image in (cupy.asarray(image), cupy.asarray(np.concatenate([image, np.full((6, 8, 1), 255,
                                                                                         np.uint8)], axis=2))):
        assert glccl.label(device_image, criterion=("threshold", 49), channel_axis=-1)[1] == 2
        assert glccl.label(device_image, criterion=("threshold", 50), channel_axis=-1)[1] == 1


@needs_cupy_and_cuda
def test_cupy_out_and_labeler_frames():
    rng = np.random.default_rng(42)
    labeler = glccl.Labeler(connectivity=4)
    out = cupy.empty((48, 64), cupy.uint32)
    for shape in [(48, 64)] * 5 + [(31, 17)] * 3 + [(48, 64)] * 3:
        image = random_binary(rng, *shape)
        if shape == (48, 64):
            labels, n = labeler.label(cupy.asarray(image), out=out)
            assert labels is out
        else:
            labels, n = labeler.label(cupy.asarray(image))
        np.testing.assert_array_equal(cupy.asnumpy(labels), skimage_labels(image, 4)[0])
    assert labeler.last_backend == "cuda"


@needs_cupy_and_cuda
def test_cupy_refusals():
    with pytest.raises(TypeError, match="uint8, uint16, uint32, uint64"):
        glccl.label(cupy.ones((4, 4), cupy.float32))
    with pytest.raises(ValueError, match="shape"):
        glccl.Labeler().label(cupy.ones((4, 4), cupy.uint8), out=cupy.empty((4, 5), cupy.uint32))
    with pytest.raises(TypeError, match="uint32"):
        glccl.Labeler().label(cupy.ones((4, 4), cupy.uint8), out=cupy.empty((4, 4), cupy.int32))
    # Signed ids compare by value under delta, threshold and binary:L: refused.
    for criterion in (("delta", 3), ("threshold", 1), ("binary", 3)):
        with pytest.raises(TypeError, match="signed"):
            glccl.label(cupy.ones((4, 4), cupy.int32), criterion=criterion)
    with pytest.raises(ValueError, match="0..65535"):
        glccl.label(cupy.ones((4, 4), cupy.uint16), criterion=("binary", 70000))
    with pytest.raises(RuntimeError, match="64-bit"):
        glccl.label(cupy.ones((4, 4, 4), cupy.uint64), criterion=("threshold", 1), channel_axis=-1)


@pytest.mark.skipif(cupy is None or glccl.built_with_cuda, reason=WHY_NO_CUPY or "this glccl is built with CUDA")
def test_cupy_array_in_a_build_without_cuda():
    with pytest.raises(TypeError, match="without CUDA"):
        glccl.label(cupy.ones((4, 4), cupy.uint8))


# ---- samples past 8 bits ------------------------------------------------------------------

SEGMENT_DTYPES = ["uint16", "int16", "uint32", "int32", "int64", "uint64"]


def segment_map(rng, shape, dtype):
    """Blocky segment ids at the edges of the dtype's range, 0 background:
    ids past 255, past 2^32 with equal low bits, the largest, and for signed
    dtypes negative ids (ids like any other, as scikit-image reads them)."""
    info = np.iinfo(dtype)
    ids = [0, 1, 2, 255, 256, 257, 2**16 + 1, 2**31 - 1, 2**32 + 1, 2**32 + 2, 2**62 + 1, info.max, info.max - 1,
           -1, -2, -256, info.min]
    ids = np.array([i for i in ids if info.min <= i <= info.max], dtype=dtype)
    coarse = rng.choice(ids, size=tuple(side // 3 + 1 for side in shape))
    image = coarse
    for axis in range(len(shape)):
        image = np.repeat(image, 3, axis=axis)
    image = image[tuple(slice(0, side) for side in shape)].copy()
    noise = rng.random(shape) < 0.15
    image[noise] = rng.choice(ids, size=int(noise.sum()))
    return image


def skimage_segments(image, connectivity):
    """scikit-image's segments of an image (4, 8) or a volume (6, 18, 26)."""
    conn = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}[connectivity]
    values = image.astype(np.uint64 if image.dtype == np.uint64 else np.int64)
    return measure.label(values, background=0, connectivity=conn, return_num=True)


def edge_values(rng, shape, dtype):
    """Unsigned samples near 0, both sides of the top bit and the top."""
    info = np.iinfo(dtype)
    half = (info.max + 1) // 2
    centres = np.array([0, 1, half - 1, half, info.max - 1, info.max], dtype=np.uint64)
    steps = rng.integers(0, 3, size=shape).astype(np.uint64)
    values = rng.choice(centres, size=shape)
    values = np.where(values >= np.uint64(2), values - steps, values + steps)
    return values.astype(dtype)


def check_against_reference(device_image, host_image, connectivity, criterion, to_host, **options):
    """glccl.label on the device against the reference backend on the host:
    labels, count and table (a volume's with its z columns)."""
    labels, n, table = glccl.label(device_image, connectivity=connectivity, criterion=criterion, return_table=True,
                                   **options)
    want, want_n, want_table = glccl.label(host_image, connectivity=connectivity, criterion=criterion,
                                           backend="reference", return_table=True, **options)
    assert n == want_n
    np.testing.assert_array_equal(to_host(labels), want)
    columns = ["left", "top", "width", "height", "area", "centroid_x", "centroid_y"]
    if connectivity in (6, 18, 26):
        columns += ["front", "depth", "centroid_z"]
    for column in columns:
        np.testing.assert_array_equal(table[column], want_table[column], err_msg=column)


@needs_cupy_and_cuda
@pytest.mark.parametrize("dtype", SEGMENT_DTYPES)
@pytest.mark.parametrize("connectivity", [4, 8])
def test_cupy_segment_ids_of_every_width(dtype, connectivity):
    rng = np.random.default_rng(70 + SEGMENT_DTYPES.index(dtype) + connectivity)
    for shape in [(37, 53), (1, 40), (40, 1), (129, 67)]:
        image = segment_map(rng, shape, dtype)
        labels, n, table = glccl.label(cupy.asarray(image), connectivity=connectivity, criterion="segments",
                                       return_table=True)
        want, want_n = skimage_segments(image, connectivity)
        assert isinstance(labels, cupy.ndarray) and labels.dtype == cupy.uint32
        assert n == want_n
        np.testing.assert_array_equal(cupy.asnumpy(labels), want)
        np.testing.assert_array_equal(table["area"], np.bincount(want.ravel())[1:])
        # Binary reads the same bits: nonzero is foreground.
        labels, n = glccl.label(cupy.asarray(image), connectivity=connectivity, criterion="binary")
        want, want_n = measure.label(image != 0, background=0, connectivity=1 if connectivity == 4 else 2,
                                     return_num=True)
        assert n == want_n
        np.testing.assert_array_equal(cupy.asnumpy(labels), want)


@needs_cupy_and_cuda
@pytest.mark.parametrize("dtype", ["uint16", "int32", "int64", "uint64"])
@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_cupy_segment_volumes(dtype, connectivity):
    rng = np.random.default_rng(90 + connectivity)
    for shape in [(9, 23, 31), (1, 5, 70), (40, 1, 1)]:
        image = segment_map(rng, shape, dtype)
        labels, n = glccl.label(cupy.asarray(image), connectivity=connectivity, criterion="segments")
        want, want_n = skimage_segments(image, connectivity)
        assert n == want_n
        np.testing.assert_array_equal(cupy.asnumpy(labels), want)


@needs_cupy_and_cuda
@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_cupy_every_criterion_against_the_reference(dtype):
    rng = np.random.default_rng(110 + np.iinfo(dtype).bits)
    level = min(np.iinfo(dtype).max // 2, 2**32 - 1)
    criteria = ["binary", ("binary", level), "segments", ("threshold", 2), ("delta", 1), ("delta", 0)]
    for shape, connectivities in [((61, 83), (4, 8)), ((7, 19, 23), (6, 18, 26))]:
        image = edge_values(rng, shape, dtype)
        for criterion in criteria:
            for connectivity in connectivities:
                check_against_reference(cupy.asarray(image), image, connectivity, criterion, cupy.asnumpy)


@needs_cupy_and_cuda
def test_cupy_signed_ids_that_hold_no_negative_value_equal_the_reference():
    rng = np.random.default_rng(130)
    image = segment_map(rng, (45, 66), "uint32").astype(np.int64)
    for dtype in (np.int16, np.int32, np.int64):
        values = np.clip(image, 0, np.iinfo(dtype).max).astype(dtype)
        for criterion in ("segments", "binary"):
            check_against_reference(cupy.asarray(values), values, 8, criterion, cupy.asnumpy)


@needs_cupy_and_cuda
@pytest.mark.parametrize("dtype", ["uint16", "uint64", "int32"])
def test_cupy_deep_layouts(dtype):
    rng = np.random.default_rng(140)
    image = segment_map(rng, (70, 90), dtype)
    device = cupy.asarray(image)
    # Fortran order and strided views are copied; rows of a column slice
    # keep their pitch and are read in place.
    for view, host in [(cupy.asfortranarray(device), image), (device[5:, 3:60], image[5:, 3:60]),
                       (device[::2, ::3], image[::2, ::3]), (device[:, 1:], image[:, 1:])]:
        labels, n = glccl.label(view, criterion="segments")
        want, want_n = skimage_segments(np.ascontiguousarray(host), 8)
        assert n == want_n
        np.testing.assert_array_equal(cupy.asnumpy(labels), want)


@needs_cupy_and_cuda
@pytest.mark.parametrize("dtype", ["uint16", "int64"])
def test_cupy_batches_of_segment_ids(dtype):
    rng = np.random.default_rng(150)
    stack = np.stack([segment_map(rng, (33, 47), dtype) for _ in range(6)])
    labels, counts = glccl.label_batch(cupy.asarray(stack), connectivity=4, criterion="segments")
    counts = cupy.asnumpy(counts)
    for i, image in enumerate(stack):
        want, want_n = skimage_segments(image, 4)
        assert counts[i] == want_n
        np.testing.assert_array_equal(cupy.asnumpy(labels[i]), want)


@needs_cupy_and_cuda
def test_cupy_color_of_16_and_32_bits_under_threshold():
    rng = np.random.default_rng(160)
    for dtype in (np.uint16, np.uint32):
        top = np.iinfo(dtype).max
        image = (top - rng.integers(0, 4, size=(29, 31, 4))).astype(dtype)
        for threshold in (0, 1, 3):
            check_against_reference(cupy.asarray(image), image, 8, ("threshold", threshold), cupy.asnumpy,
                                    channel_axis=-1)
        # RGB gets an opaque alpha, as on the host.
        labels, n = glccl.label(cupy.asarray(image[..., :3]), criterion=("threshold", 1), channel_axis=-1)
        want, want_n = glccl.label(image[..., :3], criterion=("threshold", 1), channel_axis=-1, backend="reference")
        assert n == want_n
        np.testing.assert_array_equal(cupy.asnumpy(labels), want)


# ---- torch --------------------------------------------------------------------------------

needs_torch_and_cuda = pytest.mark.skipif(bool(WHY_NO_TORCH), reason=WHY_NO_TORCH or "-")



@needs_torch_and_cuda
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint16", "uint64"])
@pytest.mark.parametrize("connectivity", [4, 8])
def test_torch_segment_ids(dtype, connectivity):
    wanted = torch_dtype(dtype)
    rng = np.random.default_rng(170 + connectivity)
    image = segment_map(rng, (53, 71), dtype)
    # Unsigned ids travel as the signed integers of their bits and are viewed
    # as unsigned on the GPU: torch builds few unsigned tensors from numpy.
    signed = np.dtype(dtype.replace("uint", "int"))
    tensor = torch.from_numpy(image.view(signed)).cuda().view(wanted)
    labels, n = glccl.label(tensor, connectivity=connectivity, criterion="segments")
    want, want_n = skimage_segments(image, connectivity)
    assert isinstance(labels, torch.Tensor) and labels.device == tensor.device
    assert n == want_n
    np.testing.assert_array_equal(labels.to(torch.int64).cpu().numpy(), want)


@needs_torch_and_cuda
def test_torch_int64_volume_of_segment_ids():
    rng = np.random.default_rng(180)
    image = segment_map(rng, (11, 19, 27), "int64")
    labels, n = glccl.label(torch.from_numpy(image).cuda(), connectivity=26, criterion="segments")
    want, want_n = skimage_segments(image, 26)
    assert n == want_n
    np.testing.assert_array_equal(labels.to(torch.int64).cpu().numpy(), want)
