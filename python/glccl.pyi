# Type hints for the glccl extension module (python/glccl_module.cpp).
from typing import Literal, Tuple, TypedDict, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

Connectivity = Literal[1, 2, 4, 8]
Criterion = Union[Literal["binary", "segments"], str, Tuple[Literal["threshold"], int]]
BackendName = Literal["auto", "compute", "raster", "cuda", "cpu"]

class ComponentTable(TypedDict):
    left: npt.NDArray[np.uint32]
    top: npt.NDArray[np.uint32]
    width: npt.NDArray[np.uint32]
    height: npt.NDArray[np.uint32]
    area: npt.NDArray[np.uint64]
    centroid_x: npt.NDArray[np.float64]
    centroid_y: npt.NDArray[np.float64]

class BackendInfo(TypedDict):
    name: str
    available: bool
    reason: str

@overload
def label(
    image: npt.ArrayLike,
    connectivity: Connectivity = 8,
    criterion: Criterion = "binary",
    backend: BackendName = "auto",
    return_table: Literal[False] = False,
) -> Tuple[npt.NDArray[np.uint32], int]: ...
@overload
def label(
    image: npt.ArrayLike,
    connectivity: Connectivity = 8,
    criterion: Criterion = "binary",
    backend: BackendName = "auto",
    *,
    return_table: Literal[True],
) -> Tuple[npt.NDArray[np.uint32], int, ComponentTable]: ...
@overload
def label(
    image: npt.ArrayLike,
    connectivity: Connectivity,
    criterion: Criterion,
    backend: BackendName,
    return_table: Literal[True],
) -> Tuple[npt.NDArray[np.uint32], int, ComponentTable]: ...
def backends() -> list[BackendInfo]: ...
