"""What the device-array tests need to know before they run: whether the
cuda backend runs here, CuPy (with cupyx.scipy.ndimage) and torch where they
import and see a GPU, the reason where they do not, and the skip markers
built from those reasons."""

import pytest

import glccl
from references import AVAILABLE

CUDA_RUNS = glccl.built_with_cuda and AVAILABLE["cuda"]["available"]
WHY_NO_CUDA = ("this glccl is built without CUDA" if not glccl.built_with_cuda
               else "the cuda backend cannot run here: " + AVAILABLE["cuda"]["reason"])

try:
    import cupy
    import cupyx.scipy.ndimage as cupyx_ndimage
    WHY_NO_CUPY = "" if CUDA_RUNS else WHY_NO_CUDA
except Exception as error:  # ImportError, or a CuPy that finds no CUDA at import
    cupy = cupyx_ndimage = None
    WHY_NO_CUPY = f"CuPy cannot be imported here ({type(error).__name__}: {error})"

try:
    import torch
    WHY_NO_TORCH = ("" if torch.cuda.is_available() else "torch sees no CUDA device") if CUDA_RUNS else WHY_NO_CUDA
except Exception as error:
    torch = None
    WHY_NO_TORCH = f"torch cannot be imported here ({type(error).__name__}: {error})"

needs_cupy = pytest.mark.skipif(bool(WHY_NO_CUPY), reason=WHY_NO_CUPY or "-")
needs_torch = pytest.mark.skipif(bool(WHY_NO_TORCH), reason=WHY_NO_TORCH or "-")


def torch_dtype(name):
    """torch's dtype of that name where this torch has it and exports it
    through DLPack (uint16, uint32 and uint64 need torch 2.3 or later); skips
    the test where it does not."""
    dtype = getattr(torch, name, None)
    if dtype is None:
        pytest.skip(f"torch {torch.__version__} has no {name}")
    try:
        torch.utils.dlpack.to_dlpack(torch.zeros(1, dtype=dtype, device="cuda"))
    except Exception as error:  # the dtype exists but not for DLPack
        pytest.skip(f"torch {torch.__version__} cannot export {name} through DLPack: {error}")
    return dtype
