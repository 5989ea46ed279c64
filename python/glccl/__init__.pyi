# Type hints for the package glccl (python/glccl/__init__.py over the compiled
# module, python/glccl_module.cpp and python/labeler_object.cpp).
from typing import Any, Callable, Dict, List, Literal, Optional, Protocol, Sequence, Tuple, TypedDict, Union, overload

import numpy as np
import numpy.typing as npt

from . import cc3d as cc3d, cupyx as cupyx, ndimage as ndimage, skimage as skimage

__version__: str
# Whether the cuda backend runs here: built with CUDA, and a CUDA driver and
# device usable (asked of the driver on first use).
has_cuda: bool
# Whether this module was built with CUDA: device arrays (CuPy) are accepted.
built_with_cuda: bool

# 4 or 8 for 2-D images, 6, 18 and 26 for volumes (each refused on the other
# dimension); scikit-image's 1 and 2 (4 and 8, or 6 and 18 on a volume) and 3
# (26, volumes only). numpy integers too. glccl.label's None: the full one
# (8, or 26 for a volume).
Connectivity = Union[Literal[1, 2, 3, 4, 8, 6, 18, 26], np.integer]
# The last axis of an (H, W, C) array holds channels; None: no channel axis
# (a 3-D array is then a volume (D, H, W)).
ChannelAxis = Optional[Literal[-1, 2]]
# "binary", "segments", ("threshold", T), ("binary", L), or the command line's
# "threshold:T" and "binary:L"; T and L in the units of the image's samples.
# Any other "name:value" or (name, value) goes to the engines' parser.
Criterion = Union[
    Literal["binary", "segments"],
    str,
    Tuple[Literal["threshold"], int],
    Tuple[Literal["binary"], int],
    Tuple[str, int],
]
# The labels' dtype: None and "auto" the smallest of uint32 and uint64 that
# holds the count.
LabelDtype = Union[None, Literal["auto", "uint32", "uint64"], type, np.dtype]
# progress(stage, seconds, fraction), or progress(stage, seconds) for a
# callable of two positional arguments: "read", "label", the engine's stages,
# then "done" with fraction 1.0.
Progress = Union[Callable[[str, float, float], Any], Callable[[str, float], Any]]
BackendName = Literal["auto", "compute", "raster", "cuda", "cpu", "reference"]

# Samples as wide as the dtype's element (docs/formats.md#sample-widths): bool,
# uint8, int8 (8-bit); uint16, int16 (16-bit); uint32, int32, float32 (32-bit);
# uint64, int64, float64 (64-bit); values unsigned integers of that width.
# C-contiguous bool, uint8, uint16 and uint32 arrays are labeled in place, the
# others copied once.
HostImage = npt.ArrayLike
Labels = npt.NDArray[np.uint32]

class CudaArray(Protocol):
    """A device array: CuPy's ndarray, or anything with __cuda_array_interface__."""

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]: ...

class ComponentTable(Dict[str, npt.NDArray[Any]]):
    """Columns label (1..n), left, top, width, height (uint32), area (uint64),
    centroid_x, centroid_y (float64); for volumes also front, depth (uint32)
    and centroid_z (float64). Row i describes label i + 1."""

    # A table of glccl.label(properties=) only: the engine whose gatherer
    # gathered its terms ("compute", "raster", "cuda", or "cpu").
    measured_by: str
    @classmethod
    def from_columns(cls, columns: Dict[str, npt.NDArray[Any]]) -> "ComponentTable": ...
    def to_records(self) -> npt.NDArray[np.void]: ...
    def to_pandas(self) -> Any: ...

class BackendInfo(TypedDict):
    name: str
    available: bool
    reason: str
    device: str
    gpu: bool
    software_renderer: bool
    note: str

