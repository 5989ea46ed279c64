"""Region measurements as scikit-image's regionprops_table and regionprops
name them, for label images glccl made or any other.

The properties computed from per-region totals (counts, boxes, sums of
coordinate powers, intensity sums and extrema, local configurations: the
compiled module's term_properties()) come from one pass of the compiled
module's measure_regions over the labels, for every region at once. The
others (image, coords, image_convex, solidity, feret_diameter_max, ...) and
extra_properties are computed per region from its crop, the box that pass
gives, as scikit-image computes them; those need scikit-image (or scipy)
only where they are asked for.

Labels in GPU memory (CuPy, torch CUDA tensors, any __cuda_array_interface__
or CUDA DLPack producer) are measured on their GPU where the module was built
with CUDA (its device_measure_regions): the regions numbered, counted, boxed
and their totals gathered there, only the totals coming back, the columns
the same as of the labels copied to the host. What the GPU does not gather
is measured on the host after one copy of the arrays it reads: an intensity
of floating-point samples (its sums are double-double sums in the host's
order) or of several channels, and the crop properties and extra_properties
(the labels, and the intensity they read, copied once). A module built
without CUDA refuses device arrays, naming what to pass instead."""

import functools
import inspect
import math
import warnings

import numpy as np

from . import _glccl

# Properties measured from totals, where the compiled module does not say.
_TERMS = frozenset((
    "label", "num_pixels", "area", "bbox", "area_bbox", "extent", "centroid", "centroid_local",
    "equivalent_diameter_area", "moments", "moments_central", "moments_normalized", "moments_hu", "inertia_tensor",
    "inertia_tensor_eigvals", "orientation", "axis_major_length", "axis_minor_length", "eccentricity", "perimeter",
    "perimeter_crofton", "euler_number", "intensity_mean", "intensity_min", "intensity_max", "intensity_std",
    "intensity_sum", "intensity_variance", "intensity_min_position", "intensity_max_position", "centroid_weighted",
    "centroid_weighted_local", "moments_weighted", "moments_weighted_central", "moments_weighted_normalized",
    "moments_weighted_hu"))

# Properties computed from each region's crop.
_CROP = frozenset(("slice", "image", "coords", "coords_scaled", "image_intensity", "image_filled", "area_filled",
                   "image_convex", "area_convex", "solidity", "feret_diameter_max", "intensity_median"))
# Crop properties whose values are arrays of varying size: one object column each.
_OBJECT_COLUMNS = frozenset(("slice", "image", "coords", "coords_scaled", "image_intensity", "image_filled",
                             "image_convex"))
_ONLY_2D = frozenset(("moments_hu", "moments_weighted_hu", "orientation", "eccentricity", "perimeter",
                      "perimeter_crofton"))
_NEEDS_INTENSITY = frozenset((
    "intensity_mean", "intensity_min", "intensity_max", "intensity_std", "intensity_sum", "intensity_variance",
    "intensity_min_position", "intensity_max_position", "centroid_weighted", "centroid_weighted_local",
    "moments_weighted", "moments_weighted_central", "moments_weighted_normalized", "moments_weighted_hu",
    "image_intensity", "intensity_median"))
# Integer columns among scikit-image's properties (the others are float64).
_INTEGER_COLUMNS = frozenset(("label", "bbox", "num_pixels", "euler_number"))
# What each crop property needs imported, for the message where it cannot be.
_CROP_NEEDS = {"image_filled": "scipy", "area_filled": "scipy", "image_convex": "scikit-image",
               "area_convex": "scikit-image", "solidity": "scikit-image", "feret_diameter_max": "scikit-image"}

# scikit-image's earlier names of its properties, still taken by its
# regionprops_table (the columns keep the name asked for).
OLD_NAMES = {
    "Area": "area", "BoundingBox": "bbox", "BoundingBoxArea": "area_bbox", "bbox_area": "area_bbox",
    "CentralMoments": "moments_central", "Centroid": "centroid", "ConvexArea": "area_convex",
    "convex_area": "area_convex", "ConvexImage": "image_convex", "convex_image": "image_convex",
    "Coordinates": "coords", "Eccentricity": "eccentricity", "EquivDiameter": "equivalent_diameter_area",
    "equivalent_diameter": "equivalent_diameter_area", "EulerNumber": "euler_number", "Extent": "extent",
    "FeretDiameter": "feret_diameter_max", "FeretDiameterMax": "feret_diameter_max", "FilledArea": "area_filled",
    "filled_area": "area_filled", "FilledImage": "image_filled", "filled_image": "image_filled",
    "HuMoments": "moments_hu", "Image": "image", "InertiaTensor": "inertia_tensor",
    "InertiaTensorEigvals": "inertia_tensor_eigvals", "IntensityImage": "image_intensity",
    "intensity_image": "image_intensity", "Label": "label", "LocalCentroid": "centroid_local",
    "local_centroid": "centroid_local", "MajorAxisLength": "axis_major_length",
    "major_axis_length": "axis_major_length", "MaxIntensity": "intensity_max", "max_intensity": "intensity_max",
    "MeanIntensity": "intensity_mean", "mean_intensity": "intensity_mean", "MinIntensity": "intensity_min",
    "min_intensity": "intensity_min", "std_intensity": "intensity_std", "MinorAxisLength": "axis_minor_length",
    "minor_axis_length": "axis_minor_length", "Moments": "moments", "NormalizedMoments": "moments_normalized",
    "Orientation": "orientation", "Perimeter": "perimeter", "CroftonPerimeter": "perimeter_crofton",
    "Slice": "slice", "Solidity": "solidity", "WeightedCentralMoments": "moments_weighted_central",
    "weighted_moments_central": "moments_weighted_central", "WeightedCentroid": "centroid_weighted",
    "weighted_centroid": "centroid_weighted", "WeightedHuMoments": "moments_weighted_hu",
    "weighted_moments_hu": "moments_weighted_hu", "WeightedLocalCentroid": "centroid_weighted_local",
    "weighted_local_centroid": "centroid_weighted_local", "WeightedMoments": "moments_weighted",
    "weighted_moments": "moments_weighted", "WeightedNormalizedMoments": "moments_weighted_normalized",
    "weighted_moments_normalized": "moments_weighted_normalized",
}


