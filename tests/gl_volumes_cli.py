"""`glccl label` on volumes, against scipy.ndimage.label with the matching
structure (6: the cross, 18: the cube without its corners, 26: the full
cube): 3-D .npy files (C and Fortran order) and multi-page TIFF stacks in;
the labels .npy, the 32-bit TIFF label stack and the CSV's z columns read
back and compared; the refusals of a volume's misfits.

    gl_volumes_cli.py GLCCL SCRATCH

Reports through cli_check.py."""

import csv
import os
import re

import numpy as np
from scipy import ndimage

from cli_check import RANKS, CliCheck

check = CliCheck()
run, report = check.run, check.report

# The stacks are written by tifffile where Debian has it, else by PIL's
# multi-page save (8-bit pages), and read back the same way.
try:
    import tifffile
except ImportError:
    tifffile = None
from PIL import Image


def write_stack(path, volume):
    if tifffile is not None:
        tifffile.imwrite(path, volume, photometric="minisblack")
        return True
    if volume.dtype != np.uint8:
        return False
    pages = [Image.fromarray(page) for page in volume]
    pages[0].save(path, save_all=True, append_images=pages[1:])
    return True


def read_stack(path):
    if tifffile is not None:
        return tifffile.imread(path)
    image = Image.open(path)
    pages = []
    for i in range(image.n_frames):
        image.seek(i)
        pages.append(np.array(image))
    return np.stack(pages)


def table_of(labels, n):
    """The CSV's columns from scipy.ndimage: box, count, centroid."""
    boxes = ndimage.find_objects(labels)
    index = np.arange(1, n + 1)
    z, y, x = np.indices(labels.shape, dtype=np.int64)
    area = np.rint(ndimage.sum_labels(np.ones(labels.shape), labels, index)).astype(np.int64)
    sums = [np.rint(ndimage.sum_labels(a, labels, index)).astype(np.int64) for a in (x, y, z)]
    rows = []
    for i, b in enumerate(boxes):
        rows.append({
            "label": i + 1, "left": b[2].start, "top": b[1].start, "front": b[0].start,
            "width": b[2].stop - b[2].start, "height": b[1].stop - b[1].start, "depth": b[0].stop - b[0].start,
            "area": int(area[i]), "centroid_x": sums[0][i] / area[i], "centroid_y": sums[1][i] / area[i],
            "centroid_z": sums[2][i] / area[i]})
    return rows


def expected_labels(volume, criterion, connectivity):
    """(labels, n) of scikit-image (segments: regions of equal value, 0
    background) or scipy (binary) at the connectivity's structure."""
    if criterion == "segments":
        from skimage import measure
        labels = measure.label(volume.astype(np.int64), background=0, connectivity=RANKS[connectivity])
        return labels, int(labels.max())
    return ndimage.label(volume != 0, ndimage.generate_binary_structure(3, RANKS[connectivity]))


rng = np.random.default_rng(25)
noise = (rng.random((9, 23, 31)) < 0.35).astype(np.uint8)
segments = (rng.integers(0, 4, (7, 19, 13)) * 300 * (rng.random((7, 19, 13)) < 0.8)).astype(np.uint16)
helix = np.zeros((30, 17, 17), np.uint8)
for z in range(30):
    angle = 2 * np.pi * 2.5 * z / 30
    helix[z, int(round(8 + 6 * np.sin(angle))), int(round(8 + 6 * np.cos(angle)))] = 1
np.save("noise.npy", noise)
np.save("noise_f.npy", np.asfortranarray(noise.astype(np.int32)))
np.save("segments.npy", segments)
np.save("helix.npy", helix)
stacks = {name: write_stack(name + ".tif", volume)
          for name, volume in (("noise", noise), ("segments", segments), ("helix", helix))}

cases = [("noise.npy", noise != 0, "binary"), ("noise_f.npy", noise != 0, "binary"),
         ("helix.npy", helix != 0, "binary"), ("segments.npy", None, "segments")]
