"""Device arrays (__cuda_array_interface__, CuPy): labeled on the GPU by the
cuda backend, labels returned on the device. The CuPy tests run where CuPy
imports and the cuda backend runs (skipped with the reason elsewhere, as in
CI); the tests of what is refused run everywhere, on stand-in objects."""

import numpy as np
import pytest

import glccl
from references import AVAILABLE, check_device_labels, random_binary, skimage_labels

try:
    import cupy
    WHY_NO_CUPY = ""
except Exception as error:  # ImportError, or a CuPy that finds no CUDA at import
    cupy = None
    WHY_NO_CUPY = f"CuPy cannot be imported here ({type(error).__name__}: {error})"

CUDA_RUNS = glccl.has_cuda and AVAILABLE["cuda"]["available"]
needs_cupy_and_cuda = pytest.mark.skipif(
    cupy is None or not CUDA_RUNS,
    reason=WHY_NO_CUPY or ("this glccl is built without CUDA" if not glccl.has_cuda
                           else "the cuda backend cannot run here: " + AVAILABLE["cuda"]["reason"]))


class StandIn:
    """An object that claims to be a device array, for the paths that must
    refuse it before touching its memory."""

    def __init__(self, shape=(4, 4), typestr="|u1", pointer=0):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (pointer, False),
                                         "strides": None, "version": 3}


# ---- refused everywhere -------------------------------------------------------------------

@pytest.mark.skipif(glccl.has_cuda, reason="this glccl is built with CUDA")
def test_build_without_cuda_says_so():
    for call in (lambda: glccl.label(StandIn()), lambda: glccl.Labeler().label(StandIn())):
        with pytest.raises(TypeError, match="without CUDA"):
            call()


@pytest.mark.skipif(not glccl.has_cuda or CUDA_RUNS, reason="needs a CUDA build where the cuda backend cannot run")
def test_no_cuda_device_is_runtime_error():
    with pytest.raises(RuntimeError, match="cuda backend cannot run"):
        glccl.label(StandIn())


@pytest.mark.skipif(not glccl.has_cuda, reason="this glccl is built without CUDA")
def test_device_arrays_need_the_cuda_backend():
    with pytest.raises(ValueError, match="cuda backend"):
        glccl.label(StandIn(), backend="compute")


@pytest.mark.skipif(not CUDA_RUNS, reason="needs a CUDA build where the cuda backend runs")
@pytest.mark.parametrize("standin, error", [
    (StandIn(typestr="<u2"), TypeError),
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
    with pytest.raises(TypeError, match="uint8"):
        glccl.label(cupy.ones((4, 4), cupy.uint16))
    with pytest.raises(ValueError, match="shape"):
        glccl.Labeler().label(cupy.ones((4, 4), cupy.uint8), out=cupy.empty((4, 5), cupy.uint32))
    with pytest.raises(TypeError, match="uint32"):
        glccl.Labeler().label(cupy.ones((4, 4), cupy.uint8), out=cupy.empty((4, 4), cupy.int32))
    with pytest.raises(RuntimeError):
        glccl.label(cupy.ones((4, 4), cupy.uint8), criterion=("binary", 3))  # cuda refuses a level


@pytest.mark.skipif(cupy is None or glccl.has_cuda, reason=WHY_NO_CUPY or "this glccl is built with CUDA")
def test_cupy_array_in_a_build_without_cuda():
    with pytest.raises(TypeError, match="without CUDA"):
        glccl.label(cupy.ones((4, 4), cupy.uint8))