def term_properties():
    """The properties the compiled module measures from totals (asked of
    the module once: every measuring call reads them)."""
    global _TERM_PROPERTIES
    if _TERM_PROPERTIES is None:
        entry = getattr(_glccl, "term_properties", None)
        _TERM_PROPERTIES = frozenset(entry()) if entry is not None else _TERMS
    return _TERM_PROPERTIES


_TERM_PROPERTIES = None


# --- Checking the arguments ---------------------------------------------------------------------------------------

def on_device(array):
    """Whether array is in GPU memory (CuPy, a torch CUDA tensor, any CUDA
    array interface or DLPack producer), which numpy cannot read."""
    return not isinstance(array, np.ndarray) and _glccl.is_device_array(array)


def refuse_device(array, what, where):
    """TypeError for a device array where it is not measured on its GPU
    (device_measurable() is False), naming what to pass instead."""
    if on_device(array):
        why = "CUDA does not run here" if hasattr(_glccl, "device_measure_regions") else \
            "this module was built without CUDA"
        raise TypeError(f"{where}: {what} is in GPU memory, and glccl measures host arrays here ({why}): pass it as a "
                        f"numpy array (cupy.asnumpy(a), or t.cpu().numpy() for a torch tensor), the labels of a device "
                        f"array included (glccl.label(image) on the device, then "
                        f"glccl.regionprops_table(cupy.asnumpy(labels), ...))")


def device_measurable():
    """Whether this module measures device arrays on their GPU: built with
    CUDA, and CUDA runs here."""
    global _DEVICE_MEASURABLE
    if _DEVICE_MEASURABLE is None:
        _DEVICE_MEASURABLE = hasattr(_glccl, "device_measure_regions") and bool(_glccl.cuda_runs())
    return _DEVICE_MEASURABLE


_DEVICE_MEASURABLE = None


def device_dtype(array):
    """The numpy dtype of a device array (CuPy's own, torch's by name)."""
    dtype = getattr(array, "dtype", None)
    try:
        return np.dtype(dtype)
    except TypeError:
        pass
    name = str(dtype)
    if name.startswith("torch."):
        return np.dtype({"torch.bool": "bool"}.get(name, name[len("torch."):]))
    return np.dtype(array.__cuda_array_interface__["typestr"])


def unaliased_intensity(intensity_image, out):
    """intensity_image, or a copy of it where out (the labels' array, filled
    before the measuring reads the intensity) may share its memory."""
    if intensity_image is None or out is None:
        return intensity_image
    if on_device(intensity_image) or on_device(out):
        if not (on_device(intensity_image) and on_device(out) and _glccl.devices_overlap(intensity_image, out)):
            return intensity_image
        return intensity_image.clone() if hasattr(intensity_image, "clone") else intensity_image.copy()
    if isinstance(out, np.ndarray) and np.may_share_memory(out, np.asarray(intensity_image)):
        return np.array(intensity_image, copy=True)
    return intensity_image


def to_host(array):
    """A device array copied to a numpy array (numpy arrays and None as they are)."""
    if array is None or not on_device(array):
        return array
    if type(array).__module__.split(".")[0] == "torch":
        return array.detach().cpu().numpy()
    if hasattr(array, "get") and type(array).__module__.split(".")[0] == "cupy":
        return array.get()
    import cupy
    return cupy.asnumpy(cupy.asarray(array))


def _gathered_on_gpu(intensity, ndim):
    """Whether the GPU gathers the terms of this intensity: one channel of
    integers or booleans (None: no intensity read)."""
    if intensity is None:
        return True
    return len(intensity.shape) == ndim and device_dtype(intensity).kind in "biu"


def checked_device_labels(label_image, where):
    """label_image, a device array, checked as checked_labels checks host
    labels (negative labels are refused by the pass over them)."""
    ndim = len(label_image.shape)
    if ndim not in (2, 3):
        raise TypeError(f"{where}: label_image must have 2 dimensions (rows, columns) or 3 (planes, rows, "
                        f"columns), not {ndim} (shape {tuple(label_image.shape)})")
    dtype = device_dtype(label_image)
    if dtype == bool:
        raise TypeError(f"{where}: label_image is boolean, which is ambiguous: label it first (glccl.label, "
                        f"glccl.skimage.label) to measure its connected components, or pass "
                        f"label_image.astype(cupy.uint8) to measure the True pixels as one region")
    if dtype.kind not in "iu":
        raise TypeError(f"{where}: label_image must hold integers (any width, signed or not), not {dtype}; "
                        f"non-integer labels are ambiguous")
    return label_image