cases += [(name + ".tif", None, None) for name, written in stacks.items() if written]
for path, foreground, criterion in cases:
    base = path.split(".")[0].split("_")[0]
    volume = {"noise": noise, "segments": segments, "helix": helix}[base]
    criterion = criterion or ("segments" if base == "segments" else "binary")
    for connectivity in (6, 18, 26):
        name = f"{path} {criterion} {connectivity}"
        args = ["label", path, "--criterion", criterion, "--labels", "l.npy", "--label-image", "l.tif",
                "--stats", "s.csv", "--color", "c.png", "--force"]
        # 26 is the default of a volume: left out once.
        if connectivity != 26 or path.endswith(".tif"):
            args += ["--connectivity", str(connectivity)]
        result = run(*args)
        if result.returncode != 0:
            report(name, False, result.stderr)
            continue
        expected, n = expected_labels(volume, criterion, connectivity)
        d, h, w = volume.shape
        summary = f"{path}: {w}x{h}x{d}, {n} component"
        report(name + " summary", result.stdout.startswith(summary), result.stdout.splitlines()[:1])
        labels = np.load("l.npy")
        report(name + " labels .npy", labels.dtype == np.uint32 and labels.shape == volume.shape
               and np.array_equal(labels, expected))
        report(name + " label TIFF stack", np.array_equal(read_stack("l.tif"), expected))
        with open("s.csv") as f:
            rows = list(csv.DictReader(f))
        wanted = table_of(expected, n)
        same = len(rows) == len(wanted) and all(
            int(r[k]) == w_[k] if k not in ("centroid_x", "centroid_y", "centroid_z") else float(r[k]) == w_[k]
            for r, w_ in zip(rows, wanted) for k in w_)
        report(name + " CSV", same and list(rows[0].keys() if rows else []) ==
               ["label", "left", "top", "front", "width", "height", "depth", "area", "centroid_x", "centroid_y",
                "centroid_z"] if n else same)
        picture = np.array(Image.open("c.png"))
        report(name + " picture size", picture.shape[:2] == (max(h, d), 2 * w + d + 8))

# --table and --json carry z.
result = run("label", "noise.npy", "--table")
report("--table z columns", re.search(r"label +left +top +front +width +height +depth +area", result.stdout)
       is not None, result.stdout)
result = run("label", "noise.npy", "--json", "--table")
report("--json depth", '"depth":9' in result.stdout and '"centroid_z"' in result.stdout
       and '"connectivity":26' in result.stdout, result.stdout[:200])

# Refusals: a 2-D connectivity, a PNG label image of a volume (nothing
# written), mismatched pages.
result = run("label", "noise.npy", "--connectivity", "8")
report("--connectivity 8 refused", result.returncode == 2 and "--connectivity: connectivity 8 is for 2-D images"
       in result.stderr, result.stderr)
for leftover in ("l.npy", "l.png"):
    if os.path.exists(leftover):
        os.remove(leftover)
result = run("label", "noise.npy", "--labels", "l.npy", "--label-image", "l.png")
report("PNG label image refused", result.returncode == 1 and "TIFF stack" in result.stderr
       and not os.path.exists("l.npy") and not os.path.exists("l.png"), result.stderr)
if tifffile is not None:
    with tifffile.TiffWriter("mixed.tif") as tif:
        tif.write(noise[0])
        tif.write(noise[1, :10])
    result = run("label", "mixed.tif")
    report("mismatched pages refused", result.returncode == 1 and "page 1 of the stack is" in result.stderr,
           result.stderr)

# A stack in bricks (asked for with --tile or --memory-limit), page ranges
# read strip by strip: scipy's labels and table, as the 3-D .npy gives them.
for stack in [name for name, written in stacks.items() if written]:
    volume = {"noise": noise, "segments": segments, "helix": helix}[stack]
    criterion = "segments" if stack == "segments" else "binary"
    for connectivity, options in ((6, ["--tile", "16x8x3"]), (26, ["--memory-limit", "64M"]),
                                  (18, ["--tile", "7x5x2", "--devices", "0,0"])):
        name = f"{stack}.tif in bricks {' '.join(options)} {connectivity}"
        result = run("label", stack + ".tif", "--criterion", criterion, "--connectivity", str(connectivity),
                     "--labels", "l.npy", "--stats", "s.csv", "--force", "--backend", "cpu", *options)
        if result.returncode != 0:
            report(name, False, result.stderr)
            continue
        expected, n = expected_labels(volume, criterion, connectivity)
        report(name + " labels", np.array_equal(np.load("l.npy"), expected) and "tiled: " in result.stdout,
               result.stdout)
        with open("s.csv") as f:
            rows = list(csv.DictReader(f))
        report(name + " CSV", [int(r["area"]) for r in rows] == [w["area"] for w in table_of(expected, n)])

check.finish()
