"""Labels and component tables of every backend against two outside
references at once: OpenCV's connectedComponentsWithStatsWithAlgorithm with
SAUF (the numbering glccl follows) and scikit-image's label and regionprops,
on generated masks and on scikit-image's sample photographs, binarised, at
4- and 8-connectivity. Skipped, with the reason, where cv2 cannot be
imported."""

import numpy as np
import pytest
from skimage import data, filters

import glccl
from references import (EVERY_BACKEND, WHY_NO_OPENCV, assert_tables_equal, opencv_labeling, skimage_labels,
                        skimage_table)

pytestmark = pytest.mark.skipif(bool(WHY_NO_OPENCV), reason=WHY_NO_OPENCV or "-")


def rings(size):
    """Concentric square outlines two pixels apart, each cut once at a
    corner: nested components, and at 8-connectivity cuts that corners bridge."""
    image = np.zeros((size, size), np.uint8)
    for d in range(0, size // 2, 2):
        image[d, d:size - d] = image[size - 1 - d, d:size - d] = 1
        image[d:size - d, d] = image[d:size - d, size - 1 - d] = 1
        image[d, d] = 0
    return image


def comb(h, w):
    """On the left, teeth on every other column joined only by the bottom row
    (components that merge on the last row); on the right, a staircase that
    only corners join."""
    image = np.zeros((h, w), np.uint8)
    image[: h - 1, : w // 2 : 2] = 1
    image[h - 1, : w // 2] = 1
    for i in range(min(h - 1, w - w // 2 - 1)):
        image[i, w - 1 - i] = 1
    return image


def generated():
    rng = np.random.default_rng(1415)
    images = {}
    for h, w in [(67, 89), (128, 128), (1, 97), (97, 1), (2, 3), (1, 1)]:
        for p in (0.1, 0.5, 0.75):
            images[f"random {h}x{w} p={p}"] = (rng.random((h, w)) < p).astype(np.uint8)
    images["all background"] = np.zeros((13, 17), np.uint8)
    images["all foreground, 255"] = np.full((13, 17), 255, np.uint8)
    images["checkerboard"] = (np.indices((31, 33)).sum(axis=0) % 2).astype(np.uint8)
    images["rings"] = rings(61)
    images["comb"] = comb(48, 61)
    return images


def photographs():
    """scikit-image's sample images, binarised at Otsu's level (or as they
    come for the horse), both ways round, so that background and foreground
    swap roles."""
    images = {"horse": data.horse(), "horse inverted": ~data.horse()}
    for name in ("coins", "camera", "text", "page", "moon"):
        photo = getattr(data, name)()
        mask = photo > filters.threshold_otsu(photo)
        images[name] = mask
        images[name + " inverted"] = ~mask
    return {name: mask.astype(np.uint8) for name, mask in images.items()}


IMAGES = {**generated(), **photographs()}


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("name", list(IMAGES))
def test_labels_and_table_equal_opencv_and_skimage(name, connectivity, backend):
    image = IMAGES[name]
    labels, n, table = glccl.label(image, connectivity=connectivity, backend=backend, return_table=True)
    assert labels.dtype == np.uint32 and labels.shape == image.shape

    cv_labels, cv_n, cv_table = opencv_labeling(image, connectivity)
    assert n == cv_n, f"{n} components, OpenCV {cv_n}"
    np.testing.assert_array_equal(labels.astype(np.int64), cv_labels, err_msg="labels against OpenCV")
    assert_tables_equal(table, cv_table, "OpenCV")

    sk_labels, sk_n = skimage_labels(image, connectivity)
    assert n == sk_n, f"{n} components, scikit-image {sk_n}"
    np.testing.assert_array_equal(labels.astype(np.int64), sk_labels, err_msg="labels against scikit-image")
    assert_tables_equal(table, skimage_table(sk_labels), "regionprops")


def test_photographs_have_many_components():
    # The real images are worth their time only if they are not trivial.
    for name in ("coins", "camera", "text", "page", "moon"):
        assert opencv_labeling(IMAGES[name], 8)[1] >= 5, name
