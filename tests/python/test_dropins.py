"""glccl.skimage.label and glccl.ndimage.label against scikit-image's and
scipy's own, called the same way: the same labels (values, dtype, shape,
memory order), the same count, the same errors; on generated arrays of every
dtype and on scikit-image's sample images, binarized and segmented, in 2-D
and 3-D. The helpers against scipy.ndimage.find_objects and
skimage.morphology.remove_small_objects."""

import numpy as np
import pytest
from scipy import ndimage
from skimage import data, filters, measure, morphology, segmentation

import glccl
import glccl.ndimage
import glccl.skimage

DTYPES = [bool, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64, np.float32,
          np.float64]
SHAPES = [(17, 23), (1, 40), (40, 1), (31,), (5, 6, 7), (1, 9, 4)]


def assert_same(got, want, what=""):
    """The drop-in's result is the original's: tuples item by item, arrays
    in values, dtype, shape and C order, numbers by type and value."""
    assert type(got) is type(want), f"{what}: {type(got)} against {type(want)}"
    if isinstance(want, tuple):
        assert len(got) == len(want), what
        for g, w in zip(got, want):
            assert_same(g, w, what)
    elif isinstance(want, np.ndarray):
        assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} against {want.dtype}"
        assert got.shape == want.shape, what
        assert got.flags.c_contiguous == want.flags.c_contiguous, what
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        assert got == want, what


def values(rng, shape, dtype):
    """Small values (so regions of equal value touch), negative ones for
    signed and float dtypes."""
    raw = rng.integers(-2, 3, size=shape)
    if dtype is bool:
        return raw > 0
    if np.dtype(dtype).kind == "u":
        raw = np.abs(raw)
    return raw.astype(dtype)


# ---- glccl.skimage.label -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_skimage_label_every_argument(dtype, shape):
    rng = np.random.default_rng(len(shape) * 100 + shape[0])
    image = values(rng, shape, dtype)
    for background in (None, 0, 1, -1, 2):
        for connectivity in [None] + list(range(1, len(shape) + 1)):
            for return_num in (False, True):
                arguments = dict(background=background, return_num=return_num, connectivity=connectivity)
                assert_same(glccl.skimage.label(image, **arguments), measure.label(image, **arguments),
                            f"{arguments}")


def test_skimage_label_positional_and_layouts():
    rng = np.random.default_rng(5)
    image = rng.integers(0, 4, size=(30, 41)).astype(np.int32)
    assert_same(glccl.skimage.label(image, 0, True, 1), measure.label(image, 0, True, 1))
    for view in (np.asfortranarray(image), image[::2, ::3], image.T, image[:, ::-1]):
        assert_same(glccl.skimage.label(view), measure.label(view))
    assert_same(glccl.skimage.label(image.tolist()), measure.label(np.asarray(image.tolist())))


def test_skimage_label_far_apart_values():
    image = np.array([[2**63 - 1, 2**63 - 1, -2**63], [0, 5, -2**63]], dtype=np.int64)
    assert_same(glccl.skimage.label(image, return_num=True), measure.label(image, return_num=True))
    image = np.array([[2**64 - 1, 2**64 - 2], [0, 2**64 - 1]], dtype=np.uint64)
    for background in (None, 0):  # scikit-image takes backgrounds of a C long
        assert_same(glccl.skimage.label(image, background=background, connectivity=1),
                    measure.label(image, background=background, connectivity=1))


def test_skimage_label_errors_as_skimage():
    for image, connectivity in ((np.eye(3, dtype=int), 3), (np.eye(3, dtype=bool), 0), (np.ones(4), 2)):
        with pytest.raises(ValueError) as want:
            measure.label(image, connectivity=connectivity)
        with pytest.raises(ValueError) as got:
            glccl.skimage.label(image, connectivity=connectivity)
        assert str(got.value) == str(want.value)
    with pytest.raises(NotImplementedError):
        glccl.skimage.label(np.zeros((2, 2, 2, 2), int))
    assert_same(glccl.skimage.label(np.zeros((0, 3), int), return_num=True),
                measure.label(np.zeros((0, 3), int), return_num=True))


def test_skimage_label_separates_segments_where_glccl_label_binarizes():
    segments = segmentation.slic(data.astronaut(), start_label=1)
    labels, n = glccl.skimage.label(segments, return_num=True)
    want, want_n = measure.label(segments, return_num=True)
    assert_same(labels, want)
    assert n == want_n > 1
    with pytest.warns(UserWarning, match="labeled as binary"):
        assert glccl.label(segments)[1] == 1  # glccl's own criterion is binary: the documented difference, warned
    assert glccl.label(segments, criterion="segments")[1] == want_n


# ---- real images -----------------------------------------------------------------------------

def sample_images():
    """scikit-image's bundled 2-D gray images (those that need no download)."""
    images = {}
    for name in ("camera", "coins", "moon", "page", "text", "horse", "checkerboard", "clock"):
        try:
            image = getattr(data, name)()
        except Exception:  # a sample that needs pooch here
            continue
        images[name] = image if image.ndim == 2 else image[..., 0]
    return images