# Device images first: a numpy array has no __cuda_array_interface__. Their
# labels are a CuPy uint32 array on the image's device (typed Any: CuPy is
# optional).
@overload
def label(
    image: CudaArray,
    connectivity: Optional[Connectivity] = None,
    criterion: Criterion = "binary",
    backend: Literal["auto", "cuda"] = "auto",
    return_table: Literal[False] = False,
    channel_axis: ChannelAxis = None,
    *,
    out: Optional[Any] = None,
    dtype: LabelDtype = None,
    progress: Optional[Progress] = None,
    threads: Optional[int] = None,
) -> Tuple[Any, int]: ...
@overload
def label(
    image: CudaArray,
    connectivity: Optional[Connectivity] = None,
    criterion: Criterion = "binary",
    backend: Literal["auto", "cuda"] = "auto",
    *,
    return_table: Literal[True],
    channel_axis: ChannelAxis = None,
    out: Optional[Any] = None,
    dtype: LabelDtype = None,
    progress: Optional[Progress] = None,
    threads: Optional[int] = None,
) -> Tuple[Any, int, ComponentTable]: ...
@overload
def label(
    image: HostImage,
    connectivity: Optional[Connectivity] = None,
    criterion: Criterion = "binary",
    backend: BackendName = "auto",
    return_table: Literal[False] = False,
    channel_axis: ChannelAxis = None,
    *,
    out: Optional[Any] = None,
    dtype: LabelDtype = None,
    progress: Optional[Progress] = None,
    threads: Optional[int] = None,
    gl: Literal["desktop", "es"] = "desktop",
) -> Tuple[Labels, int]: ...
@overload
def label(
    image: HostImage,
    connectivity: Optional[Connectivity] = None,
    criterion: Criterion = "binary",
    backend: BackendName = "auto",
    *,
    return_table: Literal[True],
    channel_axis: ChannelAxis = None,
    out: Optional[Any] = None,
    dtype: LabelDtype = None,
    progress: Optional[Progress] = None,
    threads: Optional[int] = None,
    gl: Literal["desktop", "es"] = "desktop",
) -> Tuple[Labels, int, ComponentTable]: ...
@overload
def label(
    image: HostImage,
    connectivity: Optional[Connectivity],
    criterion: Criterion,
    backend: BackendName,
    return_table: Literal[True],
    channel_axis: ChannelAxis = None,
    *,
    out: Optional[Any] = None,
    dtype: LabelDtype = None,
    progress: Optional[Progress] = None,
    threads: Optional[int] = None,
    gl: Literal["desktop", "es"] = "desktop",
) -> Tuple[Labels, int, ComponentTable]: ...
# properties= measures those region properties of the labels made (host
# images), by the engine that labeled (on its GPU where it can): the table
# then holds regionprops_table's columns.
@overload
def label(
    image: HostImage,
    connectivity: Optional[Connectivity] = None,
    criterion: Criterion = "binary",
    backend: BackendName = "auto",
    return_table: Literal[False] = False,
    channel_axis: ChannelAxis = None,
    *,
    out: Optional[Any] = None,
    dtype: LabelDtype = None,
    progress: Optional[Progress] = None,
    threads: Optional[int] = None,
    gl: Literal["desktop", "es"] = "desktop",
    properties: Sequence[str],
    intensity_image: Optional[npt.ArrayLike] = None,
    spacing: Optional[Sequence[float]] = None,
) -> Tuple[Labels, int, ComponentTable]: ...
# A device image with properties=: labeled on its GPU, its labels (a device
# array) measured there; the table's columns are numpy arrays.
@overload
def label(
    image: CudaArray,
    connectivity: Optional[Connectivity] = None,
    criterion: Criterion = "binary",
    backend: BackendName = "auto",
    return_table: Literal[False] = False,
    channel_axis: ChannelAxis = None,
    *,
    out: Optional[CudaArray] = None,
    dtype: LabelDtype = None,
    progress: Optional[Progress] = None,
    threads: Optional[int] = None,
    properties: Sequence[str],
    intensity_image: Optional[Union[npt.ArrayLike, CudaArray]] = None,
    spacing: Optional[Sequence[float]] = None,
) -> Tuple[Any, int, ComponentTable]: ...
# gl: the GL context compute and raster are asked about (as glccl.label's).
def backends(gl: Literal["desktop", "es"] = "desktop") -> list[BackendInfo]: ...

# Region properties of a label image (any non-negative integers, 2-D or 3-D),
# as skimage.measure.regionprops_table: {column name: numpy column}, rows in
# ascending label order. extra_properties: functions of a region's mask (and
# intensity crop). Device arrays (CuPy, torch CUDA tensors) are measured on
# their GPU; the columns are numpy arrays either way.
def regionprops_table(
    label_image: Union[npt.ArrayLike, CudaArray],
    intensity_image: Optional[Union[npt.ArrayLike, CudaArray]] = None,
    properties: Sequence[str] = ("label", "bbox"),
    *,
    cache: bool = True,
    separator: str = "-",
    extra_properties: Optional[Sequence[Callable[..., Any]]] = None,
    spacing: Optional[Sequence[float]] = None,
    threads: Optional[int] = None,
) -> Dict[str, npt.NDArray[Any]]: ...

