"""glccl.regionprops_table, glccl.skimage.regionprops(_table) and
glccl.label(properties=...) against scikit-image's regionprops (the release
installed beside the tests), and against exact computations with Python
integers and fractions where scikit-image's release differs from its newest
definitions (orientation where the inertia tensor's diagonal is equal, area's
dtype, num_pixels, intensity_std, spacing=) or has no such property (glccl's
intensity_sum, intensity_variance, intensity_*_position).

Floats are compared to |got - want| <= 1e-9 * max(|want|, scale), scale the
largest magnitude among the property's values for that region (rounding
noise of scikit-image's float sums where a value is 0 in exact arithmetic);
integers exactly."""

import math
from fractions import Fraction

import numpy as np
import pytest
from skimage import measure

import glccl
import glccl.skimage

RTOL = 1e-9
# Term properties defined on label images alone, in 2-D and 3-D.
SPATIAL = ["label", "num_pixels", "area", "bbox", "area_bbox", "extent", "centroid", "centroid_local",
           "equivalent_diameter_area", "moments", "moments_central", "moments_normalized", "inertia_tensor",
           "inertia_tensor_eigvals", "axis_major_length", "axis_minor_length", "euler_number"]
SPATIAL_2D = ["moments_hu", "orientation", "eccentricity", "perimeter", "perimeter_crofton"]
INTENSITY = ["intensity_mean", "intensity_min", "intensity_max", "intensity_std", "intensity_sum",
             "intensity_variance", "intensity_min_position", "intensity_max_position", "centroid_weighted",
             "centroid_weighted_local", "moments_weighted", "moments_weighted_central", "moments_weighted_normalized"]
INTENSITY_2D = ["moments_weighted_hu"]
CROP = ["slice", "image", "coords", "image_intensity", "image_filled", "area_filled", "image_convex", "area_convex",
        "solidity", "feret_diameter_max"]


# --- Inputs -------------------------------------------------------------------------------------------------------