def checked_device_intensity(intensity_image, labels, where):
    """intensity_image, a device array, checked against device labels as
    checked_intensity checks a host one."""
    if intensity_image is None:
        return None
    shape = tuple(int(side) for side in labels.shape)
    got = tuple(int(side) for side in intensity_image.shape)
    if got[:len(shape)] != shape or len(got) not in (len(shape), len(shape) + 1):
        raise ValueError(f"{where}: intensity_image must have the labels' shape {shape}, or that shape and one "
                         f"channel axis last, not {got}")
    dtype = device_dtype(intensity_image)
    if not (dtype.kind in "biu" or (dtype.kind == "f" and dtype.itemsize in (2, 4, 8))):
        raise TypeError(f"{where}: intensity_image must hold booleans, integers, float32 or float64, not {dtype}")
    return intensity_image


def _mixed(label_image, intensity_image):
    """Whether a call has arrays on the device (measured there)."""
    return on_device(label_image) or (intensity_image is not None and on_device(intensity_image))


def checked_labels(label_image, where):
    """label_image as a C-contiguous native integer array of 2 or 3
    dimensions, as scikit-image's regionprops takes it."""
    refuse_device(label_image, "label_image", where)
    labels = np.asarray(label_image)
    if labels.ndim not in (2, 3):
        raise TypeError(f"{where}: label_image must have 2 dimensions (rows, columns) or 3 (planes, rows, "
                        f"columns), not {labels.ndim} (shape {labels.shape})")
    if labels.dtype == bool:
        raise TypeError(f"{where}: label_image is boolean, which is ambiguous: label it first (glccl.label, "
                        f"glccl.skimage.label) to measure its connected components, or pass "
                        f"label_image.astype(np.uint8) to measure the True pixels as one region")
    if labels.dtype.kind not in "iu":
        raise TypeError(f"{where}: label_image must hold integers (any width, signed or not), not {labels.dtype}; "
                        f"non-integer labels are ambiguous")
    if not labels.dtype.isnative:
        labels = labels.astype(labels.dtype.newbyteorder("="))
    labels = np.ascontiguousarray(labels)
    if labels.dtype.kind == "i" and labels.size and labels.min() < 0:
        raise ValueError(f"{where}: label_image must hold 0 (background) and positive labels; the smallest is "
                         f"{labels.min()}")
    return labels


def checked_intensity(intensity_image, labels, where):
    """intensity_image as a C-contiguous native array of the labels' shape
    (plus a trailing channel axis) in a dtype the module reads, or None."""
    return checked_intensity_of_shape(intensity_image, labels.shape, where)


def checked_intensity_of_shape(intensity_image, shape, where):
    """checked_intensity for labels of `shape` (labels to come)."""
    if intensity_image is None:
        return None
    refuse_device(intensity_image, "intensity_image", where)
    intensity = np.asarray(intensity_image)
    ndim = len(shape)
    if intensity.shape[:ndim] != tuple(shape) or intensity.ndim not in (ndim, ndim + 1):
        raise ValueError(f"{where}: intensity_image must have the labels' shape {tuple(shape)}, or that shape and "
                         f"one channel axis last, not {intensity.shape}")
    if intensity.ndim == ndim + 1 and intensity.shape[-1] == 0:
        raise ValueError(f"{where}: intensity_image has a channel axis of no channels (shape {intensity.shape}): "
                         f"pass at least one channel")
    kind, size = intensity.dtype.kind, intensity.dtype.itemsize
    if kind == "f" and size < 4:
        intensity = intensity.astype(np.float32)  # every float16 exactly
    elif not (kind in "biu" or (kind == "f" and size in (4, 8))):
        raise TypeError(f"{where}: intensity_image must hold booleans, integers, float32 or float64, not "
                        f"{intensity.dtype}")
    if not intensity.dtype.isnative:
        intensity = intensity.astype(intensity.dtype.newbyteorder("="))
    return np.ascontiguousarray(intensity)


def checked_spacing(spacing, ndim, where):
    """spacing as a tuple of ndim positive finite floats, or None."""
    if spacing is None:
        return None
    try:
        values = tuple(float(value) for value in np.asarray(spacing, dtype=float).ravel())
    except (TypeError, ValueError):
        raise TypeError(f"{where}: spacing must be a sequence of {ndim} numbers, not {spacing!r}") from None
    if len(values) != ndim or np.ndim(spacing) > 1:
        raise ValueError(f"{where}: spacing must have one value per axis of the labels ({ndim}), not {spacing!r}")
    if not all(math.isfinite(value) and value > 0 for value in values):
        raise ValueError(f"{where}: spacing must be positive and finite, not {spacing!r}")
    return values


def _unit(spacing):
    return spacing is None or all(value == 1.0 for value in spacing)


