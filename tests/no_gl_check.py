"""glccl on a machine with or without OpenGL: the command line and the Python
module label, measure and run their drop-ins and Dask with the cpu engine,
equal to scipy and scikit-image; the GL engines run (with the libraries) or
are refused with a message that says no OpenGL runtime was found (without).

    no_gl_check.py GLCCL_CLI hidden|present

tests/no_gl_test.sh runs it with the GL libraries hidden; ctest runs it as
it is too. PYTHONPATH must reach the built module.
"""

import importlib.util
import os
import subprocess
import sys
import tempfile

# A skip for ctest (exit 77) where this interpreter lacks the references.
_missing = [name for name in ("numpy", "scipy", "skimage") if importlib.util.find_spec(name) is None]
if _missing:
    print(f"skipped: {sys.executable} lacks {', '.join(_missing)} (tools/install-deps.sh installs them)")
    sys.exit(77)

import numpy as np  # noqa: E402
import scipy.ndimage as ndi  # noqa: E402

cli, mode = sys.argv[1], sys.argv[2]
hidden = mode == "hidden"
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def same_partition(a, b):
    """Whether two label arrays give the same regions (any numbering)."""
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    if a.shape != b.shape or not np.array_equal(a == 0, b == 0):
        return False
    pairs = np.unique(np.stack([a[a != 0], b[b != 0]]), axis=1)
    return pairs.shape[1] == len(np.unique(a[a != 0])) == len(np.unique(b[b != 0]))


def gl_library_opens():
    import ctypes
    try:
        ctypes.CDLL("libEGL.so.1")
        return True
    except OSError:
        return False


# The hiding itself is checked, or a test without GL would prove nothing.
check(gl_library_opens() != hidden, "libEGL.so.1 " + ("cannot be opened" if hidden else "opens"))

rng = np.random.default_rng(7)
image = rng.random((61, 83)) < 0.5
volume = rng.random((9, 17, 21)) < 0.4
expected_image, image_count = ndi.label(image, structure=np.ones((3, 3)))
expected_volume, volume_count = ndi.label(volume, structure=np.ones((3, 3, 3)))

# --- The command line --------------------------------------------------------
with tempfile.TemporaryDirectory() as scratch:
    version = subprocess.run([cli, "--version"], capture_output=True, text=True)
    check(version.returncode == 0 and version.stdout.startswith("glccl"), "glccl --version starts")
    for name, array, expected in (("image", image, expected_image), ("volume", volume, expected_volume)):
        source = os.path.join(scratch, name + ".npy")
        np.save(source, array.astype(np.uint8))
        for backend in ("cpu", "auto"):
            out = os.path.join(scratch, f"{name}_{backend}.npy")
            run = subprocess.run([cli, "label", source, "--backend", backend, "--labels", out, "--quiet"],
                                 capture_output=True, text=True)
            check(run.returncode == 0 and same_partition(np.load(out), expected),
                  f"glccl label {name} --backend {backend} equals scipy.ndimage.label" +
                  ("" if run.returncode == 0 else f" (exit {run.returncode}: {run.stderr.strip()})"))
    stats = os.path.join(scratch, "props.csv")
    run = subprocess.run([cli, "label", os.path.join(scratch, "image.npy"), "--backend", "cpu", "--quiet",
                          "--properties", "label,area", "--stats", stats], capture_output=True, text=True)
    if run.returncode == 0:
        rows = np.genfromtxt(stats, delimiter=",", names=True)
        areas = np.bincount(expected_image.ravel())[1:]
        check(sorted(rows["area"].astype(int)) == sorted(areas.tolist()),
              "glccl label --properties label,area: the areas are scipy's")
    else:
        check(False, f"glccl label --properties (exit {run.returncode}: {run.stderr.strip()})")
    for backend in ("compute", "raster"):
        run = subprocess.run([cli, "label", os.path.join(scratch, "image.npy"), "--backend", backend, "--quiet",
                              "--labels", os.path.join(scratch, backend + ".npy")], capture_output=True, text=True)
        if hidden:
            check(run.returncode != 0 and "no OpenGL runtime was found" in run.stderr and "Traceback" not in run.stderr,
                  f"glccl label --backend {backend} says no OpenGL runtime was found: {run.stderr.strip()!r}")
        else:
            check(run.returncode == 0 and same_partition(np.load(os.path.join(scratch, backend + ".npy")),
                                                         expected_image),
                  f"glccl label --backend {backend} equals scipy.ndimage.label")
    run = subprocess.run([cli, "backends"], capture_output=True, text=True)
    check(run.returncode == 0 and "cpu" in run.stdout, "glccl backends runs")
    if hidden:
        check("no OpenGL runtime was found" in run.stdout + run.stderr, "glccl backends says why GL cannot run")

# --- The Python module -------------------------------------------------------
import glccl  # noqa: E402  (after the command line: its import is checked on its own)

labels, count = glccl.label(image)
check(count == image_count and same_partition(labels, expected_image), "glccl.label (auto) equals scipy.ndimage.label")
labels, count = glccl.label(volume, backend="cpu")
check(count == volume_count and same_partition(labels, expected_volume), "glccl.label of a volume (cpu) equals scipy")
import glccl.ndimage  # noqa: E402

drop_in, drop_in_count = glccl.ndimage.label(image, structure=np.ones((3, 3)))
check(drop_in_count == image_count and same_partition(drop_in, expected_image), "glccl.ndimage.label equals scipy's")
import skimage.measure  # noqa: E402

import glccl.skimage  # noqa: E402

check(same_partition(glccl.skimage.label(volume), skimage.measure.label(volume)), "glccl.skimage.label equals scikit-image's")
intensity = rng.integers(0, 1000, image.shape).astype(np.uint16)
ours = glccl.regionprops_table(expected_image, intensity, properties=("label", "area", "centroid", "intensity_mean"))
theirs = skimage.measure.regionprops_table(expected_image, intensity,
                                           properties=("label", "area", "centroid", "intensity_mean"))
check(all(np.allclose(ours[k], theirs[k], rtol=1e-12, atol=0) for k in theirs),
      "glccl.regionprops_table equals scikit-image's")
import glccl.cc3d  # noqa: E402

check(same_partition(glccl.cc3d.connected_components(volume.astype(np.uint8)), expected_volume),
      "glccl.cc3d.connected_components equals scipy.ndimage.label")
try:
    import dask.array as da

    import glccl.dask

    chunked = da.from_array(volume, chunks=(4, 7, 9))
    check(same_partition(glccl.dask.label(chunked)[0].compute(), expected_volume),
          "glccl.dask.label over 36 chunks equals scipy.ndimage.label")
except ImportError:
    print("skip  glccl.dask: dask is not installed")
for backend in ("compute", "raster"):
    try:
        result, refused = glccl.label(image, backend=backend)[0], None
    except Exception as error:  # noqa: BLE001  (the message is what is checked)
        result, refused = None, error
    if hidden:
        check(refused is not None and "no OpenGL runtime was found" in str(refused),
              f"glccl.label(backend={backend!r}) says no OpenGL runtime was found: {refused!r}")
    else:
        check(refused is None and same_partition(result, expected_image),
              f"glccl.label(backend={backend!r}) equals scipy.ndimage.label")

print(f"{len(failures)} failure(s)" if failures else "all checks passed")
sys.exit(1 if failures else 0)
