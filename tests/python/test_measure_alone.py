"""Every property the compiled measurement computes, asked alone, with and
without an intensity image of each kind: it runs (a property must not lean on
terms another property asks for) and gives the values it gives among all the
others, which tests/python/test_measure.py checks against scikit-image."""

import numpy as np
import pytest

from glccl import _glccl


def labels_and_intensity(dims, dtype):
    rng = np.random.default_rng(dims)
    shape = (37, 41) if dims == 2 else (9, 10, 11)
    labels = rng.integers(0, 6, size=shape).astype(np.int32)
    labels[rng.random(shape) < 0.3] = 0
    if np.dtype(dtype).kind == "f":
        intensity = (rng.random(shape) * 100 - 50).astype(dtype)
    else:
        info = np.iinfo(dtype)
        intensity = rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape).astype(dtype)
    return labels, intensity


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_every_property_alone_equals_it_among_all(dims, dtype):
    labels, intensity = labels_and_intensity(dims, dtype)
    two_d_only = {"moments_hu", "orientation", "eccentricity", "perimeter", "perimeter_crofton", "moments_weighted_hu"}
    names = [n for n in _glccl.term_properties() if dims == 2 or n not in two_d_only]
    together = _glccl.measure_regions(labels, intensity, names, None, "-", 2, False)
    for name in names:
        alone = _glccl.measure_regions(labels, intensity, [name], None, "-", 2, False)
        assert alone, name
        for column, values in alone.items():
            np.testing.assert_array_equal(values, together[column], err_msg=f"{name} alone, column {column}")