def checked_properties(properties, ndim, has_intensity, where, spacing=None):
    """[(name asked for, canonical name)], or TypeError / ValueError naming
    the first property that is unknown, not defined in ndim dimensions,
    needs an intensity image absent, or is not defined for the spacing (Hu
    moments for a spacing other than 1, perimeters for an anisotropic one,
    as scikit-image refuses them)."""
    if isinstance(properties, (str, bytes)):
        raise TypeError(f"{where}: properties must be a list of property names, e.g. ({properties!r},), not "
                        f"one string")
    try:
        names = list(properties)
    except TypeError:
        raise TypeError(f"{where}: properties must be a list of property names, not "
                        f"{type(properties).__name__}") from None
    terms = term_properties()
    checked = []
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{where}: property names are strings, not {name!r}")
        canonical = OLD_NAMES.get(name, name)
        if canonical not in terms and canonical not in _CROP:
            raise ValueError(f"{where}: unknown property {name!r}; the properties are "
                             f"{', '.join(sorted(terms | _CROP))}")
        if canonical in _ONLY_2D and ndim != 2:
            raise ValueError(f"{where}: property {name!r} is defined for 2-D label images only, not {ndim}-D ones")
        if canonical in _NEEDS_INTENSITY and not has_intensity:
            raise ValueError(f"{where}: property {name!r} needs an intensity_image")
        if canonical in ("moments_hu", "moments_weighted_hu") and not _unit(spacing):
            raise ValueError(f"{where}: property {name!r} is defined for a spacing of 1 only, not {spacing}")
        if canonical in ("perimeter", "perimeter_crofton") and spacing is not None and len(set(spacing)) > 1:
            raise ValueError(f"{where}: property {name!r} takes an isotropic spacing only (one value on every "
                             f"axis), not {spacing}")
        checked.append((name, canonical))
    return checked


def checked_extras(extra_properties, where):
    """extra_properties as a list of callables (each named by its __name__)."""
    if extra_properties is None:
        return []
    try:
        extras = list(extra_properties)
    except TypeError:
        raise TypeError(f"{where}: extra_properties must be a list of functions, not "
                        f"{type(extra_properties).__name__}") from None
    for function in extras:
        if not callable(function) or not hasattr(function, "__name__"):
            raise TypeError(f"{where}: extra_properties must be functions (named by their __name__), not "
                            f"{function!r}")
    return extras


def unshadowed_extras(properties, extras):
    """(properties, extras) with each extra named as a property (label, area,
    bbox, ...) taken out of extras and its name asked as that property, with
    scikit-image's warning: its regions' own attributes shadow such extras."""
    shadowed = [function for function in extras if _is_property_name(function.__name__)]
    if not shadowed or isinstance(properties, (str, bytes)):
        return properties, extras
    try:
        asked = list(properties)
    except TypeError:
        return properties, extras  # checked_properties says what properties must be
    for function in shadowed:
        warnings.warn(f"Extra property '{function.__name__}' is shadowed by existing property and will be "
                      f"inaccessible. Consider renaming it.", UserWarning, stacklevel=4)
    return asked + [function.__name__ for function in shadowed], [f for f in extras if f not in shadowed]


def _is_property_name(name):
    return name in OLD_NAMES or name in _CROP or name in term_properties()


def checked_threads(threads, where):
    """threads as glccl.label() takes them: None (every core) or a count of at most what a call may ask for."""
    return _glccl.checked_threads(threads, where)


# --- The table ----------------------------------------------------------------------------------------------------

def _group(columns, names, separator="-"):
    """The module's columns (named with `separator`) of each canonical name:
    {canonical: [(element indices, column)]}, in the module's order."""
    layout = _column_layout(tuple(columns), tuple(names), separator)
    return {name: [(suffix, columns[column]) for suffix, column in entries] for name, entries in layout.items()}


@functools.lru_cache(maxsize=64)
def _column_layout(columns, names, separator):
    """_group's {canonical: [(element indices, column name)]} for the
    module's column names: the same for every call of one request, so
    parsed once."""
    groups = {name: [] for name in names}
    for column in columns:
        base, _, suffix = column.partition(separator)
        if base in groups:
            groups[base].append((tuple(int(part) for part in suffix.split(separator)) if suffix else (), column))
    return groups


def _term_column(canonical, values):
    """A column of the module in scikit-image's dtype: int64 for its integer
    properties (labels past int64 stay uint64), float64 for the others; the
    properties scikit-image lacks keep the module's dtype."""
    values = np.asarray(values)
    if canonical in _INTEGER_COLUMNS:
        if values.dtype == np.uint64 and values.size and values.max() > np.iinfo(np.int64).max:
            return values
        return values.astype(np.int64, copy=False)
    if canonical in ("intensity_sum", "intensity_variance", "intensity_min_position", "intensity_max_position"):
        return values
    return values.astype(np.float64, copy=False)


def measure_terms(labels, intensity, canonicals, spacing, threads, background=False, components=None):
    """One pass of the module over the labels: {column name with '-':
    column} of the term properties `canonicals`, a row per label present in
    ascending order (label 0 first, where background and present). The
    intensity is read only where a property needs it. components: the
    component table glccl made with these labels (1..n, uint32 or uint64),
    whose boxes and areas are taken instead of gathered."""
    canonicals = list(canonicals)
    if not any(name in _NEEDS_INTENSITY for name in canonicals):
        intensity = None
    if on_device(labels):
        return device_measure_terms(labels, intensity, canonicals, spacing, background)
    if components is not None and labels.dtype in (np.uint32, np.uint64) and not background:
        return _glccl.measure_regions(labels, intensity, canonicals, spacing, "-", threads, False, components)
    return _glccl.measure_regions(labels, intensity, canonicals, spacing, "-", threads, bool(background))


