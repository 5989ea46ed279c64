"""What this machine has, asked of the system rather than of glccl, so that
tests can compare glccl's own account of what runs here with it. Imports
nothing of glccl or pytest: the command-line tests use it too."""

import ctypes
import glob


def cuda_driver_devices():
    """CUDA devices the driver itself reports (libcuda's cuInit and
    cuDeviceGetCount), 0 where there is no driver or it fails."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def gpu_device_nodes():
    """Device nodes a GPU's GL or CUDA driver opens: none means every GL
    context here is a software renderer."""
    return glob.glob("/dev/dri/renderD*") + glob.glob("/dev/nvidia[0-9]*")
