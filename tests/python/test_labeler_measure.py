"""glccl.Labeler.label(properties=): the labels against scikit-image's
label, the table against scikit-image's regionprops_table (test_measure's
expected_table, with its exact computations where this scikit-image lacks a
property), on every engine that runs here, with and without an intensity;
spacing against areas counted with numpy; the mistakes refused as
glccl.label refuses them."""

import numpy as np
import pytest
from skimage import measure

import glccl
from test_measure import intensities
from test_measure_engines import INTENSITY, SPATIAL, SPATIAL_2D, assert_table, expected_table, runs


@pytest.mark.parametrize("backend", ["compute", "raster", "cuda", "cpu"])
@pytest.mark.parametrize("dtype", [None, np.uint8, np.float32])
def test_labeler_measures_what_scikit_image_measures(backend, dtype):
    runs(backend)
    labeler = glccl.Labeler(connectivity=8, backend=backend)
    rng = np.random.default_rng([7, np.dtype(dtype).num if dtype else 0])
    properties = SPATIAL + SPATIAL_2D + (INTENSITY if dtype is not None else [])
    # Two images through one Labeler: the second measured from its own labels.
    for shape in ((36, 50), (50, 36)):
        image = rng.random(shape) < 0.45
        intensity = None if dtype is None else intensities(rng, shape, dtype, None)
        if intensity is not None and intensity.dtype.kind == "u":
            intensity = np.maximum(intensity, 1)  # no region of zero weight
        labels, n, table = labeler.label(image, properties=properties, intensity_image=intensity)
        want_labels = measure.label(image, connectivity=2)
        np.testing.assert_array_equal(labels, want_labels)
        assert n == want_labels.max() and n > 1
        assert_table(table, expected_table(want_labels, intensity, properties))
        assert table.measured_by == "cpu"


def test_labeler_measures_with_spacing_and_into_out():
    rng = np.random.default_rng(3)
    image = rng.random((30, 40)) < 0.5
    out = np.zeros(image.shape, np.uint32)
    labels, n, table = glccl.Labeler(connectivity=4).label(image, out, properties=["label", "area", "num_pixels"],
                                                          spacing=(2.0, 0.25))
    assert labels is out
    want_labels = measure.label(image, connectivity=1)
    np.testing.assert_array_equal(out, want_labels)
    counts = np.bincount(want_labels.ravel())[1:]
    np.testing.assert_array_equal(table["label"], np.arange(1, n + 1))
    np.testing.assert_array_equal(table["num_pixels"], counts)
    np.testing.assert_allclose(table["area"], counts * 0.5, rtol=1e-15)


def test_labeler_refuses_what_label_refuses():
    labeler = glccl.Labeler()
    image = np.eye(6, dtype=np.uint8)
    with pytest.raises(ValueError, match="return_table and properties"):
        labeler.label(image, return_table=True, properties=["area"])
    with pytest.raises(ValueError, match="pass properties"):
        labeler.label(image, intensity_image=image)
    with pytest.raises(ValueError, match="pass properties"):
        labeler.label(image, spacing=(1.0, 2.0))
    with pytest.raises(ValueError, match="not_a_property"):
        labeler.label(image, properties=["area", "not_a_property"])
    with pytest.raises(ValueError):
        labeler.label(image, properties=["intensity_mean"], intensity_image=np.zeros((5, 6), np.uint8))
    # Without properties, nothing changes: the component table.
    labels, n, table = labeler.label(image, return_table=True)
    assert n == 1 and list(table["area"]) == [6]