def device_measure_terms(labels, intensity, canonicals, spacing, background=False,
                         where="glccl.regionprops_table()"):
    """measure_terms of device labels (checked_device_labels): on their GPU
    where the intensity read is one there of integers (or none), else on the
    host after copying both."""
    if intensity is not None and not any(name in _NEEDS_INTENSITY for name in canonicals):
        intensity = None
    if intensity is None or (on_device(intensity) and _gathered_on_gpu(intensity, len(labels.shape))):
        return _glccl.device_measure_regions(labels, intensity, list(canonicals), spacing, "-", bool(background),
                                             where)
    host_labels = checked_labels(to_host(labels), where)
    host_intensity = checked_intensity(to_host(intensity), host_labels, where)
    return measure_terms(host_labels, host_intensity, canonicals, spacing, None, background)


def _crop_slices(bbox_columns, ndim):
    """Each row's box as a tuple of slices, from the module's bbox columns."""
    starts = [np.asarray(bbox_columns[(axis,)], dtype=np.int64) for axis in range(ndim)]
    stops = [np.asarray(bbox_columns[(ndim + axis,)], dtype=np.int64) for axis in range(ndim)]
    return [tuple(slice(int(starts[axis][row]), int(stops[axis][row])) for axis in range(ndim))
            for row in range(len(starts[0]) if starts else 0)]


def _required_arguments(function):
    """How many arguments a function needs (scikit-image's test of whether
    an extra property takes the intensity image)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(1 for p in parameters
               if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


class Crop:
    """One region seen through its box: the values of the properties
    computed from the crop, as scikit-image computes them (with its newest
    spacing rules: areas scaled by the element's volume, coords_scaled and
    feret_diameter_max in physical units)."""

    def __init__(self, labels, intensity, label, box, spacing, extras):
        self._labels, self._intensity, self.label, self.slice = labels, intensity, label, box
        self._spacing = np.ones(labels.ndim) if spacing is None else np.asarray(spacing, dtype=float)
        self._extras = {function.__name__: function for function in extras}
        self._cache = {}

    def _cached(self, name, compute):
        if name not in self._cache:
            self._cache[name] = compute()
        return self._cache[name]

    @property
    def multichannel(self):
        return self._intensity is not None and self._intensity.ndim > self._labels.ndim

    @property
    def image(self):
        label = self._labels.dtype.type(self.label)  # compared in the labels' own dtype
        return self._cached("image", lambda: self._labels[self.slice] == label)

    @property
    def image_intensity(self):
        def compute():
            mask = self.image[..., np.newaxis] if self.multichannel else self.image
            return self._intensity[self.slice] * mask
        return self._cached("image_intensity", compute)

    @property
    def coords(self):
        return self._cached("coords", lambda: np.argwhere(self.image) + [s.start for s in self.slice])

    @property
    def coords_scaled(self):
        return self.coords * self._spacing

    @property
    def image_filled(self):
        def compute():
            ndimage = _imported("scipy.ndimage", "image_filled")
            return ndimage.binary_fill_holes(self.image, np.ones((3,) * self.image.ndim))
        return self._cached("image_filled", compute)

    @property
    def area_filled(self):
        return float(np.count_nonzero(self.image_filled)) * float(np.prod(self._spacing))

    @property
    def image_convex(self):
        def compute():
            morphology = _imported("skimage.morphology", "image_convex")
            return morphology.convex_hull_image(self.image)
        return self._cached("image_convex", compute)

    @property
    def area_convex(self):
        return float(np.count_nonzero(self.image_convex)) * float(np.prod(self._spacing))

    @property
    def solidity(self):
        # A hull of no volume (one voxel in 3-D) gives inf, as in scikit-image.
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.float64(np.count_nonzero(self.image)) / np.float64(np.count_nonzero(self.image_convex))

    @property
    def feret_diameter_max(self):
        measure = _imported("skimage.measure", "feret_diameter_max")
        hull = np.pad(self.image_convex, 2, mode="constant", constant_values=0)
        if hull.ndim == 2:
            points = np.vstack(measure.find_contours(hull, 0.5, fully_connected="high"))
        else:
            points = measure.marching_cubes(hull, level=0.5)[0]
        points = points * self._spacing
        distance = _imported("scipy.spatial.distance", "feret_diameter_max")
        return math.sqrt(np.max(distance.pdist(points, "sqeuclidean")))

    @property
    def intensity_median(self):
        return np.median(self._intensity[self.slice][self.image], axis=0).astype(np.float64)

    def extra(self, name):
        function = self._extras[name]
        if _required_arguments(function) == 2 and self._intensity is not None:
            if self.multichannel:
                return np.stack([function(self.image, self.image_intensity[..., channel])
                                 for channel in range(self.image_intensity.shape[-1])], axis=-1)
            return function(self.image, self.image_intensity)
        return function(self.image)

    def value(self, name):
        return self.extra(name) if name in self._extras else getattr(self, name)


def _imported(module, prop):
    """The module a crop property needs, or ImportError naming the property."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        package = "scikit-image" if module.startswith("skimage") else module.split(".")[0]
        raise ImportError(f"glccl: property {prop!r} is computed from each region's crop by {package}, which this "
                          f"interpreter cannot import") from None