def blocky_labels(rng, shape, ids, block=6, noise=0.05):
    """Regions of random ids on blocks of a grid, some ids on several
    blocks (regions not connected), with salt of other ids and background."""
    grid = rng.choice(ids, size=tuple(-(-side // block) for side in shape))
    labels = grid
    for axis in range(len(shape)):
        labels = np.repeat(labels, block, axis=axis)
    labels = labels[tuple(slice(0, side) for side in shape)].copy()
    salt = rng.random(shape) < noise
    labels[salt] = rng.choice(ids, size=int(salt.sum()))
    return labels


def adversarial_2d(big=True):
    """64 x 80 labels: a frame touching every border, with a hole; one-pixel
    regions; one-pixel-wide lines (rows, columns, both diagonals); a
    square with a hole; a region in two pieces; labels past 2**32 when big."""
    labels = np.zeros((64, 80), np.uint64)
    frame = (2**33 + 5) if big else 250
    labels[0, :] = labels[-1, :] = labels[:, 0] = labels[:, -1] = frame
    labels[3, 3] = 7
    labels[30, 40] = (2**40) if big else 251
    labels[5, 10:60] = 3                                     # a row
    labels[8:50, 70] = 4                                     # a column
    for i in range(20):
        labels[10 + i, 10 + i] = 5                           # a diagonal
        labels[10 + i, 50 - i] = 6                           # the other
    labels[35:45, 5:15] = 9
    labels[38:41, 8:11] = 0                                  # its hole
    labels[50:54, 20:24] = 11
    labels[55:60, 60:66] = 11                                # its second piece
    labels[48:50, 30:32] = 12                                # 2 x 2
    return labels


def adversarial_3d():
    """20 x 24 x 28 labels: a shell on every face, one-voxel regions, lines
    along each axis and a diagonal through the volume, a hollow cube (a
    cavity), a region in two pieces, labels past 2**32."""
    labels = np.zeros((20, 24, 28), np.uint64)
    shell = 2**36 + 1
    labels[0], labels[-1], labels[:, 0], labels[:, -1], labels[:, :, 0], labels[:, :, -1] = (shell,) * 6
    labels[2, 2, 2] = 7
    labels[17, 21, 25] = 2**33
    labels[3, 3, 4:20] = 3
    labels[4:16, 5, 5] = 4
    labels[5, 6:20, 7] = 5
    for i in range(12):
        labels[4 + i, 6 + i, 8 + i] = 6
    labels[8:14, 14:20, 2:8] = 9
    labels[10:12, 16:18, 4:6] = 0                            # its cavity
    labels[15:17, 2:4, 20:22] = 11
    labels[2:4, 18:20, 22:24] = 11                           # its second piece
    return labels


def intensities(rng, shape, dtype, channels=None):
    shape = shape + ((channels,) if channels else ())
    if dtype == np.float32 or dtype == np.float64:
        return (rng.random(shape) * 100 - 10).astype(dtype)
    if dtype == np.int16:
        return rng.integers(-100, 1000, shape).astype(dtype)
    return rng.integers(0, np.iinfo(dtype).max, shape, endpoint=True).astype(dtype)


# --- What scikit-image (and exact arithmetic) give ----------------------------------------------------------------

def consecutive(labels):
    """The labels renumbered 1..n in ascending order (for scikit-image,
    whose regionprops allocates a list entry per label value), and the
    labels present."""
    present = np.unique(labels)
    present = present[present != 0]
    renumbered = np.where(labels != 0, np.searchsorted(present, labels) + 1, 0)
    return renumbered, present


def exact_orientation(mask):
    """Orientation where the inertia tensor's diagonal is exactly equal
    (integer test: n*sum(r^2) - (sum r)^2 against the same of columns),
    as scikit-image's newest release defines it there (b < 0: +pi/4, else
    -pi/4, with b = -mu11 / mu00); None where it is not equal."""
    rows, cols = (axis.astype(object) for axis in np.nonzero(mask))
    n = len(rows)
    srr, scc = n * sum(rows * rows) - sum(rows) ** 2, n * sum(cols * cols) - sum(cols) ** 2
    if srr != scc:
        return None
    mu11 = n * sum(rows * cols) - sum(rows) * sum(cols)
    return math.pi / 4 if mu11 > 0 else -math.pi / 4


def intensity_statistics(values):
    """sum, mean, population variance and std, min, max of a region's samples
    (float64), summed with math.fsum."""
    values = values.astype(np.float64)
    total = math.fsum(values)
    mean = total / len(values)
    variance = math.fsum((values - mean) ** 2) / len(values)
    return {"intensity_sum": total, "intensity_mean": mean, "intensity_variance": variance,
            "intensity_std": math.sqrt(variance), "intensity_min": values.min(), "intensity_max": values.max()}


def expected_table(labels, intensity, properties):
    """{column: values} as scikit-image's newest regionprops_table names and
    computes them, from this scikit-image's per-region values and exact
    computations."""
    renumbered, present = consecutive(labels)
    regions = measure.regionprops(renumbered, intensity)
    multichannel = intensity is not None and intensity.ndim > labels.ndim
    out = {}
    for prop in properties:
        rows = []
        for region, label in zip(regions, present):
            mask = labels == label
            if prop == "label":
                value = int(label)
            elif prop == "num_pixels":
                value = int(region.area)
            elif prop == "area":
                value = float(region.area)
            elif prop == "orientation":
                exact = exact_orientation(region.image)
                value = region.orientation if exact is None else exact
            elif prop in ("intensity_sum", "intensity_mean", "intensity_variance", "intensity_std", "intensity_min",
                          "intensity_max"):
                samples = intensity[mask]
                value = ([intensity_statistics(samples[:, c])[prop] for c in range(samples.shape[1])]
                         if multichannel else intensity_statistics(samples)[prop])
            elif prop in ("intensity_min_position", "intensity_max_position"):
                flat = np.flatnonzero(mask)

                def first(channel):
                    samples = channel.ravel()[flat]
                    at = np.argmin(samples) if prop == "intensity_min_position" else np.argmax(samples)
                    return np.unravel_index(flat[at], labels.shape)
                value = (np.stack([first(intensity[..., c]) for c in range(intensity.shape[-1])], axis=-1)
                         if multichannel else first(intensity))
            else:
                value = getattr(region, prop)
            rows.append(np.asarray(value))
        shape = rows[0].shape if rows else ()
        for index in np.ndindex(shape):
            out["-".join(map(str, (prop,) + index))] = np.array([row[index] for row in rows])
    return out


def scales(table, prop):
    """Per row, the largest magnitude among the columns of prop."""
    columns = [np.abs(np.asarray(v, dtype=float)) for k, v in table.items() if k.split("-")[0] == prop]
    return np.nanmax(np.stack(columns), axis=0)


def assert_close(got, want, scale, what):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, what
    same_nan = np.isnan(got) == np.isnan(want)
    assert same_nan.all(), f"{what}: NaN at {np.flatnonzero(~same_nan)}: {got} against {want}"
    bad = ~np.isnan(want) & ~(np.abs(got - want) <= RTOL * np.maximum(np.abs(want), scale))
    assert not bad.any(), f"{what}: rows {np.flatnonzero(bad)}: {got[bad]} against {want[bad]}"


INTEGER_PROPERTIES = {"label", "num_pixels", "bbox", "euler_number", "intensity_min_position",
                      "intensity_max_position"}


def assert_table(got, want):
    assert list(got) == list(want)
    for column, values in want.items():
        prop = column.split("-")[0]
        assert len(got[column]) == len(values), column
        if prop in INTEGER_PROPERTIES:
            assert got[column].dtype.kind in "iu", column
            assert [int(v) for v in got[column]] == [int(v) for v in values], column
            continue
        assert got[column].dtype == np.float64, column
        if prop in ("axis_major_length", "axis_minor_length"):
            # Lengths are square roots: compared squared, against the major
            # axis (a minor axis of 0 is sqrt(rounding noise) in scikit-image).
            major = want["axis_major_length"] if "axis_major_length" in want else scales(want, prop)
            assert_close(got[column] ** 2, values ** 2, major ** 2, column)
        elif prop == "eccentricity":
            assert_close(got[column] ** 2, values ** 2, 1.0, column)
        elif prop == "orientation":
            assert_close(got[column], values, math.pi, column)
        else:
            assert_close(got[column], values, scales(want, prop), column)


# --- Term properties ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, channels", [(None, None), (np.uint8, None), (np.uint16, None), (np.int16, None),
                                             (np.float32, None), (np.float64, None), (np.float64, 3)])
def test_term_properties_2d(dtype, channels):
    rng = np.random.default_rng(10 + (channels or 0) + (0 if dtype is None else np.dtype(dtype).num))
    labels = blocky_labels(rng, (64, 80), [0, 1, 2, 5, 9, 40, 41, 1000])
    properties = SPATIAL + SPATIAL_2D
    intensity = None
    if dtype is not None:
        intensity = intensities(rng, labels.shape, dtype, channels)
        properties = ["label"] + INTENSITY + INTENSITY_2D
    got = glccl.regionprops_table(labels, intensity, properties)
    assert_table(got, expected_table(labels, intensity, properties))


@pytest.mark.parametrize("dtype, channels", [(None, None), (np.uint16, None), (np.float32, 3)])
def test_term_properties_3d(dtype, channels):
    rng = np.random.default_rng(20 + (channels or 0))
    labels = blocky_labels(rng, (20, 24, 28), [0, 3, 4, 7, 300], block=7, noise=0.02).astype(np.int32)
    properties = SPATIAL
    intensity = None
    if dtype is not None:
        intensity = intensities(rng, labels.shape, dtype, channels)
        properties = ["label"] + INTENSITY
    got = glccl.regionprops_table(labels, intensity, properties)
    assert_table(got, expected_table(labels, intensity, properties))


@pytest.mark.parametrize("big", [True, False])
def test_adversarial_regions(big):
    """One-pixel regions, lines, diagonals, holes, a region in two pieces,
    a frame on every border, labels past 2**32; the labels in several
    dtypes and memory layouts."""
    rng = np.random.default_rng(3)
    labels = adversarial_2d(big)
    intensity = intensities(rng, labels.shape, np.float64)
    properties = SPATIAL + SPATIAL_2D + INTENSITY + INTENSITY_2D
    want = expected_table(labels, intensity, properties)
    layouts = [labels, np.asfortranarray(labels)]
    if not big:
        layouts += [labels.astype(np.uint8), labels.astype(np.int16)[::-1][::-1], np.pad(labels, 1)[1:-1, 1:-1]]
    for layout in layouts:
        assert_table(glccl.regionprops_table(layout, intensity, properties), want)


def test_adversarial_regions_3d():
    rng = np.random.default_rng(4)
    labels = adversarial_3d()
    intensity = intensities(rng, labels.shape, np.uint16)
    properties = SPATIAL + INTENSITY
    want = expected_table(labels, intensity, properties)
    for layout in (labels, np.asfortranarray(labels)):
        assert_table(glccl.regionprops_table(layout, intensity, properties, threads=3), want)


def test_orientation_where_the_diagonal_is_equal():
    """Where the inertia tensor's a == c, orientation is the limit of
    0.5 * atan2(-2b, c - a) (scikit-image's newest): +pi/4 for a diagonal
    (b < 0), -pi/4 for an anti-diagonal, a single pixel and a square (this
    scikit-image's release gives the opposite sign there, so the expected
    values are written out)."""
    labels = np.zeros((12, 12), np.uint8)
    for i in range(5):
        labels[i, i] = 1
        labels[i, 10 - i] = 2
    labels[8, 1] = 3
    labels[8:10, 5:7] = 4
    got = glccl.regionprops_table(labels, properties=["label", "orientation"])
    assert list(got["orientation"]) == [math.pi / 4, -math.pi / 4, -math.pi / 4, -math.pi / 4]


def test_threads_give_the_same_table():
    rng = np.random.default_rng(5)
    labels = blocky_labels(rng, (64, 80), [0, 1, 2, 3, 2**35])
    intensity = intensities(rng, labels.shape, np.float32, 3)
    properties = SPATIAL + SPATIAL_2D + INTENSITY + INTENSITY_2D
    one = glccl.regionprops_table(labels, intensity, properties, threads=1)
    three = glccl.regionprops_table(labels, intensity, properties, threads=3)
    assert list(one) == list(three)
    for column in one:
        np.testing.assert_array_equal(one[column], three[column], err_msg=column)
    assert_table(three, expected_table(labels, intensity, properties))


def test_empty_image_has_the_columns_and_no_rows():
    crop_3d = [name for name in CROP if name not in ("feret_diameter_max", "solidity")]  # need a hull of volume
    for shape, properties in (((64, 80), SPATIAL + SPATIAL_2D + CROP), ((5, 6, 7), SPATIAL + crop_3d)):
        properties = [name for name in properties if name != "num_pixels"]  # not in this scikit-image
        labels = np.zeros(shape, np.uint16)
        intensity = np.zeros(shape + (3,), np.float32)
        got = glccl.regionprops_table(labels, intensity, properties + ["intensity_mean", "moments_weighted"])
        want = measure.regionprops_table(labels, intensity, properties + ["intensity_mean", "moments_weighted"])
        assert list(got) == list(want)
        for column, values in want.items():
            assert got[column].shape == (0,), column
            if column.split("-")[0] not in ("area", "area_bbox", "area_filled", "area_convex"):  # float64 since 0.20
                assert got[column].dtype.kind == values.dtype.kind, column


def test_std_intensity_is_intensity_std():
    """scikit-image's newest takes std_intensity for intensity_std (this
    release has neither): np.std of the region's samples."""
    rng = np.random.default_rng(15)
    labels = blocky_labels(rng, (30, 31), [0, 4, 8])
    intensity = intensities(rng, labels.shape, np.float64)
    got = glccl.regionprops_table(labels, intensity, properties=["label", "std_intensity"])
    assert list(got) == ["label", "std_intensity"]
    assert_close(got["std_intensity"], [np.std(intensity[labels == label]) for label in got["label"]], 0.0,
                 "std_intensity")


def test_old_names_and_separator():
    rng = np.random.default_rng(6)
    labels = blocky_labels(rng, (30, 31), [0, 4, 8])
    got = glccl.regionprops_table(labels, properties=["Area", "BoundingBox", "moments_central", "local_centroid"],
                                  separator="/")
    want = measure.regionprops_table(labels, properties=["Area", "BoundingBox", "moments_central", "local_centroid"],
                                     separator="/")
    assert list(got) == list(want)
    for column in want:
        np.testing.assert_allclose(got[column], want[column], rtol=1e-12, atol=1e-9, err_msg=column)


# --- Spacing, against exact sums ----------------------------------------------------------------------------------

def exact_spacing_columns(labels, intensity, spacing):
    """area, area_bbox, centroid, centroid_local, moments, moments_central,
    inertia_tensor (2-D) and centroid_weighted of each region with coordinates
    scaled by spacing, in exact fractions (scikit-image's newest
    definitions)."""
    ndim = labels.ndim
    step = [Fraction(s) for s in spacing]
    out = {}

    def put(name, index, value):
        out.setdefault("-".join(map(str, (name,) + index)), []).append(float(value))
    for label in np.unique(labels[labels != 0]):
        points = [tuple(int(c) for c in p) for p in np.argwhere(labels == label)]
        low = [min(p[a] for p in points) for a in range(ndim)]
        high = [max(p[a] for p in points) for a in range(ndim)]
        n = len(points)
        local = [[(p[a] - low[a]) * step[a] for a in range(ndim)] for p in points]
        put("area", (), n * math.prod(step))
        put("area_bbox", (), math.prod((high[a] - low[a] + 1) * step[a] for a in range(ndim)))
        centre = [sum(q[a] for q in local) / n for a in range(ndim)]
        for a in range(ndim):
            put("centroid", (a,), centre[a] + low[a] * step[a])
        for a in range(ndim):
            put("centroid_local", (a,), centre[a])
        for index in np.ndindex((4,) * ndim):
            put("moments", index, sum(math.prod(q[a] ** index[a] for a in range(ndim)) for q in local))
        mu = {}
        for index in np.ndindex((4,) * ndim):
            mu[index] = sum(math.prod((q[a] - centre[a]) ** index[a] for a in range(ndim)) for q in local)
            put("moments_central", index, mu[index])
        if ndim == 2:
            tensor = [[mu[0, 2] / n, -mu[1, 1] / n], [-mu[1, 1] / n, mu[2, 0] / n]]
            for index in np.ndindex((2, 2)):
                put("inertia_tensor", index, tensor[index[0]][index[1]])
        weights = [Fraction(int(intensity[p])) for p in points]
        for a in range(ndim):
            put("centroid_weighted", (a,), sum(w * p[a] * step[a] for w, p in zip(weights, points)) / sum(weights))
    return {name: np.array(values) for name, values in out.items()}


@pytest.mark.parametrize("shape, spacing", [((14, 17), (0.5, 2.0)), ((14, 17), (3.0, 0.25)),
                                            ((6, 7, 8), (2.0, 0.5, 1.5))])
def test_spacing_scales_coordinates(shape, spacing):
    rng = np.random.default_rng(7)
    labels = blocky_labels(rng, shape, [0, 1, 6, 2**34], block=4, noise=0.1)
    intensity = rng.integers(1, 50, shape).astype(np.uint8)
    properties = ["area", "area_bbox", "centroid", "centroid_local", "moments", "moments_central",
                  "centroid_weighted"] + (["inertia_tensor"] if len(shape) == 2 else [])
    got = glccl.regionprops_table(labels, intensity, properties, spacing=spacing)
    want = exact_spacing_columns(labels, intensity, spacing)
    for column in got:
        assert_close(got[column], want[column], scales(want, column.split("-")[0]), column)


def test_spacing_of_crop_properties_and_isotropic_perimeter():
    rng = np.random.default_rng(8)
    labels = blocky_labels(rng, (30, 32), [0, 2, 3], block=5)
    spacing = (0.5, 2.0)
    got = glccl.regionprops_table(labels, properties=["coords_scaled", "area_filled", "area_convex", "solidity"],
                                  spacing=spacing)
    regions = measure.regionprops(labels)
    for row, region in enumerate(regions):
        np.testing.assert_array_equal(got["coords_scaled"][row], region.coords * np.array(spacing))
        assert got["area_filled"][row] == region.area_filled * 1.0
        assert got["area_convex"][row] == region.area_convex * 1.0
        assert got["solidity"][row] == pytest.approx(region.solidity, rel=1e-12)
    got = glccl.regionprops_table(labels, properties=["perimeter", "perimeter_crofton"], spacing=(2.5, 2.5))
    want = measure.regionprops_table(labels, properties=["perimeter", "perimeter_crofton"])
    for column in want:
        assert_close(got[column], want[column] * 2.5, 0, column)


# --- Crop properties and extra_properties -------------------------------------------------------------------------

@pytest.mark.parametrize("ndim", [2, 3])
def test_crop_properties_against_skimage(ndim):
    rng = np.random.default_rng(9)
    if ndim == 2:
        labels = adversarial_2d(big=False).astype(np.uint16)
        properties = CROP
    else:
        labels = blocky_labels(rng, (12, 14, 16), [0, 1, 5, 6], block=5)
        properties = [name for name in CROP if name != "feret_diameter_max"]
    intensity = intensities(rng, labels.shape, np.uint16, 3)
    got = glccl.regionprops_table(labels, intensity, properties + ["intensity_median"])
    renumbered, present = consecutive(labels)
    want = measure.regionprops_table(renumbered, intensity, properties)
    assert list(got) == list(want) + ["intensity_median-0", "intensity_median-1", "intensity_median-2"]
    for column, values in want.items():
        if values.dtype == object:
            assert got[column].dtype == object
            for row, (g, w) in enumerate(zip(got[column], values)):
                if column == "slice":
                    assert g == w, (column, row)
                else:
                    np.testing.assert_array_equal(g, w, err_msg=f"{column} row {row}")
                    assert g.dtype == w.dtype, column
        else:
            assert got[column].dtype == np.float64, column
            np.testing.assert_allclose(got[column], values, rtol=1e-12, err_msg=column)
    for row, label in enumerate(present):
        for channel in range(3):
            assert got[f"intensity_median-{channel}"][row] == np.median(intensity[..., channel][labels == label])


def pixelcount(regionmask):
    return np.sum(regionmask)


def quartiles(regionmask, intensity):
    return np.percentile(intensity[regionmask], q=(25, 50, 75))


def bbox_list(regionmask):
    return [1] * int(np.sum(regionmask))


@pytest.mark.parametrize("channels", [None, 2])
def test_extra_properties_against_skimage(channels):
    rng = np.random.default_rng(11)
    labels = blocky_labels(rng, (40, 44), [0, 2, 3, 9])
    intensity = intensities(rng, labels.shape, np.float64, channels)
    got = glccl.regionprops_table(labels, intensity, ["label", "area"],
                                  extra_properties=[pixelcount, quartiles, bbox_list])
    want = measure.regionprops_table(labels, intensity, ["label", "area"],
                                     extra_properties=[pixelcount, quartiles, bbox_list])
    assert list(got) == list(want)
    for column, values in want.items():
        if values.dtype == object:
            assert got[column].dtype == object and list(got[column]) == list(values), column
        else:
            np.testing.assert_allclose(got[column], values, rtol=1e-12, err_msg=column)


# --- glccl.label(properties=...) and glccl.skimage.regionprops ----------------------------------------------------

def test_label_returns_the_properties_table():
    rng = np.random.default_rng(12)
    image = rng.random((64, 80)) < 0.45
    intensity = intensities(rng, image.shape, np.uint8)
    properties = ["label", "area", "bbox", "centroid", "perimeter", "intensity_mean", "image"]
    labels, n, table = glccl.label(image, connectivity=8, properties=properties, intensity_image=intensity,
                                   threads=2)
    np.testing.assert_array_equal(labels, measure.label(image, connectivity=2))
    assert isinstance(table, glccl.ComponentTable)
    want = measure.regionprops_table(measure.label(image, connectivity=2), intensity, properties)
    assert list(table) == list(want)
    assert len(table["label"]) == n
    assert [int(v) for v in table["label"]] == list(range(1, n + 1))
    for column, values in want.items():
        if values.dtype == object:
            assert all(np.array_equal(g, w) for g, w in zip(table[column], values)), column
        else:
            assert_close(table[column], values, scales(want, column.split("-")[0]), column)
    labels, n, table = glccl.label(image, properties=["area"], spacing=(2.0, 3.0))
    assert list(table) == ["area"] and list(table["area"]) == [6.0 * a for a in want["area"]]
    assert list(table.to_records()["area"]) == list(table["area"])  # a table without a label column


def test_regionprops_objects_against_skimage():
    rng = np.random.default_rng(13)
    labels = adversarial_2d(big=False)
    intensity = intensities(rng, labels.shape, np.float64)
    got = glccl.skimage.regionprops(labels, intensity)
    want = measure.regionprops(consecutive(labels)[0], intensity)
    assert len(got) == len(want)
    present = consecutive(labels)[1]
    for region, reference, label in zip(got, want, present):
        assert region.label == label and region["label"] == label
        assert region.bbox == reference.bbox and region.slice == reference.slice
        assert region.area == reference.area and isinstance(region.area, float)
        assert region.centroid == pytest.approx(reference.centroid, rel=1e-12)
        np.testing.assert_allclose(region["moments_central"], reference.moments_central, rtol=1e-9,
                                   atol=1e-9 * np.abs(reference.moments_central).max())
        assert region.intensity_mean == pytest.approx(reference.intensity_mean, rel=1e-12)
        np.testing.assert_array_equal(region.image, reference.image)
        np.testing.assert_array_equal(region.coords, reference.coords)
        assert region.solidity == pytest.approx(reference.solidity, rel=1e-12)
        assert region.perimeter == pytest.approx(reference.perimeter, rel=1e-12)
        assert region.mean_intensity == pytest.approx(reference.mean_intensity, rel=1e-12)
    assert "perimeter" in list(got[0])
    with pytest.raises(AttributeError):
        glccl.skimage.regionprops(labels)[0].intensity_mean
    with pytest.raises(NotImplementedError):
        glccl.skimage.regionprops(np.ones((2, 3, 4), np.uint8))[0].perimeter
    assert glccl.skimage.regionprops(np.zeros((5, 6), np.uint8)) == []
    scaled = glccl.skimage.regionprops(labels, spacing=(2.0, 0.5))
    assert [region.area for region in scaled] == [float(reference.area) for reference in want]
    assert [region.coords_scaled.tolist() for region in scaled] == \
        [(reference.coords * [2.0, 0.5]).tolist() for reference in want]


def test_skimage_regionprops_table_is_the_same_table():
    rng = np.random.default_rng(14)
    labels = blocky_labels(rng, (30, 40), [0, 1, 2])
    got = glccl.skimage.regionprops_table(labels, properties=["label", "bbox", "image", "eccentricity"])
    want = glccl.regionprops_table(labels, properties=["label", "bbox", "image", "eccentricity"])
    assert list(got) == list(want)


# --- Errors -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, words", [
    (lambda: glccl.regionprops_table(np.zeros(5, np.uint8)), TypeError, "2 dimensions"),
    (lambda: glccl.regionprops_table(np.zeros((2, 2, 2, 2), np.uint8)), TypeError, "not 4"),
    (lambda: glccl.regionprops_table(np.zeros((4, 4))), TypeError, "float64"),
    (lambda: glccl.regionprops_table(np.zeros((4, 4), bool)), TypeError, "ambiguous"),
    (lambda: glccl.regionprops_table(np.array([[0, -3]])), ValueError, "-3"),
    (lambda: glccl.regionprops_table(np.ones((4, 4), np.uint8), np.ones((4, 5))), ValueError, "(4, 5)"),
    (lambda: glccl.regionprops_table(np.ones((4, 4), np.uint8), np.ones((4, 4), complex)), TypeError, "complex"),
    (lambda: glccl.regionprops_table(np.ones((4, 4), np.uint8), properties=["label", "areaa"]), ValueError,
     "'areaa'"),
    (lambda: glccl.regionprops_table(np.ones((4, 4), np.uint8), properties="area"), TypeError, "one string"),
    (lambda: glccl.regionprops_table(np.ones((3, 4, 4), np.uint8), properties=["perimeter"]), ValueError,
     "2-D label images only"),
    (lambda: glccl.regionprops_table(np.ones((4, 4), np.uint8), properties=["intensity_mean"]), ValueError,
     "needs an intensity_image"),
    (lambda: glccl.regionprops_table(np.ones((4, 4), np.uint8), spacing=(1.0,)), ValueError, "one value per axis"),
    (lambda: glccl.regionprops_table(np.ones((4, 4), np.uint8), spacing=(1.0, -2.0)), ValueError, "positive"),
    (lambda: glccl.regionprops_table(np.ones((4, 4), np.uint8), properties=["moments_hu"], spacing=(2, 2)),
     ValueError, "spacing of 1"),
    (lambda: glccl.regionprops_table(np.ones((4, 4), np.uint8), properties=["perimeter"], spacing=(1, 2)),
     ValueError, "isotropic"),
    (lambda: glccl.regionprops_table(np.ones((4, 4), np.uint8), extra_properties=[3]), TypeError, "functions"),
])
def test_bad_input_is_refused_by_name(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value).startswith("glccl.regionprops_table(): ")
    assert words in str(caught.value)


def test_label_refuses_measuring_options_without_properties():
    with pytest.raises(ValueError, match=r"^glccl\.label\(\): "):
        glccl.label(np.ones((4, 4), np.uint8), intensity_image=np.ones((4, 4)))
    with pytest.raises(ValueError, match=r"^glccl\.label\(\): .*intensity_image"):
        glccl.label(np.ones((4, 4), np.uint8), properties=["intensity_mean"])


def test_a_crop_property_names_what_it_needs(monkeypatch):
    """Without scikit-image's morphology (or scipy's ndimage), the
    properties that need it raise ImportError naming the property; the
    term properties need neither."""
    import sys
    labels = adversarial_2d(big=False)
    monkeypatch.setitem(sys.modules, "skimage.morphology", None)
    monkeypatch.setitem(sys.modules, "scipy.ndimage", None)
    for name in ["solidity", "image_convex", "area_filled"]:
        with pytest.raises(ImportError, match=repr(name)):
            glccl.regionprops_table(labels, properties=["label", name])
    got = glccl.regionprops_table(labels, properties=["label", "area", "image"])
    assert list(got["area"]) == [float(np.count_nonzero(labels == label)) for label in got["label"]]
