"""axis_ratio, a property glccl declares beyond scikit-image's: the minor
axis's length over the major's, against scikit-image's axis lengths, in
regionprops_table and glccl.label(properties=), 2-D and 3-D."""

import numpy as np
import pytest

import glccl

skimage_measure = pytest.importorskip("skimage.measure")


def expected_ratio(labels):
    # 3-D axis lengths as scikit-image 0.20 and later compute them (0.19 fails
    # on a slightly negative square root): from the inertia tensor's eigenvalues.
    out = []
    for region in skimage_measure.regionprops(labels):
        ev = region.inertia_tensor_eigvals
        if labels.ndim == 2:
            major, minor = 4 * np.sqrt(ev[0]), 4 * np.sqrt(ev[-1])
        else:
            major = np.sqrt(max(0.0, 10 * (ev[0] + ev[1] - ev[2])))
            minor = np.sqrt(max(0.0, 10 * (-ev[0] + ev[1] + ev[2])))
        out.append(0.0 if major == 0 else minor / major)
    return np.array(out)


@pytest.mark.parametrize("shape", [(60, 70), (14, 15, 16)])
def test_axis_ratio_is_the_minor_over_the_major_axis(shape):
    rng = np.random.default_rng(len(shape))
    mask = rng.random(shape) < 0.55
    labels = skimage_measure.label(mask, connectivity=1)
    ours = glccl.regionprops_table(labels, properties=["label", "axis_ratio"])
    np.testing.assert_array_equal(ours["label"], np.unique(labels[labels > 0]))
    np.testing.assert_allclose(ours["axis_ratio"], expected_ratio(labels), rtol=1e-9, atol=1e-12)
    assert np.all((ours["axis_ratio"] >= 0) & (ours["axis_ratio"] <= 1))
    connectivity = 4 if len(shape) == 2 else 6
    relabeled, n, table = glccl.label(mask, connectivity=connectivity, properties=["axis_ratio"])
    np.testing.assert_allclose(table["axis_ratio"], expected_ratio(relabeled), rtol=1e-9, atol=1e-12)
