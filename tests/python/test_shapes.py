"""The convention for 3-D arrays (scikit-image's and scipy's: a volume unless
channel_axis names the channels; a volume is labeled), the connectivities of volumes refused on
2-D images, and numpy integers as connectivities. Expectations from
scikit-image or by hand, never from glccl."""

import numpy as np
import pytest

from skimage import measure

import glccl
from references import random_binary, skimage_labels


def color_halves(channels):
    image = np.zeros((6, 8, channels), np.uint8)
    image[:, :4] = 10
    image[:, 4:] = 100
    if channels == 4:
        image[..., 3] = 255
    return image


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_a_3d_array_is_a_volume_unless_channel_axis_is_named(channels):
    image = color_halves(channels)
    # A volume (D, H, W) of 6 slices: 10, 100 and 255 differ by more than 89,
    # so its components are scikit-image's regions of equal value (none of
    # them background).
    labels, n = glccl.label(image, criterion=("threshold", 89))
    expected, expected_n = measure.label(image.astype(np.int64), background=-1, connectivity=3, return_num=True)
    assert labels.shape == image.shape
    assert n == expected_n
    np.testing.assert_array_equal(labels, expected)
    with pytest.raises(ValueError, match=r"glccl.Labeler.label\(\): the array is a volume \(D, H, W\)"):
        glccl.Labeler(criterion=("threshold", 89)).label(image)
    for call in (lambda **kw: glccl.label(image, criterion=("threshold", 89), **kw),
                 lambda **kw: glccl.Labeler(criterion=("threshold", 89)).label(image, **kw)):
        for axis in (-1, 2, np.int64(-1)):
            labels, n = call(channel_axis=axis)[:2]
            # The halves differ by 90 in every channel (gray included).
            expected = np.ones((6, 8), np.uint32)
            expected[:, 4:] = 2
            assert n == 2
            np.testing.assert_array_equal(labels, expected)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"channel_axis": 0}, ValueError, "channel_axis must be None, -1 or 2"),
    ({"channel_axis": 1}, ValueError, "channel_axis must be None, -1 or 2"),
    ({"channel_axis": "last"}, TypeError, "channel_axis must be None or an int"),
    ({"channel_axis": True}, TypeError, "channel_axis must be None or an int"),
])
def test_channel_axis_is_the_last_axis(kwargs, error, words):
    with pytest.raises(error, match=words):
        glccl.label(color_halves(3), criterion=("threshold", 1), **kwargs)


def test_channel_axis_on_a_2d_image_is_refused():
    for call in (glccl.label, glccl.Labeler().label):
        with pytest.raises(ValueError, match="channel_axis names the channels of an"):
            call(np.ones((4, 4), np.uint8), channel_axis=-1)


@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_volume_connectivities_are_refused_on_2d_images(connectivity):
    image = np.ones((4, 5), np.uint8)
    words = "glccl.label\\(\\): connectivity %d is for volumes; a 2-D image takes 4 or 8" % connectivity
    with pytest.raises(ValueError, match=words):
        glccl.label(image, connectivity=connectivity)
    with pytest.raises(ValueError, match=words):
        glccl.label(image, connectivity=np.int64(connectivity))
    with pytest.raises(ValueError, match="connectivity %d is for volumes" % connectivity):
        glccl.Labeler(connectivity=connectivity)


@pytest.mark.parametrize("value, error", [(3, ValueError), (5, ValueError), (np.int8(7), ValueError),
                                          (np.bool_(True), TypeError), (4.0, TypeError), ("4", TypeError)])
def test_connectivity_refusals(value, error):
    with pytest.raises(error, match="connectivity"):
        glccl.label(np.ones((4, 4), np.uint8), connectivity=value)


@pytest.mark.parametrize("value, want", [(np.int64(4), 4), (np.int32(8), 8), (np.uint8(4), 4),
                                         (np.int16(1), 4), (np.int64(2), 8)])
def test_numpy_integers_are_connectivities(value, want):
    image = random_binary(np.random.default_rng(int(want)), 23, 37)
    expected, expected_n = skimage_labels(image, want)
    labels, n = glccl.label(image, connectivity=value)
    assert n == expected_n
    np.testing.assert_array_equal(labels, expected)
    labeler = glccl.Labeler(connectivity=value)
    assert labeler.connectivity == want
    np.testing.assert_array_equal(labeler.label(image)[0], expected)


def test_the_2d_table_keeps_its_keys():
    image = random_binary(np.random.default_rng(3), 19, 23)
    table = glccl.label(image, return_table=True)[2]
    assert list(table) == ["label", "left", "top", "width", "height", "area", "centroid_x", "centroid_y"]
