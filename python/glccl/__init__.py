"""glccl: connected-component labeling on the GPU (OpenGL compute or raster,
CUDA) or the CPU, for numpy and CuPy images and volumes.

    labels, n = glccl.label(image, connectivity=8)
    labels, n, table = glccl.label(image, return_table=True)   # table["label"] is 1..n
    labeler = glccl.Labeler(connectivity=8)                    # many images of one size
    labels, n = labeler.label(frame)

Drop-ins with the signatures, defaults, dtypes and results of the libraries
they replace:

    from glccl.skimage import label            # skimage.measure.label (regionprops, regionprops_table too)
    from glccl.ndimage import label            # scipy.ndimage.label (sum_labels, mean, extrema, ... too)
    from glccl import cc3d                     # cc3d.connected_components, dust, largest_k, statistics

glccl.label's own criterion is "binary" (nonzero pixels): an integer image
of segment ids is one component there, while skimage.measure.label (and
glccl.skimage.label) separate regions of equal value; pass
criterion="segments" for that.

Helpers on label arrays: remove_small, keep_largest, find_objects, relabel.
Region measurements: regionprops_table (scikit-image's, for any label
image), and label(..., properties=[...]) for the components found.

One headless OpenGL context (EGL) is created on the first call and kept for
the life of the process; it is used from one thread at a time under a lock,
and every function releases the GIL while it labels, so all of glccl is
thread-safe. See help(glccl.label) and help(glccl.Labeler).
"""

import sys as _sys

from . import _build


def _built_for():
    return f"{_build.INTERPRETER} (Python {_build.PYTHON_VERSION})"


try:
    import numpy as _np
except ImportError:
    raise ImportError(
        f"glccl needs numpy, which {_sys.executable} (Python {_sys.version.split()[0]}) cannot import; glccl was "
        f"built for {_built_for()}: run that interpreter, or install numpy for this one") from None

def _pybind11_reads(numpy_version, pybind11_version):
    """Whether a module built with pybind11 `pybind11_version` reads the
    arrays of numpy `numpy_version`: numpy 2 moved fields of its dtype
    structure, which pybind11 reads from 2.12 on; older builds would give
    wrong tables, not an error."""
    def numbers(text):
        return tuple(int(part) for part in (text.split(".") + ["0", "0"])[:2] if part.isdigit())
    return numbers(numpy_version)[:1] < (2,) or not pybind11_version or numbers(pybind11_version) >= (2, 12)


if not _pybind11_reads(_np.__version__, _build.PYBIND11_VERSION):
    raise ImportError(
        f"glccl was built with pybind11 {_build.PYBIND11_VERSION}, which cannot read the arrays of numpy "
        f"{_np.__version__} that {_sys.executable} has; build glccl with pybind11 2.12 or later, or use numpy 1")

try:
    from . import _glccl
except ImportError as _error:
    import sysconfig as _sysconfig
    _suffix = _sysconfig.get_config_var("EXT_SUFFIX")
    _why = (f"its compiled module is {_build.EXTENSION_SUFFIX}, this interpreter loads {_suffix}"
            if _suffix != _build.EXTENSION_SUFFIX else str(_error))
    raise ImportError(
        f"glccl was built for {_built_for()} and cannot be imported by {_sys.executable} "
        f"(Python {_sys.version.split()[0]}): {_why}; run {_build.INTERPRETER}, or build glccl for this "
        f"interpreter (python -m pip install --no-build-isolation . with it)") from None

from ._table import ComponentTable  # noqa: E402
from ._keywords import refuse_unknown as _refuse_unknown  # noqa: E402
from ._helpers import find_objects, keep_largest, relabel, remove_small  # noqa: E402
from . import _measure  # noqa: E402

__version__ = _glccl.__version__
# Whether this module was built with CUDA (it then takes device arrays);
# has_cuda says whether CUDA can run here too.
built_with_cuda = _glccl.built_with_cuda
backends = _glccl.backends
_has_cuda = None