# Helpers on label arrays (0 background): numpy arrays of any integer dtype,
# or device arrays (CuPy, torch CUDA tensors) of int32, uint32, int64 or
# uint64, filtered on their GPU into an array of the same kind, dtype and
# device (torch in, torch out; CuPy otherwise).
LabelArray = npt.NDArray[np.integer]
@overload
def relabel(labels: LabelArray) -> Tuple[LabelArray, int]: ...
@overload
def relabel(labels: CudaArray) -> Tuple[Any, int]: ...
@overload
def remove_small(labels: LabelArray, min_size: float, relabel: bool = True) -> Tuple[LabelArray, int]: ...
@overload
def remove_small(labels: CudaArray, min_size: float, relabel: bool = True) -> Tuple[Any, int]: ...
@overload
def keep_largest(labels: LabelArray, k: int, relabel: bool = True) -> Tuple[LabelArray, int]: ...
@overload
def keep_largest(labels: CudaArray, k: int, relabel: bool = True) -> Tuple[Any, int]: ...
def find_objects(labels: Union[LabelArray, CudaArray], max_label: int = 0) -> List[Optional[Tuple[slice, ...]]]: ...

class Labeler:
    """Many images of one connectivity, criterion and backend, buffers kept
    between calls; thread-safe (calls run one at a time)."""

    def __init__(
        self,
        connectivity: Connectivity = 8,
        criterion: Criterion = "binary",
        backend: BackendName = "auto",
        *,
        threads: Optional[int] = None,
        gl: Literal["desktop", "es"] = "desktop",
    ) -> None: ...
    @overload
    def label(
        self,
        image: CudaArray,
        out: Optional[CudaArray] = None,
        return_table: Literal[False] = False,
        channel_axis: ChannelAxis = None,
    ) -> Tuple[Any, int]: ...
    @overload
    def label(
        self,
        image: CudaArray,
        out: Optional[CudaArray] = None,
        *,
        return_table: Literal[True],
        channel_axis: ChannelAxis = None,
    ) -> Tuple[Any, int, ComponentTable]: ...
    # out: filled in place when C-contiguous (or returned by this Labeler),
    # else (Fortran order, strided) through a copy.
    @overload
    def label(
        self,
        image: HostImage,
        out: Optional[Labels] = None,
        return_table: Literal[False] = False,
        channel_axis: ChannelAxis = None,
    ) -> Tuple[Labels, int]: ...
    @overload
    def label(
        self,
        image: HostImage,
        out: Optional[Labels] = None,
        *,
        return_table: Literal[True],
        channel_axis: ChannelAxis = None,
    ) -> Tuple[Labels, int, ComponentTable]: ...
    @overload
    def label(
        self, image: HostImage, out: Optional[Labels], return_table: Literal[True],
        channel_axis: ChannelAxis = None
    ) -> Tuple[Labels, int, ComponentTable]: ...
    # properties= measures those region properties of the labels made, on
    # the host (table.measured_by == "cpu"), as glccl.label(properties=).
    @overload
    def label(
        self,
        image: HostImage,
        out: Optional[Labels] = None,
        return_table: Literal[False] = False,
        channel_axis: ChannelAxis = None,
        *,
        properties: Sequence[str],
        intensity_image: Optional[npt.ArrayLike] = None,
        spacing: Optional[Sequence[float]] = None,
    ) -> Tuple[Labels, int, ComponentTable]: ...
    @property
    def connectivity(self) -> Literal[4, 8, 6, 18, 26]: ...
    @property
    def criterion(self) -> str: ...
    @property
    def backend(self) -> BackendName: ...
    # The GL context compute and raster label in (gl=).
    @property
    def gl(self) -> Literal["desktop", "es"]: ...
    @property
    def last_backend(self) -> Optional[Literal["compute", "raster", "cuda", "cpu", "reference"]]: ...

@overload
def label_batch(
    stack: Any,
    connectivity: Literal[4, 8] = 8,
    criterion: Criterion = "binary",
    return_table: Literal[False] = False,
    backend: BackendName = "auto",
    *,
    threads: Optional[int] = None,
    gl: Literal["desktop", "es"] = "desktop",
) -> Tuple[Any, Any]: ...
@overload
def label_batch(
    stack: Any,
    connectivity: Literal[4, 8] = 8,
    criterion: Criterion = "binary",
    *,
    return_table: Literal[True],
    backend: BackendName = "auto",
    threads: Optional[int] = None,
    gl: Literal["desktop", "es"] = "desktop",
) -> Tuple[Any, Any, list[ComponentTable]]: ...
