#!/usr/bin/python3
"""glccl label end to end on every input format and depth, against scikit-image.

Arrays are written by outside libraries (Pillow for PNG and JPEG, tifffile
for TIFF, NumPy for .npy) or by hand from the Netpbm specification (PGM/PPM),
labeled by the glccl command with the cpu, raster and compute backends at
both connectivities, and the labels compared with skimage.measure.label on
the same arrays, which compares full sample values. The label images glccl
writes (--label-image) are read back with Pillow and tifffile.

usage: gl_image_formats.py GLCCL_COMMAND WORK_DIR
"""

import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import tifffile
    from PIL import Image
    from skimage.measure import label as sk_label
except ImportError as error:  # ctest reports the test as skipped (exit 77)
    print("skipped: %s (tools/install-deps.sh installs numpy, Pillow, tifffile, scikit-image)" % error)
    sys.exit(77)

GLCCL, WORK = sys.argv[1], sys.argv[2]
BACKENDS = ("cpu", "raster", "compute")
rng = np.random.default_rng(15)
failures = []


def blobs(shape, values, density=0.45):
    """Random blobs (runs of pixels, so components span rows) of the given values."""
    h, w = shape
    picks = rng.integers(0, len(values), size=(h, w))
    array = np.asarray(values)[picks]
    keep = rng.random((h, w)) < density
    keep = keep | np.roll(keep, 1, axis=1)  # runs of two at least
    return np.where(keep, array, 0)


def write_pgm(path, array, maxval):
    magic = b"P5" if array.ndim == 2 else b"P6"
    data = array.astype(">u2" if maxval > 255 else "u1").tobytes()
    with open(path, "wb") as f:
        f.write(magic + b"\n# written by gl_image_formats.py\n%d %d\n%d\n" % (array.shape[1], array.shape[0], maxval) + data)


# name -> (array as labeled in gray mode, writer)
cases = {}
ids16 = np.zeros((4, 6), np.uint16)
ids16[:, :3], ids16[:, 3:] = 256, 257
mask16 = np.zeros((3, 7), np.uint16)
mask16[0, 0], mask16[1, 3], mask16[2, 6] = 1, 2, 300
cases["issue_ids16.png"] = ids16
cases["issue_mask16.png"] = mask16
cases["png8.png"] = blobs((37, 53), [1, 2, 200, 255]).astype(np.uint8)
cases["png16.png"] = blobs((41, 29), [1, 255, 256, 257, 65535]).astype(np.uint16)
cases["tif8.tif"] = blobs((23, 61), [3, 4, 250]).astype(np.uint8)
cases["tif16_deflate.tif"] = blobs((40, 40), [255, 256, 1000, 1001, 65534]).astype(np.uint16)
cases["tif32_tiled.tif"] = blobs((70, 50), [1, 16777216, 16777217, 4294967295]).astype(np.uint32)
cases["pgm8.pgm"] = blobs((19, 33), [9, 10, 11]).astype(np.uint8)
cases["pgm16.pgm"] = blobs((21, 17), [1, 300, 40000]).astype(np.uint16)
for dtype in (np.uint8, np.uint16, np.int32, np.uint32, np.float32):
    values = [1, 2, 255] + ([256, 70000] if dtype != np.uint8 else []) + ([2**31 - 1] if dtype in (np.int32, np.uint32) else [])
    array = blobs((25, 31), values).astype(dtype)
    cases["array_%s.npy" % np.dtype(dtype).name] = array
    cases["array_%s_fortran.npy" % np.dtype(dtype).name] = np.asfortranarray(array)
cases["array_bool.npy"] = blobs((25, 31), [1]).astype(bool)