def _extra_dtype(function, has_intensity, ndim):
    """The column dtype of an extra property, inferred as scikit-image
    infers it: by calling it on two small sample regions; one array shape
    for both gives that array's dtype (and columns per element), else an
    object column."""
    small = np.pad(np.ones((1,) * ndim, dtype=int), (0, 1))
    large = np.pad(np.ones((2,) * ndim, dtype=int), (1, 0))
    rng = np.random.default_rng(0)
    if has_intensity and _required_arguments(function) == 2:
        values = [function(mask, rng.random(mask.shape)) for mask in (small, large)]
    else:
        values = [function(mask) for mask in (small, large)]
    if (np.isscalar(values[0]) and np.isscalar(values[1])) or np.shape(values[0]) == np.shape(values[1]):
        return np.array(values[0]).dtype.type
    return np.object_


def _crop_columns(out, name, values, dtype, separator, as_object, shape=None):
    """Columns of one crop property into out, laid out as scikit-image's
    regionprops_table lays them: one column for scalars and objects, one
    per element for arrays of one shape (that of the first value, or
    `shape` where there are no values)."""
    n = len(values)
    shape = np.shape(values[0]) if values else shape
    if as_object or dtype is np.object_ or shape == ():
        column = np.empty(n, dtype=dtype)
        for row, value in enumerate(values):
            column[row] = value
        out[name] = column
        return
    for index in np.ndindex(shape):
        out[separator.join(map(str, (name,) + index))] = np.array(
            [np.asarray(value)[index] for value in values], dtype=dtype)


def _sample(labels, intensity):
    """scikit-image's sample for the layout of a table without regions: one
    element of label 1 in the middle of a 3 (x 3) zero image."""
    sample = np.zeros((3,) * labels.ndim, dtype=labels.dtype)
    sample[(1,) * labels.ndim] = 1
    if intensity is not None:
        intensity = np.zeros(sample.shape + intensity.shape[labels.ndim:], dtype=intensity.dtype)
    return sample, intensity


def terms_needed(properties, ndim, has_intensity, spacing, extras, where):
    """(checked_properties's list, the term properties (canonical names) a
    table of `properties` and extras is made from: those asked, and the
    label and box the crops are cut by); checks too that what the crop
    properties need imports."""
    asked = checked_properties(properties, ndim, has_intensity, where, spacing)
    terms = term_properties()
    term_names = list(dict.fromkeys(canonical for _, canonical in asked if canonical in terms))
    crop_names = list(dict.fromkeys(canonical for _, canonical in asked if canonical in _CROP))
    for canonical in crop_names:
        if canonical in _CROP_NEEDS:
            _imported({"scipy": "scipy.ndimage", "scikit-image": "skimage.morphology"}[_CROP_NEEDS[canonical]],
                      canonical)
    if crop_names or extras:
        needed = term_names + [name for name in ("label", "bbox") if name not in term_names]
    else:
        needed = term_names
    return asked, needed or ["label"]


def reads_intensity(needed):
    """Whether any of the term properties `needed` reads the intensity."""
    return any(name in _NEEDS_INTENSITY for name in needed)


def table(labels, intensity, properties, spacing, separator, extras, threads, where, components=None, columns=None,
          needed=None):
    """regionprops_table's dict for checked arguments (checked_* above);
    components as measure_terms takes them. columns: the term properties'
    columns (terms_needed's, named with '-'), measured already with the
    labels (glccl.label(properties=)); None: measured here. needed:
    terms_needed's result for these arguments where the caller has it."""
    asked, needed = needed or terms_needed(properties, labels.ndim, intensity is not None, spacing, extras, where)
    terms = term_properties()
    crop_names = [canonical for _, canonical in asked if canonical in _CROP]
    if columns is None:
        columns = measure_terms(labels, intensity, needed, spacing, threads, components=components)
    groups = _group(columns, needed, "-")
    crops = []
    if crop_names or extras:
        slices = _crop_slices(dict(groups["bbox"]), labels.ndim)
        crops = [Crop(labels, intensity, int(label), box, spacing, extras)
                 for label, box in zip(dict(groups["label"])[()], slices)]
    if not crops and (crop_names or extras):
        # No regions: the columns are laid out from scikit-image's sample
        # region (one element of label 1 in a 3 (x 3) image).
        sample, sample_intensity = _sample(labels, intensity)
        layout = Crop(sample, sample_intensity, 1, (slice(1, 2),) * labels.ndim, spacing, extras)

    out = {}
    for name, canonical in asked:
        if canonical in terms:
            for suffix, values in groups[canonical]:
                out[separator.join((name,) + tuple(map(str, suffix)))] = _term_column(canonical, values)
        elif canonical in _OBJECT_COLUMNS:
            _crop_columns(out, name, [crop.value(canonical) for crop in crops], object, separator, True)
        elif crops:
            _crop_columns(out, name, [crop.value(canonical) for crop in crops], np.float64, separator, False)
        else:
            channels = intensity.shape[-1] if canonical == "intensity_median" and layout.multichannel else 0
            _crop_columns(out, name, [], np.float64, separator, False, (channels,) if channels else ())
    for function in extras:
        dtype = _extra_dtype(function, intensity is not None, labels.ndim)
        name = function.__name__
        if crops:
            _crop_columns(out, name, [crop.extra(name) for crop in crops], dtype, separator, False)
        else:
            _crop_columns(out, name, [], dtype, separator, False, np.shape(layout.extra(name)))
    return out