def __getattr__(name):
    # glccl.has_cuda: whether the cuda backend runs here (built with CUDA,
    # and a CUDA driver and device usable), asked of the driver on first use
    # rather than at import, so that importing glccl starts no CUDA.
    global _has_cuda
    if name == "has_cuda":
        if _has_cuda is None:
            _has_cuda = bool(_glccl.cuda_runs())
        return _has_cuda
    raise AttributeError(f"module 'glccl' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"has_cuda"})

_LABEL_DTYPES = {"uint32": _np.uint32, "uint64": _np.uint64}


def _label_dtype(dtype, where):
    """The dtype asked for: None or "auto" (the smallest of uint32 and
    uint64 that holds the count), uint32 or uint64."""
    if dtype is None or (isinstance(dtype, str) and dtype == "auto"):
        return None
    try:
        name = _np.dtype(dtype).name
    except TypeError:
        name = None
    if name not in _LABEL_DTYPES:
        raise ValueError(f"{where}: dtype must be None or 'auto', 'uint32' or 'uint64' (or numpy's uint32, "
                         f"uint64), not {dtype!r}")
    return _LABEL_DTYPES[name]


class _DefaultCriterion(str):
    """The criterion "binary" when the caller named none (help() shows
    'binary'), so that label() can tell it from an explicit "binary"."""


_BINARY_BY_DEFAULT = _DefaultCriterion("binary")


def _warn_if_segments(image, where):
    """A UserWarning when a host integer image left at the binary default
    holds several nonzero values: segment ids, which the binary criterion
    joins into one component where scikit-image separates them. Judged on
    at most about 65536 evenly spaced elements, so it costs little beside the
    labeling; masks (0 and one value) never warn."""
    # A 0-d array is refused by the labeling itself, in its words.
    if not isinstance(image, _np.ndarray) or image.dtype.kind not in "iu" or image.size == 0 or image.ndim == 0:
        return
    step = max(1, int((image.size / 65536) ** (1.0 / image.ndim)))
    # Copied together first: the strided view read once, then whole passes
    # that need no index array of the nonzero elements.
    sample = _np.ascontiguousarray(image[(slice(None, None, step),) * image.ndim])
    top = sample.max()
    if top <= 0 or (image.dtype.kind == "i" and sample.min() < 0):
        return
    if _np.any((sample != 0) & (sample != top)):
        values = sample[sample != 0]
        import warnings
        warnings.warn(f"{where}: the {image.dtype} image holds several nonzero values (e.g. {values.min()} and "
                      f"{values.max()}) and is labeled as binary, every nonzero pixel foreground; pass "
                      f"criterion='segments' for regions of equal value (as skimage.measure.label and "
                      f"glccl.skimage.label), or criterion='binary' to say binary is meant", UserWarning, stacklevel=3)


def _dtype_name(dtype):
    """numpy's name of an array's dtype, whichever library the array is
    from: numpy and CuPy use numpy's dtypes, torch its own (torch.int32)."""
    text = str(dtype)
    return text[len("torch."):] if text.startswith("torch.") else _np.dtype(dtype).name


def _deliver(labels, n, dtype, out, where):
    """The labels in the dtype asked for, or written into `out`; labels and
    out may be numpy, CuPy or torch arrays."""
    if out is not None:
        if not hasattr(out, "shape") or not hasattr(out, "dtype"):
            raise TypeError(f"{where}: out must be an array of an integer dtype, not {type(out).__name__}")
        if tuple(out.shape) != tuple(labels.shape):
            raise ValueError(f"{where}: out must have the labels' shape {tuple(labels.shape)}, not "
                             f"{tuple(out.shape)}")
        name = _dtype_name(out.dtype)
        try:
            kind = _np.dtype(name).kind
        except TypeError:
            kind = None
        if kind is None or kind not in "ui" or (n > 0 and _np.iinfo(name).max < n):
            raise TypeError(f"{where}: out must have an integer dtype that holds {n} labels, not {name}")
        if isinstance(out, _np.ndarray) and not out.flags.writeable:
            raise ValueError(f"{where}: out is read-only")
        if labels is not out:  # the labels were not written into out as they are
            out[...] = labels
        return out
    if dtype is None:
        dtype = _np.uint32 if n <= 0xFFFFFFFF else _np.uint64
    if isinstance(labels, _np.ndarray) and labels.dtype == dtype:
        return labels  # numpy's labels as asked (most calls): no name compared
    name = _np.dtype(dtype).name
    if _dtype_name(labels.dtype) == name:
        return labels
    if str(labels.dtype).startswith("torch."):
        import torch
        return labels.to(getattr(torch, name))
    return labels.astype(dtype)


def label(image, connectivity=None, criterion=_BINARY_BY_DEFAULT, backend="auto", return_table=False, channel_axis=None,
          *, out=None, dtype=None, progress=None, threads=None, properties=None, intensity_image=None, spacing=None,
          gl="desktop", **unknown):
    """Connected-component labeling of a 2-D image or a 3-D volume.

    Parameters
    ----------
    image : numpy.ndarray (or a CuPy array, in a module built with CUDA)
        2-D (H, W) array in any memory layout (C, Fortran, strided views), of
        any size (an image past one call of the backend, e.g. 8 x 40000 on a
        GPU whose textures end at 32768, is labeled in tiles with the same
        result). A sample is as wide as the dtype's element, as in the
        command line's .npy reader (docs/formats.md#sample-widths), and no
        value is ever reduced or rounded:
          bool, uint8, int8                      8-bit samples (0..255)
          uint16, int16                          16-bit samples (0..65535)
          uint32, int32, float32                 32-bit samples (0..2**32-1)
          uint64, int64, float64                 64-bit samples (0..2**64-1)
        Every value must be an unsigned integer of its width: a negative,
        fractional, NaN or too large value raises ValueError naming it and
        its place. A float image must hold whole numbers.
        For criterion=("threshold", T) also (H, W, 3) or (H, W, 4) color of
        8- or 16-bit samples (an RGB image gets an opaque alpha), with
        channel_axis=-1; (H, W, 1) with channel_axis=-1 is gray. Without
        channel_axis a 3-D array is a volume (D, H, W), as in scikit-image and
        scipy, of the same dtypes and any memory layout; every criterion
        applies. Volumes are labeled in host memory (the router picks an
        engine that takes them; the cpu reference takes any).
        A device array (CuPy, a torch CUDA tensor, a CUDA DLPack producer) is
        labeled on its GPU by the cuda backend and the labels come back as
        the same kind of array on that device, without a trip through host
        memory. Its dtype is read as it is: bool and uint8 to uint64 under
        every criterion, int8 to int64 under "segments" and "binary" (which
        read only equality and zero: negative ids are ids like any other);
        floats, and signed arrays under binary:L, threshold and delta, raise
        TypeError.
    connectivity : int or None
        4 or 8 for a 2-D image, 6 (faces), 18 (and edges) or 26 (and corners)
        for a volume, a Python or a numpy integer (np.int64(4)); one of the
        other dimension's raises ValueError. scikit-image's numbering works
        too: 1 and 2 are 4 and 8 on a 2-D image, 6 and 18 on a volume, and 3
        is 26 (volumes only). None (the default): the full connectivity, 8
        for a 2-D image and 26 for a volume, as scikit-image's
        connectivity=None. Or a mask (array_like) of the neighbours that
        join, 3x3 for an image and 3x3x3 for a volume, symmetric about its
        centre (scipy.ndimage's structure): a named connectivity's is taken
        as it, any other (a vertical line, one diagonal) is labeled by the
        cpu backend (auto's choice) or the reference.
    criterion : str or tuple
        "binary" (the default): nonzero pixels are foreground and connect to
        foreground neighbours; an integer image of segment ids is therefore
        ONE component here, where skimage.measure.label (and
        glccl.skimage.label) separate regions of equal value. Left at the
        default, a host integer image with several nonzero values gets a
        UserWarning saying so; name the criterion to be explicit.
        "segments": the values are segment ids, 0 is background, neighbours
        connect when their values are equal (16- and 32-bit ids included:
        256 and 257 are two segments). ("binary", L) or "binary:L":
        foreground where the value is above L. ("threshold", T) or
        "threshold:T": every pixel is foreground and neighbours connect when
        every channel differs by at most T. Any other "name:value" (or
        (name, value)) is handed to the engines, which name the criteria they
        know when they refuse one. L and T are in the units of the samples
        (at most 255 for 8-bit images, 65535 for 16-bit).
    backend : str
        "auto" (the fastest engine that runs here for the array: the CPU
        engine for small images and where no GPU engine runs, else cuda or
        compute), "compute", "raster", "cuda", "cpu" (the CPU engine, no GL
        context) or "reference" (the one-thread oracle). Every backend takes
        every sampleBits; 32-bit color is for cuda, cpu and reference,
        64-bit color for cpu and reference (RuntimeError elsewhere).
    return_table : bool
        Also return the component table (glccl.ComponentTable).
    channel_axis : int or None
        None (the default): the array has no channel axis. -1 or 2: the last
        axis of a 3-D array holds the channels of a 2-D (H, W, C) image.
    out : array, optional (keyword only)
        Where the labels go: an array of the labels' shape and an integer
        dtype that holds n (uint32, uint64, int32, int64, ...), returned as
        the labels. A C-contiguous uint32 (or int32) numpy array is written
        directly, the fastest way to label into memory of one's own; others
        get the labels converted in one more pass. out may be the image
        itself, or overlap it: the image is then copied before any label is
        written.
    dtype : None, "auto", "uint32" or "uint64" (keyword only)
        The labels' dtype: None and "auto" the smallest of uint32 and uint64
        that holds n (uint32 for every labeling in memory), or the one named.
    progress : callable or None (keyword only)
        Called as progress(stage, seconds, fraction) from the calling thread
        about every 50 ms while a call runs, and once as ("done", seconds,
        1.0) when it has succeeded. stage: "read" while the array is copied
        (where it is not labeled in place), "label" as labeling starts, then
        the engine's own stages where it reports them (the cpu engine's
        "scan", "merge", "number", "final"; "label" and "write" for an array
        labeled in tiles). fraction: the part of the work done, 0 to 1, from
        the stages finished (each weighted by its cost) and the rows or
        tiles finished inside the current one; it never goes back. The GL
        and cuda engines run their stages on the device, so their fraction
        stays where labeling started until they are done. A callable that
        takes only two positional arguments is called as progress(stage,
        seconds). An exception it raises ends the call with that exception,
        as Ctrl-C does with KeyboardInterrupt.
    threads : int or None (keyword only)
        Threads of the CPU engine (backend "cpu", and "auto" where it picks
        that engine): None (the default) for every core this process may run
        on, else 1 to 1024. The labels and table are the same for every
        count.
    gl : "desktop" or "es" (keyword only)
        The GL context the compute and raster backends label in, as the
        command line's --gl: "desktop" (the default), an OpenGL core profile
        context, or "es", an OpenGL ES 3.0 or newer one (what phones, WebGL2
        and embedded GPUs offer), made on first use and kept beside the
        desktop one. The raster backend runs there, and compute where it is
        OpenGL ES 3.1 or newer with image atomics (elsewhere RuntimeError
        naming raster); "auto" chooses among those that run and the
        engines without a context. ValueError for another value, with a
        backend that makes no context (cpu, reference, cuda) or a device
        array; RuntimeError for an image that raster labels in pieces (past
        one call's texture size), whose tiles label in desktop contexts.
    properties : sequence of str, optional (keyword only)
        Measure these region properties of the labels made (scikit-image's
        names, as glccl.regionprops_table takes them) and return them as the
        table: (labels, n, table), table a glccl.ComponentTable holding
        exactly regionprops_table's columns, row i for label i + 1. The
        per-region totals are gathered by the engine that labeled, on its
        GPU for compute, raster and cuda, except an intensity it does not
        read there (GL engines: one channel of unsigned integers up to 32
        bits; cuda: one channel of integers) or an image labeled in tiles,
        gathered by the cpu engine from the host labels; the table is the
        same either way, and table.measured_by names the engine whose
        gatherer ran ("compute", "raster", "cuda" or "cpu"). A device image
        (CuPy, torch) is labeled on its GPU and its labels measured there,
        as glccl.regionprops_table measures device labels (measured_by
        "cuda"); where CUDA does not run it is a TypeError naming what to
        pass. Not with return_table.
    intensity_image : ndarray, optional (keyword only)
        With properties: the intensity the intensity properties read, of
        the image's shape (plus a last channel axis).
    spacing : sequence of float, optional (keyword only)
        With properties: the element's size along each axis, as
        regionprops_table's spacing.

    Returns
    -------
    (labels, n) or (labels, n, table)
        labels: uint32 array (see dtype) of shape (H, W), or (D, H, W) for a
        volume, 0 for background and 1..n numbered in raster order of each
        component's first pixel (slice by slice, then row by row: the
        numbering of skimage.measure.label, scipy.ndimage.label and OpenCV's
        SAUF). table: a glccl.ComponentTable, a dict of numpy columns of
        length n, row i describing label i + 1: label (1..n), left, top,
        width, height (uint32, the bounding box), area (uint64, pixels or
        voxels), centroid_x, centroid_y (float64, mean column / row); for a
        volume also front, depth (uint32, the box's first slice and slice
        count) and centroid_z (float64, mean slice). table.to_pandas() is a
        DataFrame indexed by label, table.to_records() a numpy structured
        array.

    Raises
    ------
    TypeError for an input of the wrong type or dtype (complex, object, a
    device array in a module without CUDA) or a keyword glccl does not take
    (with the glccl equivalent of scikit-image's, scipy's and cc3d's),
    ValueError for a wrong value (shape, size 0, sample values,
    connectivity, criterion, backend name), RuntimeError with glccl's message
    when the backend cannot run or labeling fails, KeyboardInterrupt on
    Ctrl-C (within about 50 ms for images of a million elements or more, or
    with a progress callback).

    Cost
    ----
    The backend's labeling (upload, GPU work, download of 4 bytes a pixel)
    and nothing more on the host where it can be: a C-contiguous bool,
    uint8, uint16 or uint32 image (gray, or (H, W, 4) color of 8 or 16 bits)
    is uploaded from its own memory, and the labels are downloaded straight
    into the returned array. Any other image (signed or float dtypes, whose
    values are checked; Fortran order, strided views, RGB) is first copied
    once into a host buffer of glccl's. The storage of label arrays (and of
    those copies) that numpy has freed is kept for the next call of that
    size, at most two buffers and 2 GiB of each, so that a loop allocates no
    fresh memory; an array that is still referenced, if only by a view, is
    never reused. dtype="uint64", and out= of another dtype than uint32
    and int32 or another layout than C order, cost one more pass over the
    labels. For many images of one size, glccl.Labeler also keeps the GPU
    buffers and writes into an array of yours (out=) directly.

    Thread-safety
    -------------
    Safe to call from several threads. The GIL is released while the image
    is read (copied, where it needs a copy) and labeled, so another thread
    must not write to it during the call. The process's headless GL contexts
    (desktop, and ES for gl="es") are shared by all calls and glccl.Labeler
    objects under one lock, so GL labeling runs one call at a time. Ctrl-C
    ends the call at once; an image labeled in tiles stops after the tiles
    or band under way, one labeled in one call finishes in the background
    (the next GL call waits for either).
    """
    _refuse_unknown(unknown, "glccl.label()")
    where = "glccl.label()"
    wanted = _label_dtype(dtype, where)
    if wanted is not None and out is not None and hasattr(out, "dtype") and \
            _dtype_name(out.dtype) != _np.dtype(wanted).name:
        raise ValueError(f"{where}: dtype={_np.dtype(wanted).name} and out of dtype {_dtype_name(out.dtype)} disagree; "
                         f"the labels take out's dtype: pass one of them")
    _check_measuring_arguments(properties, intensity_image, spacing, return_table, where)
    # The labels go into out before the intensity is read: an intensity that
    # out overlaps is read from a copy.
    intensity_image = _measure.unaliased_intensity(intensity_image, out)
    if criterion is _BINARY_BY_DEFAULT and channel_axis is None:
        _warn_if_segments(image, where)
    if properties is None:
        result = _glccl.label(image, connectivity, criterion, backend, bool(return_table), channel_axis, progress,
                              threads, out, None, gl)
        labels = _deliver(result[0], result[1], wanted, out, where)
        if return_table:
            return labels, result[1], ComponentTable.from_columns(result[2])
        return labels, result[1]
    if _measure.on_device(image) and _measure.device_measurable():
        # A device image's labels stay on its GPU and are measured there.
        labels, n = _glccl.label(image, connectivity, criterion, backend, False, channel_axis, progress, threads, out,
                                 None, gl)
        labels = _deliver(labels, n, wanted, out, where)
        table = ComponentTable(_measure.device_table(labels, intensity_image, properties, spacing, "-", [], threads,
                                                     where))
        table.measured_by = "cuda"
        return labels, n, table
    # The term properties are gathered by the engine that labels, on its GPU
    # where it can, before the labels leave it.
    measuring = _measuring(image, channel_axis, properties, intensity_image, spacing, where)
    labels, n, columns, gatherer = _glccl.label(image, connectivity, criterion, backend, False, channel_axis,
                                                progress, threads, out, measuring[:3], gl)
    labels = _deliver(labels, n, wanted, out, where)
    table = ComponentTable(_measure.table(labels, measuring[3], properties, measuring[2], "-", [], threads, where,
                                          columns=columns, needed=measuring[4]))
    table.measured_by = gatherer
    return labels, n, table


def _check_measuring_arguments(properties, intensity_image, spacing, return_table, where):
    if properties is None and (intensity_image is not None or spacing is not None):
        raise ValueError(f"{where}: intensity_image and spacing are for the properties measured; pass properties=[...] "
                         f"too")
    if properties is not None and return_table:
        raise ValueError(f"{where}: return_table and properties both ask for a table; pass one of them")


def _measuring(image, channel_axis, properties, intensity_image, spacing, where):
    """What label(properties=) asks the compiled label() to measure:
    (term properties, the intensity they read or None, spacing), the
    intensity the crops read, checked against the labels to come, and
    terms_needed's result (which the table is laid out by)."""
    if _measure.on_device(image):
        raise TypeError(f"{where}: properties are measured on host labels, and this image is in GPU memory: label "
                        f"the numpy image with properties= (cupy.asnumpy(image), image.cpu().numpy() for torch), "
                        f"or label it here without properties= and measure its labels with "
                        f"glccl.regionprops_table(cupy.asnumpy(labels), ...)")
    shape = _np.shape(image)
    if channel_axis is not None:
        shape = shape[:-1] if channel_axis in (-1, len(shape) - 1) else shape
    intensity = _measure.checked_intensity_of_shape(intensity_image, shape, where)
    spacing = _measure.checked_spacing(spacing, len(shape), where)
    request = _measure.terms_needed(properties, len(shape), intensity is not None, spacing, [], where)
    needed = request[1]
    return needed, intensity if _measure.reads_intensity(needed) else None, spacing, intensity, request


def regionprops_table(label_image, intensity_image=None, properties=("label", "bbox"), *, cache=True, separator="-",
                      extra_properties=None, spacing=None, threads=None):
    """Measure the regions of a label image, as skimage.measure.regionprops_table.

    Parameters
    ----------
    label_image : (M, N) or (P, M, N) ndarray of integers
        Labels of any integer dtype and memory layout; 0 is background.
        Labels need not be consecutive nor their regions connected, and may
        be any non-negative integer (past 2**32 too); negative labels raise
        ValueError, boolean and float images TypeError.
    intensity_image : ndarray, optional
        The labels' shape, or that shape and a last channel axis (each
        channel measured on its own: columns "intensity_mean-0", ...); bool,
        integers, float32 or float64.
    properties : sequence of str
        Property names as scikit-image names them (and its earlier names):
        label, num_pixels, area, bbox, area_bbox, extent, centroid,
        centroid_local, equivalent_diameter_area, moments, moments_central,
        moments_normalized, moments_hu (2-D), inertia_tensor,
        inertia_tensor_eigvals, orientation (2-D), axis_major_length,
        axis_minor_length, eccentricity (2-D), perimeter (2-D),
        perimeter_crofton (2-D), euler_number; with an intensity image
        intensity_mean, intensity_min, intensity_max, intensity_std,
        centroid_weighted, centroid_weighted_local, moments_weighted,
        moments_weighted_central, moments_weighted_normalized,
        moments_weighted_hu (2-D), and glccl's intensity_sum,
        intensity_variance, intensity_min_position and
        intensity_max_position (the first element in raster order holding
        the extreme). These are measured for every region in one pass over
        the labels. Computed per region from its crop, as scikit-image
        does: slice, image, coords, coords_scaled, image_intensity,
        image_filled, area_filled, image_convex, area_convex, solidity,
        feret_diameter_max, intensity_median (image_filled and area_filled
        need scipy; the convex ones and feret_diameter_max scikit-image).
    cache : bool
        Accepted for scikit-image's signature; every value is computed once.
    separator : str
        Between a property's name and an element's indices in the column
        names ("moments_central-1-2").
    extra_properties : sequence of callables
        Functions of a region's mask (and its intensity crop, when they take
        two arguments), named by __name__, as scikit-image calls them.
    spacing : sequence of float, optional
        The element's size along each axis (numpy's axis order), as
        scikit-image's spacing= (0.20 and later): areas in squared units,
        centroids and moments in scaled coordinates. moments_hu refuses a
        spacing other than 1, perimeter an anisotropic one (ValueError).
    threads : int or None
        Threads of the measuring pass (None: every core); the results are
        the same for every count.

    Returns
    -------
    dict of numpy arrays, one row per label present, in ascending label
    order, columns in the order of `properties` then `extra_properties`.
    Rows of an image without regions: 0, with the same columns.

    Device arrays
    -------------
    A label_image in GPU memory (CuPy, a torch CUDA tensor, any
    __cuda_array_interface__ or CUDA DLPack producer) of integers of 1 to 8
    bytes is measured on its GPU, on its stream: the regions numbered,
    counted and boxed there and their totals gathered exactly, only the
    totals coming back; the columns (numpy, as above) are those of the
    labels copied to the host. An intensity_image on the device of one
    channel of integers or booleans is read there too; an intensity of
    floats (whose sums glccl adds as double-doubles in the host's order) or
    of several channels is measured on the host after one copy of the labels
    and the intensity, and so are the crop properties and extra_properties.
    Where CUDA does not run (or the module was built without it), a device
    array is a TypeError naming what to pass.
    """
    return _measure.regionprops_table(label_image, intensity_image, properties, cache=cache, separator=separator,
                                      extra_properties=extra_properties, spacing=spacing, threads=threads)


class Labeler(_glccl.Labeler):
    __doc__ = _glccl.Labeler.__doc__

    def __init__(self, connectivity=8, criterion="binary", backend="auto", *, threads=None, gl="desktop", **unknown):
        _refuse_unknown(unknown, "glccl.Labeler()")
        super().__init__(connectivity, criterion, backend, threads, gl)
        self._threads = threads

    def label(self, image, out=None, return_table=False, channel_axis=None, *, properties=None, intensity_image=None,
              spacing=None, **unknown):
        where = "glccl.Labeler.label()"
        _refuse_unknown(unknown, where)
        _check_measuring_arguments(properties, intensity_image, spacing, return_table, where)
        intensity_image = _measure.unaliased_intensity(intensity_image, out)  # as glccl.label() reads it
        if properties is None:
            result = super().label(image, out, bool(return_table), channel_axis)
            if return_table:
                return result[0], result[1], ComponentTable.from_columns(result[2])
            return result
        measuring = _measuring(image, channel_axis, properties, intensity_image, spacing, where)
        labels, n, components = super().label(image, out, True, channel_axis)
        # Measured on the host from the labels and their component table
        # (boxes and areas taken from it): the cpu engine's gatherer.
        table = ComponentTable(_measure.table(labels, measuring[3], properties, measuring[2], "-", [], self._threads,
                                              where, components=components, needed=measuring[4]))
        table.measured_by = "cpu"
        return labels, n, table

    label.__doc__ = _glccl.Labeler.label.__doc__ + """
Measuring
---------
properties : sequence of str, optional (keyword only)
    Measure these region properties of the labels made, as glccl.label()
    does: the third value returned is then the table of scikit-image's
    regionprops_table columns instead of the component table (pass one of
    return_table and properties). Measured on the host, from the labels and
    their component table (table.measured_by is "cpu"); images in GPU memory
    are refused (TypeError).
intensity_image : array, optional (keyword only)
    The intensity the intensity properties read, of the image's shape
    (a trailing channel axis allowed).
spacing : sequence of float, optional (keyword only)
    The element's size along each axis.
"""


def label_batch(stack, connectivity=8, criterion="binary", return_table=False, backend="auto", *, threads=None,
                gl="desktop", **unknown):
    _refuse_unknown(unknown, "glccl.label_batch()")
    result = _glccl.label_batch(stack, connectivity, criterion, bool(return_table), backend, threads, gl)
    if not return_table:
        return result
    labels, counts, tables = result
    return labels, counts, [ComponentTable.from_columns(table) for table in tables]


label_batch.__doc__ = _glccl.label_batch.__doc__


from . import cc3d, cupyx, ndimage, skimage  # noqa: E402  (they use label() above; cupyx imports CuPy when called)

__all__ = ["label", "label_batch", "Labeler", "ComponentTable", "backends", "has_cuda", "built_with_cuda",
           "remove_small", "keep_largest", "regionprops_table",
           "find_objects", "relabel", "skimage", "ndimage", "cupyx", "cc3d", "__version__"]