os.makedirs(WORK, exist_ok=True)
inputs = os.path.join(WORK, "inputs")
shutil.rmtree(inputs, ignore_errors=True)
os.makedirs(inputs)
paths = []
for name, array in cases.items():
    path = os.path.join(inputs, name)
    if name.endswith(".png"):
        Image.fromarray(array).save(path)  # mode L or I;16
    elif name.endswith(".tif"):
        kwargs = {"compression": "zlib"} if "deflate" in name else {}  # tifffile alone has no LZW encoder
        if "tiled" in name:
            kwargs["tile"] = (16, 16)
        tifffile.imwrite(path, array, **kwargs)
    elif name.endswith(".pgm"):
        write_pgm(path, array, 255 if array.dtype == np.uint8 else 65535)
    else:
        np.save(path, array)
    paths.append(path)

# A JPEG mask (Pillow's libjpeg): flat blocks far from the level, so that
# compression noise cannot move a pixel across it.
jpeg_mask = np.kron(rng.integers(0, 2, (6, 8)), np.ones((8, 8))).astype(np.uint8) * 255
jpeg_path = os.path.join(inputs, "mask.jpg")
Image.fromarray(jpeg_mask).save(jpeg_path, quality=95)
cases["mask.jpg"] = np.asarray(Image.open(jpeg_path))
# An RGB PPM read as luma: OpenCV's BT.601 weights in 14-bit fixed point.
rgb = np.stack([blobs((13, 15), [10, 200]), blobs((13, 15), [20, 100]), blobs((13, 15), [30, 50])], axis=2)
ppm_path = os.path.join(inputs, "color.ppm")
write_pgm(ppm_path, rgb.astype(np.uint8), 255)
r, g, b = (rgb[..., c].astype(np.int64) for c in range(3))
cases["color.ppm"] = ((r * 4899 + g * 9617 + b * 1868 + 8192) >> 14).astype(np.uint32)
paths += [jpeg_path, ppm_path]


def expected_labels(array, criterion, connectivity):
    array = np.asarray(array).astype(np.uint64)
    if criterion == "binary":
        array = array != 0
    elif criterion.startswith("binary:"):
        array = array > int(criterion.split(":")[1])
    return sk_label(array, background=0, connectivity=1 if connectivity == 4 else 2)


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


for backend in BACKENDS:
    for connectivity in (4, 8):
        for criterion in ("binary", "segments", "binary:128"):
            out = os.path.join(WORK, "out_%s_%d_%s" % (backend, connectivity, criterion.replace(":", "")))
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            command = [GLCCL, "label", *paths, "--backend", backend, "--connectivity", str(connectivity),
                       "--criterion", criterion, "--out-dir", out, "--labels", "--label-image"]
            run = subprocess.run(command, capture_output=True, text=True)
            what = "%s %d-connectivity %s" % (backend, connectivity, criterion)
            if run.returncode != 0:
                failures.append("%s: exit %d\n%s%s" % (what, run.returncode, run.stdout, run.stderr))
                continue
            for path in paths:
                name = os.path.basename(path)
                if criterion == "binary:128" and name.startswith(("array_", "issue_")) is False and name != "mask.jpg":
                    continue  # one level test per kind of input is enough
                expected = expected_labels(cases[name], criterion, connectivity)
                labels = np.load(os.path.join(out, stem(path) + "_labels.npy"))
                if labels.shape != expected.shape or not np.array_equal(labels, expected):
                    failures.append("%s, %s: %d components, scikit-image %d" %
                                    (what, name, labels.max(initial=0), expected.max(initial=0)))
                    continue
                picture = os.path.join(out, stem(path) + "_labels.png")
                read_back = (np.asarray(Image.open(picture)) if os.path.exists(picture)
                             else tifffile.imread(os.path.join(out, stem(path) + "_labels.tif")))
                if not np.array_equal(read_back.astype(np.uint64), labels.astype(np.uint64)):
                    failures.append("%s, %s: the label image differs from the labels" % (what, name))
            print("%s: %d inputs compared" % (what, len(paths)))

# The counts, stated once more on their own.
for name, count in (("issue_ids16.png", 2), ("issue_mask16.png", 3)):
    criterion = "segments" if "ids" in name else "binary"
    if expected_labels(cases[name], criterion, 8).max() != count:
        failures.append("scikit-image does not count %d in %s" % (count, name))

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("all inputs agree with scikit-image on", ", ".join(BACKENDS))