def regionprops_table(label_image, intensity_image=None, properties=("label", "bbox"), *, cache=True, separator="-",
                      extra_properties=None, spacing=None, threads=None, where="glccl.regionprops_table()",
                      components=None):
    """Region properties as a dict of columns, as
    skimage.measure.regionprops_table (glccl.regionprops_table's body);
    components: the table glccl made with these labels (measure_terms)."""
    if _mixed(label_image, intensity_image) and device_measurable():
        if not isinstance(separator, str):
            raise TypeError(f"{where}: separator must be a string, not {type(separator).__name__}")
        return device_table(label_image, intensity_image, properties, spacing, separator, extra_properties,
                            checked_threads(threads, where), where)
    labels = checked_labels(label_image, where)
    intensity = checked_intensity(intensity_image, labels, where)
    spacing = checked_spacing(spacing, labels.ndim, where)
    properties, extras = unshadowed_extras(properties, checked_extras(extra_properties, where))
    if not isinstance(separator, str):
        raise TypeError(f"{where}: separator must be a string, not {type(separator).__name__}")
    return table(labels, intensity, properties, spacing, separator, extras, checked_threads(threads, where), where,
                 components)


def device_table(label_image, intensity_image, properties, spacing, separator, extra_properties, threads, where):
    """regionprops_table's dict where an array is in GPU memory: the term
    properties gathered on the GPU (device_measure_terms), the crop
    properties and extra_properties computed on host copies of the labels
    (and intensity), made once where they are asked for. Labels on the host
    with an intensity on the device are measured on the host."""
    if not on_device(label_image):
        labels = checked_labels(label_image, where)
        intensity = checked_intensity(to_host(intensity_image), labels, where)
        properties, extras = unshadowed_extras(properties, checked_extras(extra_properties, where))
        return table(labels, intensity, properties, checked_spacing(spacing, labels.ndim, where), separator, extras,
                     threads, where)
    labels = checked_device_labels(label_image, where)
    ndim = len(labels.shape)
    if intensity_image is not None and not on_device(intensity_image):
        intensity_image = checked_intensity(intensity_image, np.empty(tuple(labels.shape), np.uint8), where)
    intensity = checked_device_intensity(intensity_image, labels, where) if on_device(intensity_image) \
        else intensity_image
    spacing = checked_spacing(spacing, ndim, where)
    properties, extras = unshadowed_extras(properties, checked_extras(extra_properties, where))
    asked, needed = terms_needed(properties, ndim, intensity is not None, spacing, extras, where)
    if intensity is not None and not on_device(intensity) and reads_intensity(needed):
        # A host intensity with device labels: the terms measured on the host.
        columns = measure_terms(checked_labels(to_host(labels), where), intensity, needed, spacing, threads)
    else:
        columns = device_measure_terms(labels, intensity, needed, spacing, False, where)
    if any(canonical not in term_properties() for _, canonical in asked) or extras:
        host_labels = checked_labels(to_host(labels), where)
        host_intensity = None if intensity is None else checked_intensity(to_host(intensity), host_labels, where)
    else:
        # No crop is cut: what the table reads of the arrays is their
        # dimensions and dtypes (the layout of a table without regions).
        host_labels = np.zeros((1,) * ndim, device_dtype(labels))
        host_intensity = None if intensity is None else np.zeros(
            (1,) * ndim + tuple(int(side) for side in intensity.shape[ndim:]), device_dtype(intensity))
    return table(host_labels, host_intensity, properties, spacing, separator, extras, threads, where,
                 columns=columns)


# --- regionprops: region objects over one shared measurement -----------------------------------------------------

# Properties whose value scikit-image gives as a tuple (the others of several
# elements as arrays).
_TUPLES = frozenset(("bbox", "centroid", "centroid_local", "centroid_weighted", "intensity_min_position",
                     "intensity_max_position"))