@pytest.mark.parametrize("name", sorted(sample_images()))
def test_real_images_binarized_and_segmented(name):
    image = sample_images()[name]
    binary = image > filters.threshold_otsu(image) if image.dtype != bool else image
    quantized = (image // 64).astype(np.uint8) if image.dtype != bool else image.astype(np.uint8)
    for connectivity in (1, 2):
        assert_same(glccl.skimage.label(binary, connectivity=connectivity, return_num=True),
                    measure.label(binary, connectivity=connectivity, return_num=True), name)
        assert_same(glccl.skimage.label(quantized, connectivity=connectivity, return_num=True),
                    measure.label(quantized, connectivity=connectivity, return_num=True), name)
        structure = ndimage.generate_binary_structure(2, connectivity)
        assert_same(glccl.ndimage.label(binary, structure), ndimage.label(binary, structure), name)


def test_real_segmentations():
    astronaut = data.astronaut()
    for segments in (segmentation.slic(astronaut, start_label=1, n_segments=400),
                     segmentation.felzenszwalb(astronaut, scale=100),
                     segmentation.watershed(filters.sobel(data.coins()), markers=250)):
        for background in (None, 1):
            assert_same(glccl.skimage.label(segments, background=background, return_num=True),
                        measure.label(segments, background=background, return_num=True))


def test_real_volumes():
    # Blobs as skimage.data.binary_blobs makes them (a smoothed random field
    # above its 70th percentile), made here: its seed argument was renamed.
    field = ndimage.gaussian_filter(np.random.default_rng(4).random((48, 48, 48)), sigma=2)
    blobs = field > np.quantile(field, 0.7)
    smooth = filters.gaussian(blobs.astype(float), sigma=1)
    segments = segmentation.slic(smooth, n_segments=60, channel_axis=None, start_label=1)
    for connectivity in (1, 2, 3):
        assert_same(glccl.skimage.label(blobs, connectivity=connectivity, return_num=True),
                    measure.label(blobs, connectivity=connectivity, return_num=True))
        assert_same(glccl.skimage.label(segments, connectivity=connectivity, return_num=True),
                    measure.label(segments, connectivity=connectivity, return_num=True))
        structure = ndimage.generate_binary_structure(3, connectivity)
        assert_same(glccl.ndimage.label(blobs, structure), ndimage.label(blobs, structure))


# ---- glccl.ndimage.label ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_ndimage_label_every_argument(dtype, shape):
    rng = np.random.default_rng(len(shape) * 7 + shape[-1])
    image = values(rng, shape, dtype)
    assert_same(glccl.ndimage.label(image), ndimage.label(image))
    for hops in range(1, len(shape) + 1):
        structure = ndimage.generate_binary_structure(len(shape), hops)
        assert_same(glccl.ndimage.label(image, structure), ndimage.label(image, structure))
        assert_same(glccl.ndimage.label(image, structure.astype(int).tolist()), ndimage.label(image, structure))
        for output in (np.int64, np.uint16, "int16", np.uint32):
            assert_same(glccl.ndimage.label(image, structure, output), ndimage.label(image, structure, output))
        got, want = np.full(shape, 7, np.int64), np.full(shape, 7, np.int64)
        assert_same(glccl.ndimage.label(image, structure, output=got), ndimage.label(image, structure, output=want))
        assert_same(got, want)


def test_ndimage_label_errors_as_scipy():
    image = np.eye(5)
    cases = [(dict(structure=np.ones((3, 3, 3))), RuntimeError), (dict(structure=np.ones((5, 5))), ValueError),
             (dict(output=np.zeros((4, 4), np.int32)), ValueError)]
    for arguments, kind in cases:
        with pytest.raises(kind) as want:
            ndimage.label(image, **arguments)
        with pytest.raises(kind) as got:
            glccl.ndimage.label(image, **arguments)
        assert str(got.value) == str(want.value)
    with pytest.raises(TypeError):
        glccl.ndimage.label(np.ones((2, 2), complex))
    many = np.indices((40, 40)).sum(axis=0) % 2  # a checkerboard: 800 components with the cross
    with pytest.raises(RuntimeError) as want:
        ndimage.label(many, output=np.int8)
    with pytest.raises(RuntimeError) as got:
        glccl.ndimage.label(many, output=np.int8)
    assert str(got.value) == str(want.value)
    for scalar in (np.array(3), np.array(0)):
        assert_same(glccl.ndimage.label(scalar), ndimage.label(scalar))


def test_ndimage_label_refuses_a_float_or_bool_output_that_would_merge_labels():
    """Labels an output type cannot hold are refused as scipy refuses them:
    a bool output (scipy's a byte of True) of 255 features, a float16 one
    past 2048 (float32 past 2^24 alike); where they fit, scipy's labels."""
    for features in (2, 254, 255):
        image = np.zeros(2 * features, bool)
        image[::2] = True
        if features < 255:
            assert_same(glccl.ndimage.label(image, output=bool), ndimage.label(image, output=bool), str(features))
            continue
        with pytest.raises(RuntimeError) as want:
            ndimage.label(image, output=bool)
        with pytest.raises(RuntimeError) as got:
            glccl.ndimage.label(image, output=bool)
        assert str(got.value) == str(want.value)
    many = np.zeros(4100, bool)
    many[::2] = True  # 2050 features
    with pytest.raises(RuntimeError, match="insufficient bit-depth"):
        glccl.ndimage.label(many, output=np.float16)
    with pytest.raises(RuntimeError, match="insufficient bit-depth"):
        glccl.ndimage.label(many, output=np.zeros(many.shape, np.float16))
    for dtype in (np.float32, np.float64):
        assert_same(glccl.ndimage.label(many, output=dtype), ndimage.label(many, output=dtype), str(dtype))
    fewer = many[:4096]  # 2048 features: every label a float16
    labels, count = glccl.ndimage.label(fewer, output=np.float16)
    np.testing.assert_array_equal(labels, ndimage.label(fewer)[0])
    assert labels.dtype == np.float16 and count == 2048


def test_skimage_label_takes_a_fractional_connectivity_as_skimage():
    """scikit-image joins neighbours whose steps are at most the
    connectivity: 1.5 is 1 step, 2.5 two."""
    rng = np.random.default_rng(3)
    for image in (np.array([[1, 0], [0, 1]]), rng.integers(0, 2, (9, 11)).astype(bool),
                  rng.integers(0, 3, (5, 6, 7)), rng.integers(0, 2, (5, 6, 7)).astype(bool)):
        for connectivity in (1.5, 2.5, 2.9):
            if connectivity > image.ndim:
                continue
            assert_same(glccl.skimage.label(image, connectivity=connectivity),
                        measure.label(image, connectivity=connectivity), f"{image.ndim}-D {connectivity}")


# ---- helpers ---------------------------------------------------------------------------------

def test_find_objects_takes_bool_and_negative_labels_as_scipy():
    rng = np.random.default_rng(4)
    for labels in (np.array([[True, False]]), rng.integers(0, 2, (9, 8)).astype(bool),
                   rng.integers(-3, 5, (7, 9)).astype(np.int16), np.array([[-1, -2], [-3, 0]], np.int64),
                   rng.integers(-3, 5, (4, 5, 6)).astype(np.int8).astype(">i2")):
        assert glccl.ndimage.find_objects(labels) == ndimage.find_objects(labels), labels.dtype
        assert glccl.ndimage.find_objects(labels, max_label=2) == ndimage.find_objects(labels, max_label=2)


def test_find_objects_as_scipy():
    rng = np.random.default_rng(8)
    for shape in ((30, 40), (6, 7, 8), (50,)):
        labels, _ = ndimage.label(rng.random(shape) < 0.4)
        assert glccl.find_objects(labels) == ndimage.find_objects(labels)
        assert glccl.find_objects(labels, max_label=3) == ndimage.find_objects(labels, max_label=3)
        sparse = np.where(labels % 3 == 0, labels, 0)
        assert glccl.find_objects(sparse) == ndimage.find_objects(sparse)


def test_remove_small_as_skimage():
    rng = np.random.default_rng(9)
    for connectivity, hops in ((4, 1), (8, 2)):
        image = rng.random((60, 70)) < 0.45
        labels, n = glccl.label(image, connectivity=connectivity)
        for min_size in (1, 2, 5, 30):
            kept, m = glccl.remove_small(labels, min_size)
            want = morphology.remove_small_objects(image, min_size, connectivity=hops)
            np.testing.assert_array_equal(kept > 0, want)
            relabeled, want_m = measure.label(want, connectivity=hops, return_num=True)
            assert m == want_m
            np.testing.assert_array_equal(kept, relabeled)
            assert kept.dtype == labels.dtype
            same_labels, m = glccl.remove_small(labels, min_size, relabel=False)
            np.testing.assert_array_equal(same_labels, np.where(want, labels, 0))
            assert m == want_m


def test_keep_largest_and_relabel():
    rng = np.random.default_rng(10)
    labels, n = glccl.label(rng.random((50, 50)) < 0.45, connectivity=4)
    areas = np.bincount(labels.ravel())[1:]
    for k in (0, 1, 3, n, n + 5):
        kept, m = glccl.keep_largest(labels, k)
        assert m == min(k, n)
        chosen = np.argsort(-areas, kind="stable")[:k] + 1
        mask = np.isin(labels, chosen)
        np.testing.assert_array_equal(kept, measure.label(mask, connectivity=1) if k else np.zeros_like(labels))
    shuffled = np.array([[5, 5, 0, 2], [0, 9, 0, 2]], dtype=np.int64)
    relabeled, m = glccl.relabel(shuffled)
    np.testing.assert_array_equal(relabeled, [[1, 1, 0, 2], [0, 3, 0, 2]])
    assert m == 3 and relabeled.dtype == np.int64
    with pytest.raises(TypeError, match=r"^glccl.relabel\(\): labels must be an array of an integer dtype"):
        glccl.relabel(np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"^glccl.remove_small\(\): labels must be 0"):
        glccl.remove_small(np.array([[-1, 2]]), 2)
