"""One rule for sample widths (docs/formats.md#sample-widths): a sample is as
wide as the dtype's element, so int64, uint64 and float64 are 64-bit samples
in Python (glccl.label, glccl.Labeler, every backend that runs here) as in
`glccl label` on a .npy (one piece and in tiles). The same values, past 2^32,
labeled each way, against scipy and scikit-image."""

import os
import pathlib
import subprocess

import numpy as np
import pytest
from scipy import ndimage
from skimage import measure

import glccl
from references import AVAILABLE

# Values past 2^32 that a 32-bit reading would confuse or refuse: low halves
# equal to small ids (2^32 + 1 and 1), neighbours one apart past 2^40 and
# 2^52, whole floats past 2^53 (every one there is even).
VALUES = np.array([0, 1, 7, 2**32 + 1, 2**32 + 7, 2**40, 2**40 + 1, 2**52 + 1, 2**53 + 2, 2**62], np.int64)
DTYPES = [np.int64, np.uint64, np.float64]
LEVEL = 2**32 - 1  # binary:L, the largest level: foreground from 2^32 on


def values(shape, seed):
    """Blocks of equal values drawn from VALUES, with single odd pixels."""
    rng = np.random.default_rng(seed)
    coarse = rng.integers(0, len(VALUES), tuple(side // 3 + 1 for side in shape))
    image = VALUES[coarse]
    for axis, side in enumerate(shape):
        image = np.repeat(image, 3, axis=axis).take(range(side), axis=axis)
    noise = rng.random(shape) < 0.1
    image[noise] = VALUES[rng.integers(0, len(VALUES), int(noise.sum()))]
    return image


def expected(image, criterion, connectivity):
    """scikit-image's segments (on ranks of the values, which keep equality
    exactly) or scipy's labels of the values above LEVEL, compared as Python
    integers."""
    rank = {4: 1, 8: 2, 6: 1, 26: 3}[connectivity]
    if criterion == "segments":
        _, ids = np.unique(image, return_inverse=True)
        ids = ids.reshape(image.shape) + 1
        ids[image == 0] = 0
        return measure.label(ids, background=0, connectivity=rank).astype(np.uint32)
    above = np.vectorize(lambda v: int(v) > LEVEL, otypes=[bool])(image)
    return ndimage.label(above, ndimage.generate_binary_structure(image.ndim, rank))[0].astype(np.uint32)


CRITERIA = [("segments", "segments"), (("binary", LEVEL), f"binary:{LEVEL}")]
PYTHON_BACKENDS = ["auto", "cpu", "reference"] + [
    pytest.param(name, marks=pytest.mark.skipif(not AVAILABLE[name]["available"],
                                                reason=AVAILABLE[name]["reason"] or "unavailable"))
    for name in ("compute", "cuda")]


@pytest.mark.parametrize("backend", PYTHON_BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("criterion", CRITERIA, ids=lambda c: c[1] if isinstance(c, tuple) else c)
def test_python_reads_64_bit_samples(backend, dtype, criterion):
    image = values((31, 43), 6)
    for shape_image, connectivity in ((image, 8), (image, 4), (values((5, 9, 11), 7), 26)):
        if backend == "compute" and shape_image.ndim == 3:
            continue
        labels, n = glccl.label(shape_image.astype(dtype), connectivity=connectivity, criterion=criterion[0],
                                backend=backend)
        want = expected(shape_image, criterion[1], connectivity)
        assert n == want.max()
        np.testing.assert_array_equal(labels, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_labeler_reads_64_bit_samples(dtype):
    image = values((31, 43), 8)
    labels, n = glccl.Labeler(connectivity=8, criterion="segments", backend="cpu").label(image.astype(dtype))
    np.testing.assert_array_equal(labels, expected(image, "segments", 8))


def test_float64_is_whole_up_to_2_to_the_64():
    # The largest float64 below 2^64 is a sample; 2^64 is not.
    top = np.float64(2.0**64 - 2048)
    image = np.array([[top, top, 0, 2.0**53 + 2, 2.0**53]], np.float64)
    labels, n = glccl.label(image, connectivity=4, criterion="segments", backend="cpu")
    assert n == 3 and labels.tolist() == [[1, 1, 0, 2, 3]]
    same, _ = glccl.label(image.astype(np.uint64), connectivity=4, criterion="segments", backend="cpu")
    np.testing.assert_array_equal(labels, same)
    with pytest.raises(ValueError, match=r"the value 18446744073709551616 at \[0, 0\] is not an unsigned integer "
                                         r"in 0..18446744073709551615 \(float64 images hold 64-bit samples"):
        glccl.label(np.array([[2.0**64]]))
    with pytest.raises(ValueError, match=r"float32 images hold 32-bit samples"):
        glccl.label(np.array([[2.0**32]], np.float32))


def glccl_command():
    build = os.environ.get("GLCCL_BUILD_DIR")
    path = pathlib.Path(build) / "tools" / "glccl" if build else None
    return path if path and path.is_file() else None


@pytest.mark.skipif(glccl_command() is None, reason="GLCCL_BUILD_DIR names no build with tools/glccl (ctest sets it)")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("criterion", CRITERIA, ids=lambda c: c[1] if isinstance(c, tuple) else c)
def test_command_line_and_python_agree(tmp_path, dtype, criterion):
    image = values((31, 43), 9)
    volume = values((5, 9, 11), 10)
    for name, array, connectivity, tiles in (("image", image, 8, []), ("tiled", image, 8, ["--tile", "16x16"]),
                                             ("volume", volume, 26, [])):
        source = tmp_path / f"{name}.npy"
        np.save(source, array.astype(dtype))
        result = subprocess.run([str(glccl_command()), "label", str(source), "--criterion", criterion[1],
                                 "--connectivity", str(connectivity), "--backend", "cpu", "--labels",
                                 str(tmp_path / "labels.npy"), "--force", *tiles],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        from_command = np.load(tmp_path / "labels.npy")
        from_python, _ = glccl.label(array.astype(dtype), connectivity=connectivity, criterion=criterion[0],
                                     backend="cpu")
        want = expected(array, criterion[1], connectivity)
        np.testing.assert_array_equal(from_command, want)
        np.testing.assert_array_equal(from_python, want)