class Regions:
    """What the regions of one regionprops call share: the labels, boxes and
    areas (one pass), and each term property's values for every region,
    measured in one pass on the first access of that property."""

    def __init__(self, labels, intensity, spacing, extras, cache, threads, where="glccl.skimage.regionprops()"):
        # Device labels (and intensity) are measured where they are; the
        # crops are cut from host copies, made on the first crop.
        self._measured, self._measured_intensity = labels, intensity
        self._host = None if on_device(labels) or (intensity is not None and on_device(intensity)) \
            else (labels, intensity)
        self.ndim, self.where = len(labels.shape), where
        self.has_intensity = intensity is not None
        self.spacing, self.extras, self.cache, self.threads = spacing, extras, cache, threads
        groups = _group(self._measure(["label", "bbox", "area"]), ["label", "bbox", "area"], "-")
        self.labels = [int(label) for label in dict(groups["label"])[()]]
        self.slices = _crop_slices(dict(groups["bbox"]), self.ndim)
        self.areas = [float(area) for area in dict(groups["area"])[()]]
        self._values = {}

    def _measure(self, canonicals):
        if on_device(self._measured):
            return device_measure_terms(self._measured, self._measured_intensity, canonicals, self.spacing, False,
                                        self.where)
        return measure_terms(self._measured, to_host(self._measured_intensity), canonicals, self.spacing,
                             self.threads)

    def host_arrays(self):
        """(labels, intensity) on the host, copied once from the device."""
        if self._host is None:
            labels = checked_labels(to_host(self._measured), self.where)
            intensity = self._measured_intensity
            self._host = (labels, None if intensity is None else checked_intensity(to_host(intensity), labels,
                                                                                   self.where))
        return self._host

    def __len__(self):
        return len(self.labels)

    def values(self, canonical):
        """The values of a term property, one per region, as scikit-image
        gives them: numbers, tuples, or arrays (the channels last)."""
        if canonical not in self._values:
            columns = self._measure([canonical])
            parts = _group(columns, [canonical], "-")[canonical]
            rows = len(self.labels)
            if len(parts) == 1 and parts[0][0] == ():
                values = list(_term_column(canonical, parts[0][1]))
            else:
                shape = tuple(max(suffix[axis] for suffix, _ in parts) + 1 for axis in range(len(parts[0][0])))
                dtype = _term_column(canonical, parts[0][1]).dtype
                array = np.zeros((rows,) + shape, dtype=dtype)
                for suffix, column in parts:
                    array[(slice(None),) + suffix] = _term_column(canonical, column)
                if canonical in _TUPLES and len(shape) == 1:
                    values = [tuple(row) for row in array.tolist()]
                else:
                    values = list(array)
            self._values[canonical] = values
        return self._values[canonical]


class RegionProperties:
    """One region of glccl.skimage.regionprops: scikit-image's properties as
    attributes (region.area) and items (region['area']). label, bbox, slice
    and area are known from the start; a term property is measured for every
    region at once on its first access, the others computed from this
    region's crop (and kept when cache is True)."""

    def __init__(self, regions, row):
        self._regions, self._row, self._crop = regions, row, None

    @property
    def label(self):
        return self._regions.labels[self._row]

    @property
    def slice(self):
        return self._regions.slices[self._row]

    @property
    def bbox(self):
        box = self.slice
        return tuple(s.start for s in box) + tuple(s.stop for s in box)

    @property
    def area(self):
        return self._regions.areas[self._row]

    def _crop_of(self):
        regions = self._regions
        labels, intensity = regions.host_arrays() if self._crop is None else (None, None)
        crop = self._crop or Crop(labels, intensity, self.label, self.slice, regions.spacing, regions.extras)
        if regions.cache:
            self._crop = crop
        return crop

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        regions = self._regions
        if name in {function.__name__ for function in regions.extras}:
            return self._crop_of().extra(name)
        canonical = OLD_NAMES.get(name, name)
        terms = term_properties()
        if canonical not in terms and canonical not in _CROP:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if canonical in _ONLY_2D and regions.ndim != 2:
            raise NotImplementedError(f"Property {canonical} is not implemented for 3D images")
        if canonical in _NEEDS_INTENSITY and not regions.has_intensity:
            raise AttributeError("No intensity image specified.")
        if canonical in terms:
            if canonical in ("moments_hu", "moments_weighted_hu") and not _unit(regions.spacing):
                raise NotImplementedError(f"`{canonical}` supports spacing = (1, 1) only")
            return regions.values(canonical)[self._row]
        return self._crop_of().value(canonical)

    def __getitem__(self, key):
        return getattr(self, key)

    def __iter__(self):
        ndim = self._regions.ndim
        has_intensity = self._regions.has_intensity
        names = (term_properties() | _CROP) - {"intensity_median"}
        return iter(sorted(name for name in names
                           if (ndim == 2 or name not in _ONLY_2D) and (has_intensity or name not in _NEEDS_INTENSITY)))

    def __repr__(self):
        return f"<glccl RegionProperties label={self.label} bbox={self.bbox}>"


def regionprops(label_image, intensity_image=None, cache=True, *, extra_properties=None, spacing=None, threads=None,
                where="glccl.skimage.regionprops()"):
    """The regions of a label image as a list of RegionProperties, as
    skimage.measure.regionprops (glccl.skimage.regionprops's body). Device
    labels are measured on their GPU (the term properties; the crops are cut
    from one host copy); a device intensity with host labels is copied to
    the host."""
    if _mixed(label_image, intensity_image) and device_measurable():
        if on_device(label_image):
            labels = checked_device_labels(label_image, where)
            intensity = intensity_image
            if intensity is not None and on_device(intensity):
                intensity = checked_device_intensity(intensity, labels, where)
            elif intensity is not None:
                intensity = checked_intensity(intensity, np.empty(tuple(labels.shape), np.uint8), where)
            spacing = checked_spacing(spacing, len(labels.shape), where)
            extras = checked_extras(extra_properties, where)
            regions = Regions(labels, intensity, spacing, extras, bool(cache), checked_threads(threads, where), where)
            return [RegionProperties(regions, row) for row in range(len(regions))]
        intensity_image = to_host(intensity_image)
    labels = checked_labels(label_image, where)
    intensity = checked_intensity(intensity_image, labels, where)
    spacing = checked_spacing(spacing, labels.ndim, where)
    extras = checked_extras(extra_properties, where)
    regions = Regions(labels, intensity, spacing, extras, bool(cache), checked_threads(threads, where), where)
    return [RegionProperties(regions, row) for row in range(len(regions))]
