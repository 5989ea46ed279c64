"""Region properties on the command line against scikit-image, run as

    cli_measure_test.py GLCCL SCRATCH

`glccl measure LABELS` on label images written here (.npy of several
integer dtypes, 2-D and 3-D, labels past 2^32, 16-bit PNG, TIFF and TIFF
stacks), and `glccl label INPUT --properties` on masks, in one piece and in
tiles and bricks, each CSV compared with skimage.measure.regionprops_table
on the same arrays (labeled by scipy.ndimage.label): the same columns
in the same order, integers equal, reals within 1e-9 relative (an absolute
floor of 1e-9 times the region's largest value of that property, for values
that are zero in exact arithmetic). The spacing, which scikit-image 0.19 does not take, is
checked against numpy's own sums. Then the mistakes: exit status 2 and one
line on stderr."""

import csv
import io
import math
import os
import signal
import subprocess
import warnings

import numpy as np
from scipy import ndimage
from skimage.measure import label as sk_label
from skimage.measure import regionprops_table
from skimage.morphology import remove_small_objects

from cli_check import CliCheck

RELATIVE = 1e-9

# Properties of 2-D labels without an intensity, in scikit-image 0.19's names.
PLANE = ["label", "area", "bbox", "area_bbox", "extent", "equivalent_diameter_area", "centroid", "centroid_local",
         "moments", "moments_central", "moments_normalized", "moments_hu", "inertia_tensor",
         "inertia_tensor_eigvals", "orientation", "axis_major_length", "axis_minor_length", "eccentricity",
         "perimeter", "perimeter_crofton", "euler_number"]
# Of 3-D labels (scikit-image defines no orientation, eccentricity,
# perimeter nor Hu moments there).
VOLUME = ["label", "area", "bbox", "area_bbox", "extent", "equivalent_diameter_area", "centroid", "centroid_local",
          "moments", "moments_central", "moments_normalized", "inertia_tensor", "inertia_tensor_eigvals",
          "axis_major_length", "axis_minor_length", "euler_number"]
# With an intensity image.
INTENSITY = ["label", "intensity_mean", "intensity_min", "intensity_max", "centroid_weighted",
             "centroid_weighted_local", "moments_weighted", "moments_weighted_central",
             "moments_weighted_normalized"]
INTENSITY_PLANE = INTENSITY + ["moments_weighted_hu"]
# Of several channels: scikit-image 0.19's regionprops_table fails on
# centroid_weighted of several channels (a column of arrays).
CHANNELS = [name for name in INTENSITY_PLANE if name != "centroid_weighted"]


def reference(labels, properties=None, intensity_image=None):
    """regionprops_table, with the orientation of a region whose inertia
    tensor has equal diagonal entries as scikit-image 0.20 and later give
    it (the limit of 0.5 atan2(-2b, c - a): pi/4 where b < 0, else -pi/4);
    0.19 gives the opposite sign."""
    kwargs = {} if properties is None else {"properties": properties}
    table = regionprops_table(labels, intensity_image=intensity_image, **kwargs)
    if properties is not None and "orientation" in properties:
        tensor = regionprops_table(labels, properties=["inertia_tensor"])
        a, b, c = tensor["inertia_tensor-0-0"], tensor["inertia_tensor-0-1"], tensor["inertia_tensor-1-1"]
        equal = a - c == 0
        table["orientation"] = np.where(equal, np.where(b < 0, math.pi / 4, -math.pi / 4), table["orientation"])
    return table


def read_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    return (rows[0], rows[1:]) if rows else ([], [])


def compare(check, name, text, expected):
    """The CSV `text` against regionprops_table's dict `expected`."""
    header, rows = read_csv(text)
    check.report(f"{name}: columns", header == list(expected),
                 f"(glccl {header[:8]}... {len(header)}, scikit-image {list(expected)[:8]}... {len(expected)})")
    if header != list(expected):
        return
    count = len(next(iter(expected.values()))) if expected else 0
    check.report(f"{name}: rows", len(rows) == count, f"({len(rows)} rows, scikit-image {count})")
    if len(rows) != count:
        return
    for column, key in enumerate(header):
        values = np.asarray(expected[key])
        cells = [row[column] for row in rows]
        if values.dtype.kind in "iub":
            try:
                got = [int(cell) for cell in cells]
            except ValueError:
                check.report(f"{name}: {key} integers", False, f"(cells {cells[:5]})")
                continue
            wrong = [i for i, (g, e) in enumerate(zip(got, values.tolist())) if g != int(e)]
            check.report(f"{name}: {key}", not wrong,
                         f"(row {wrong[:1]}: glccl {[got[i] for i in wrong[:3]]}, "
                         f"scikit-image {[values.tolist()[i] for i in wrong[:3]]})")
            continue
        got = np.array([float(cell) for cell in cells])
        values = values.astype(np.float64)
        # A value zero in exact arithmetic comes out of floating point as
        # rounding noise of the sums it is made from: the floor is relative
        # to the row's largest value of the property (all its columns).
        family = np.array([np.asarray(expected[k], np.float64) for k in expected
                           if k.split("-")[0] == key.split("-")[0]])
        with np.errstate(invalid="ignore"):
            scale = np.nanmax(np.where(np.isfinite(family), np.abs(family), np.nan), axis=0)
        floor = RELATIVE * np.maximum(1.0, np.nan_to_num(scale, nan=1.0))
        both_nan = np.isnan(got) & np.isnan(values)
        same_inf = np.isinf(got) & np.isinf(values) & (np.sign(got) == np.sign(values))
        with np.errstate(invalid="ignore"):
            close = np.abs(got - values) <= RELATIVE * np.maximum(np.abs(got), np.abs(values)) + floor
        ok = both_nan | same_inf | close
        bad = np.flatnonzero(~ok)
        check.report(f"{name}: {key}", bad.size == 0,
                     f"(row {bad[:1].tolist()}: glccl {got[bad[:3]].tolist()}, "
                     f"scikit-image {values[bad[:3]].tolist()})")


def one_line_error(check, name, run, words):
    """Exit status 2 and one 'glccl: ' line on stderr holding every word."""
    said = run.stderr.strip()
    check.report(f"{name}: exit 2", run.returncode == 2, f"(exit {run.returncode}: {said})")
    check.report(f"{name}: one line", said.startswith("glccl: ") and "\n" not in said, f"({said!r})")
    for word in words:
        check.report(f"{name}: says {word!r}", word in said, f"({said!r})")


def blobs(rng, shape, count, largest):
    """Labels of `count` random boxes and discs (some overlapping, some
    split in two pieces), values drawn from `largest` down."""
    labels = np.zeros(shape, np.int64)
    grids = np.indices(shape)
    for _ in range(count):
        centre = [rng.integers(0, side) for side in shape]
        radius = [rng.integers(1, max(2, side // 4)) for side in shape]
        inside = sum(((g - c) / r) ** 2 for g, c, r in zip(grids, centre, radius)) <= 1.0
        labels[inside] = rng.integers(1, largest)
    return labels


def main():
    # scikit-image's normalized moments of orders 0 and 1 are nan, with a warning.
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    check = CliCheck()
    rng = np.random.default_rng(7)

    # --- glccl measure on .npy labels of several dtypes --------------------
    plane = blobs(rng, (57, 71), 14, 40)
    for dtype in (np.uint8, np.int16, np.uint32, np.int64):
        np.save(f"plane_{np.dtype(dtype).name}.npy", plane.astype(dtype))
        run = check.run("measure", f"plane_{np.dtype(dtype).name}.npy", "--properties", ",".join(PLANE))
        check.report(f"measure {np.dtype(dtype).name}: exit 0", run.returncode == 0, run.stderr.strip())
        compare(check, f"measure {np.dtype(dtype).name}", run.stdout, reference(plane, properties=PLANE))

    # Fortran order and big-endian samples: the same labels.
    np.save("plane_fortran.npy", np.asfortranarray(plane.astype(">i4")))
    run = check.run("measure", "plane_fortran.npy", "--properties", "label,area,bbox,centroid,moments_central")
    check.report("measure Fortran-ordered big-endian .npy: exit 0", run.returncode == 0, run.stderr.strip())
    compare(check, "measure Fortran-ordered big-endian .npy", run.stdout,
            reference(plane, properties=["label", "area", "bbox", "centroid", "moments_central"]))
    np.save("volume_fortran.npy", np.asfortranarray(volume_for_fortran := blobs(rng, (5, 9, 13), 6, 9)))
    run = check.run("measure", "volume_fortran.npy", "--properties", "label,area,bbox,centroid")
    compare(check, "measure Fortran-ordered volume", run.stdout,
            reference(volume_for_fortran, properties=["label", "area", "bbox", "centroid"]))

    # The CSV is the same, byte for byte, for every thread count, and
    # --stats writes what stdout shows.
    runs = [check.run("measure", "plane_int64.npy", "--properties", ",".join(PLANE), "--threads", str(n))
            for n in (1, 3)]
    check.report("measure --threads 1 and 3 print the same CSV", runs[0].stdout == runs[1].stdout and runs[0].stdout)
    run = check.run("measure", "plane_int64.npy", "--properties", ",".join(PLANE), "--stats", "plane.csv")
    check.report("measure --stats: exit 0", run.returncode == 0, run.stderr.strip())
    check.report("measure --stats: summary", run.stdout.startswith("plane_int64.npy: 71x57, ")
                 and "wrote plane.csv" in run.stdout, run.stdout)
    if os.path.exists("plane.csv"):
        with open("plane.csv") as f:
            check.report("measure --stats writes the CSV of stdout", f.read() == runs[0].stdout)

    # Default properties: label and bbox, as regionprops_table's.
    run = check.run("measure", "plane_uint8.npy")
    compare(check, "measure default properties", run.stdout, reference(plane))

    # Labels past 2^32, not consecutive, regions in pieces.
    wide = plane.copy()
    values = np.unique(wide[wide > 0])
    drawn = np.unique(rng.integers(2**32, 2**40, 4 * values.size))[:values.size]
    rng.shuffle(drawn)
    remap = {v: int(x) + (i % 2) * 2**62 for i, (v, x) in enumerate(zip(values, drawn))}
    for v, x in remap.items():
        wide[plane == v] = x
    np.save("wide.npy", wide)
    properties = ["label", "area", "bbox", "centroid", "moments_central", "euler_number"]
    run = check.run("measure", "wide.npy", "--properties", ",".join(properties))
    check.report("measure int64 labels past 2^32: exit 0", run.returncode == 0, run.stderr.strip())
    # scipy's find_objects, beneath regionprops, takes a list as long as the
    # largest label: the table of the small labels, relabeled and sorted.
    table = reference(plane, properties=properties)
    table["label"] = np.array([remap[v] for v in table["label"]], dtype=np.uint64)
    order = np.argsort(table["label"])
    compare(check, "measure int64 labels past 2^32", run.stdout, {k: v[order] for k, v in table.items()})

    # A volume, and an intensity of float64 and one of 3 int16 channels.
    volume = blobs(rng, (11, 19, 23), 9, 30).astype(np.uint16)
    np.save("volume.npy", volume)
    run = check.run("measure", "volume.npy", "--properties", ",".join(VOLUME))
    check.report("measure 3-D .npy: exit 0", run.returncode == 0, run.stderr.strip())
    compare(check, "measure 3-D .npy", run.stdout, reference(volume, properties=VOLUME))
    glow = rng.normal(10.0, 3.0, volume.shape)
    np.save("glow.npy", glow)
    run = check.run("measure", "volume.npy", "--intensity", "glow.npy", "--properties", ",".join(INTENSITY))
    check.report("measure 3-D float64 intensity: exit 0", run.returncode == 0, run.stderr.strip())
    compare(check, "measure 3-D float64 intensity", run.stdout,
            reference(volume, intensity_image=glow, properties=INTENSITY))
    stains = rng.integers(-500, 500, plane.shape + (3,)).astype(np.int16)
    np.save("stains.npy", stains)
    run = check.run("measure", "plane_int16.npy", "--intensity", "stains.npy", "--properties", ",".join(CHANNELS))
    check.report("measure 3-channel int16 intensity: exit 0", run.returncode == 0, run.stderr.strip())
    compare(check, "measure 3-channel int16 intensity", run.stdout,
            reference(plane, intensity_image=stains, properties=CHANNELS))

    # TIFF (16-bit, a 32-bit stack) and 16-bit PNG labels, an RGB PNG intensity.
    import tifffile
    from PIL import Image
    tifffile.imwrite("plane16.tif", plane.astype(np.uint16))
    tifffile.imwrite("volume32.tif", volume.astype(np.uint32))
    Image.fromarray(plane.astype(np.uint16)).save("plane16.png")
    rgb = rng.integers(0, 256, plane.shape + (3,)).astype(np.uint8)
    Image.fromarray(rgb, "RGB").save("rgb.png")
    for name, labels, properties in (("plane16.tif", plane, PLANE), ("volume32.tif", volume, VOLUME),
                                     ("plane16.png", plane, PLANE)):
        run = check.run("measure", name, "--properties", ",".join(properties))
        check.report(f"measure {name}: exit 0", run.returncode == 0, run.stderr.strip())
        compare(check, f"measure {name}", run.stdout, reference(labels, properties=properties))
    run = check.run("measure", "plane16.png", "--intensity", "rgb.png", "--properties", ",".join(CHANNELS))
    check.report("measure RGB PNG intensity: exit 0", run.returncode == 0, run.stderr.strip())
    compare(check, "measure RGB PNG intensity", run.stdout,
            reference(plane, intensity_image=rgb, properties=CHANNELS))

    # --spacing against numpy: area times the element's size, centroids of
    # scaled coordinates.
    for labels, name, spacing in ((plane, "plane_int64.npy", (1.5, 0.25)), (volume, "volume.npy", (2.0, 1.0, 0.5))):
        run = check.run("measure", name, "--properties", "label,area,centroid",
                        "--spacing", ",".join(map(str, spacing)))
        check.report(f"measure --spacing {spacing}: exit 0", run.returncode == 0, run.stderr.strip())
        expected = {"label": [], "area": []}
        for axis in range(labels.ndim):
            expected[f"centroid-{axis}"] = []
        for value in np.unique(labels[labels > 0]):
            where = np.nonzero(labels == value)
            expected["label"].append(int(value))
            expected["area"].append(where[0].size * math.prod(spacing))
            for axis in range(labels.ndim):
                expected[f"centroid-{axis}"].append(float(np.mean(where[axis] * spacing[axis])))
        compare(check, f"measure --spacing {spacing}", run.stdout, expected)

    # --- glccl label --properties on the components it labels --------------
    mask = (rng.random((61, 77)) < 0.45).astype(np.uint8) * 255
    Image.fromarray(mask).save("mask.png")
    components = sk_label(mask > 0, connectivity=2)
    run = check.run("label", "mask.png", "--backend", "cpu", "--stats", "mask.csv",
                    "--properties", ",".join(PLANE))
    check.report("label --properties: exit 0", run.returncode == 0, run.stderr.strip())
    if os.path.exists("mask.csv"):
        with open("mask.csv") as f:
            compare(check, "label --properties", f.read(), reference(components, properties=PLANE))
    # Every engine that runs here measures the labels it made (the GL engines
    # on the GPU, from their label texture, with an unsigned intensity
    # uploaded): the same table, scikit-image's.
    glow16 = rng.integers(0, 65536, mask.shape).astype(np.uint16)
    np.save("glow16.npy", glow16)
    gathered = PLANE + ["intensity_mean", "intensity_min", "intensity_max", "centroid_weighted",
                        "moments_weighted_central"]
    for backend in ("cpu", "compute", "raster"):
        run = check.run("label", "mask.png", "--backend", backend, "--stats", f"mask_{backend}.csv",
                        "--properties", ",".join(gathered), "--intensity", "glow16.npy")
        if run.returncode != 0 and "cannot run here" in run.stderr:
            print(f"label --backend {backend} --properties: skipped, {run.stderr.strip()}")
            continue
        check.report(f"label --backend {backend} --properties --intensity: exit 0", run.returncode == 0,
                     run.stderr.strip())
        if os.path.exists(f"mask_{backend}.csv"):
            with open(f"mask_{backend}.csv") as f:
                compare(check, f"label --backend {backend} --properties --intensity", f.read(),
                        reference(components, intensity_image=glow16, properties=gathered))
        # An intensity beside properties that read none of it is left unread,
        # as scikit-image leaves it.
        run = check.run("label", "mask.png", "--backend", backend, "--stats", f"mask_unread_{backend}.csv",
                        "--properties", ",".join(PLANE), "--intensity", "glow16.npy")
        check.report(f"label --backend {backend} --properties without intensity ones --intensity: exit 0",
                     run.returncode == 0, run.stderr.strip())
        if os.path.exists(f"mask_unread_{backend}.csv"):
            with open(f"mask_unread_{backend}.csv") as f:
                compare(check, f"label --backend {backend} --intensity left unread", f.read(),
                        reference(components, intensity_image=glow16, properties=PLANE))
    rgb_mask = rng.integers(0, 256, mask.shape + (3,)).astype(np.uint8)
    Image.fromarray(rgb_mask, "RGB").save("mask_rgb.png")
    run = check.run("label", "mask.png", "--backend", "cpu", "--stats", "mask_rgb.csv", "--intensity",
                    "mask_rgb.png", "--properties", ",".join(CHANNELS), "--spacing", "1,1")
    check.report("label --intensity RGB: exit 0", run.returncode == 0, run.stderr.strip())
    if os.path.exists("mask_rgb.csv"):
        with open("mask_rgb.csv") as f:
            compare(check, "label --intensity RGB", f.read(),
                    reference(components, intensity_image=rgb_mask, properties=CHANNELS))
    blob_volume = (blobs(rng, (9, 17, 21), 12, 2) > 0).astype(np.uint8)
    np.save("blob_volume.npy", blob_volume)
    run = check.run("label", "blob_volume.npy", "--backend", "cpu", "--stats", "blob_volume.csv",
                    "--properties", ",".join(VOLUME), "--intensity", "glow.npy")
    one_line_error(check, "label volume with an intensity of another shape", run, ["glow.npy", "(11, 19, 23)"])
    np.save("glow_volume.npy", rng.normal(5.0, 1.0, blob_volume.shape).astype(np.float32))
    run = check.run("label", "blob_volume.npy", "--backend", "cpu", "--stats", "blob_volume.csv",
                    "--properties", ",".join(VOLUME + INTENSITY[1:]), "--intensity", "glow_volume.npy")
    check.report("label 3-D --properties: exit 0", run.returncode == 0, run.stderr.strip())
    if os.path.exists("blob_volume.csv"):
        with open("blob_volume.csv") as f:
            compare(check, "label 3-D --properties", f.read(),
                    reference(sk_label(blob_volume > 0, connectivity=3),
                              # the float32 samples, summed in float64 (0.19 sums
                              # in float32)
                              intensity_image=np.load("glow_volume.npy").astype(np.float64),
                                      properties=VOLUME + INTENSITY[1:]))
    run = check.run("label", "mask.png", "--backend", "cpu", "--stats", "mask_spaced.csv",
                    "--properties", "label,area,centroid", "--spacing", "0.5,3")
    if os.path.exists("mask_spaced.csv"):
        with open("mask_spaced.csv") as f:
            table = reference(components, properties=["label", "area", "centroid"])
            table["area"] = table["area"] * 1.5
            table["centroid-0"] = table["centroid-0"] * 0.5
            table["centroid-1"] = table["centroid-1"] * 3
            compare(check, "label --spacing 0.5,3", f.read(), table)
    else:
        check.report("label --spacing: exit 0", False, run.stderr.strip())

    # Without --properties the component table is as it always was.
    run = check.run("label", "mask.png", "--backend", "cpu", "--stats", "plain.csv")
    with open("plain.csv") as f:
        header, rows = read_csv(f.read())
    boxes = reference(components, properties=["label", "bbox", "area"])
    check.report("label without --properties: the component table",
                 header == ["label", "left", "top", "width", "height", "area", "centroid_x", "centroid_y"]
                 and [int(r[0]) for r in rows] == boxes["label"].tolist()
                 and [int(r[1]) for r in rows] == boxes["bbox-1"].tolist()
                 and [int(r[5]) for r in rows] == boxes["area"].tolist(), f"({header})")

    # The components --min-size keeps, numbered 1..m in raster order.
    kept = sk_label(remove_small_objects(components > 0, 6, connectivity=2) > 0, connectivity=2)
    run = check.run("label", "mask.png", "--backend", "cpu", "--min-size", "6", "--stats", "kept.csv",
                    "--properties", "label,area,bbox,euler_number")
    if os.path.exists("kept.csv"):
        with open("kept.csv") as f:
            compare(check, "label --min-size --properties", f.read(),
                    reference(kept, properties=["label", "area", "bbox", "euler_number"]))
    else:
        check.report("label --min-size --properties: exit 0", False, run.stderr.strip())
    # Several inputs into --out-dir: each its table.
    os.makedirs("batch", exist_ok=True)
    run = check.run("label", "mask.png", "rgb.png", "--backend", "cpu", "--out-dir", "batch", "--stats",
                    "--properties", "label,area,perimeter")
    check.report("label --out-dir --properties: exit 0", run.returncode == 0, run.stderr.strip())
    for name, image in (("mask", mask), ("rgb", np.asarray(Image.open("rgb.png").convert("L")))):
        if os.path.exists(f"batch/{name}_stats.csv"):
            with open(f"batch/{name}_stats.csv") as f:
                compare(check, f"label --out-dir --properties {name}", f.read(),
                        reference(sk_label(image > 0, connectivity=2), properties=["label", "area", "perimeter"]))
        else:
            check.report(f"label --out-dir --properties {name}", False, run.stderr.strip())

    # --- glccl label --properties in tiles and bricks ----------------------
    # Tiles forced on small inputs: the labels stream to --labels (or
    # nowhere) and are measured as they pass. scipy labels the masks (full
    # structure: 8- and 26-connectivity), in the raster order glccl numbers
    # in; the labels file is checked against it first.
    tiled_mask = (rng.random((150, 190)) < 0.45).astype(np.uint8)
    np.save("tiled_mask.npy", tiled_mask)
    tiled_labels, _ = ndimage.label(tiled_mask, structure=np.ones((3, 3)))
    tiled_glow = rng.normal(100.0, 20.0, tiled_mask.shape)
    np.save("tiled_glow.npy", tiled_glow)
    tiled_stains = rng.integers(0, 60000, tiled_mask.shape + (2,)).astype(np.uint16)
    np.save("tiled_stains.npy", tiled_stains)
    tiled_volume = (rng.random((20, 30, 26)) < 0.3).astype(np.uint8)
    np.save("tiled_volume.npy", tiled_volume)
    volume_labels, _ = ndimage.label(tiled_volume, structure=np.ones((3, 3, 3)))
    volume_glow = rng.integers(0, 4000, tiled_volume.shape).astype(np.uint16)
    np.save("tiled_volume_glow.npy", volume_glow)
    volume_properties = VOLUME + INTENSITY[1:]
    channel_properties = [name for name in CHANNELS if name != "label"]
    for name, labels, arguments, outputs, expected in (
            ("2-D in tiles of 64 with --labels, float64 intensity", tiled_labels,
             ["tiled_mask.npy", "--tile", "64", "--labels", "tiled_labels.npy", "--intensity", "tiled_glow.npy",
              "--properties", ",".join(PLANE + INTENSITY_PLANE[1:])],
             ["tiled_labels.npy"],
             reference(tiled_labels, intensity_image=tiled_glow, properties=PLANE + INTENSITY_PLANE[1:])),
            ("2-D in tiles of 50x40 without --labels, 2 uint16 channels", tiled_labels,
             ["tiled_mask.npy", "--tile", "50x40", "--intensity", "tiled_stains.npy",
              "--properties", ",".join(["label", "area", "perimeter"] + channel_properties)],
             [],
             reference(tiled_labels, intensity_image=tiled_stains,
                       properties=["label", "area", "perimeter"] + channel_properties)),
            ("2-D under --memory-limit without --labels", tiled_labels,
             ["tiled_mask.npy", "--memory-limit", "64M", "--properties", ",".join(PLANE)],
             [],
             reference(tiled_labels, properties=PLANE)),
            ("3-D in bricks of 16x16x8 with --labels, uint16 intensity", volume_labels,
             ["tiled_volume.npy", "--tile", "16x16x8", "--labels", "tiled_volume_labels.npy",
              "--intensity", "tiled_volume_glow.npy", "--properties", ",".join(volume_properties)],
             ["tiled_volume_labels.npy"],
             reference(volume_labels, intensity_image=volume_glow, properties=volume_properties)),
            ("3-D in bricks of 13x11x3 without --labels", volume_labels,
             ["tiled_volume.npy", "--tile", "13x11x3", "--properties", ",".join(VOLUME)],
             [],
             reference(volume_labels, properties=VOLUME))):
        before = set(os.listdir("."))
        run = check.run("label", *arguments, "--backend", "cpu", "--stats", "tiled.csv", "--force")
        check.report(f"label --properties {name}: exit 0", run.returncode == 0, run.stderr.strip())
        check.report(f"label --properties {name}: tiled", "  tiled: " in run.stdout, run.stdout[:300])
        # Exactly the outputs asked for: no temporary left behind.
        new = set(os.listdir(".")) - before
        check.report(f"label --properties {name}: writes its outputs, nothing else",
                     new == ({"tiled.csv"} | set(outputs)) - before, f"({sorted(new)})")
        for written in outputs:
            if os.path.exists(written):
                check.report(f"label --properties {name}: {written} is scipy's labeling",
                             np.array_equal(np.load(written), labels))
        if os.path.exists("tiled.csv"):
            with open("tiled.csv") as f:
                compare(check, f"label --properties {name}", f.read(), expected)
        for path in ["tiled.csv"] + outputs:
            if os.path.exists(path):
                os.remove(path)
    run = check.run("label", "tiled_mask.npy", "--tile", "64", "--backend", "cpu", "--stats", "tiled.csv",
                    "--properties", "label,area,centroid", "--spacing", "0.5,3")
    if os.path.exists("tiled.csv"):
        with open("tiled.csv") as f:
            table = reference(tiled_labels, properties=["label", "area", "centroid"])
            table["area"] = table["area"] * 1.5
            table["centroid-0"] = table["centroid-0"] * 0.5
            table["centroid-1"] = table["centroid-1"] * 3
            compare(check, "label --spacing 0.5,3 in tiles", f.read(), table)
        os.remove("tiled.csv")
    else:
        check.report("label --spacing in tiles: exit 0", False, run.stderr.strip())

    # All or nothing: an existing --stats without --force is refused before
    # any labeling, and a run ended by SIGTERM just before its commit leaves
    # neither output nor a temporary.
    with open("tiled.csv", "w") as f:
        f.write("kept\n")
    before = set(os.listdir("."))
    run = check.run("label", "tiled_mask.npy", "--tile", "64", "--backend", "cpu", "--labels", "tiled.npy",
                    "--stats", "tiled.csv", "--properties", "label,area")
    with open("tiled.csv") as f:
        kept = f.read()
    check.report("label --properties in tiles onto an existing --stats: exit 1, nothing written",
                 run.returncode == 1 and kept == "kept\n" and set(os.listdir(".")) == before,
                 f"(exit {run.returncode}: {run.stderr.strip()})")
    os.remove("tiled.csv")
    before = set(os.listdir("."))
    ended = subprocess.Popen([check.glccl, "label", "tiled_mask.npy", "--tile", "64", "--backend", "cpu",
                              "--labels", "tiled.npy", "--stats", "tiled.csv", "--properties", "label,area"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, GLCCL_TEST_PAUSE_BEFORE_COMMIT="60"))
    paused = ended.stderr.readline()
    ended.send_signal(signal.SIGTERM)
    ended.communicate()
    check.report("label --properties in tiles ended before its commit: no output, no temporary",
                 "pausing before the commit" in paused and ended.returncode in (-signal.SIGTERM, 128 + signal.SIGTERM)
                 and set(os.listdir(".")) == before,
                 f"({paused.strip()!r}, exit {ended.returncode}, {sorted(set(os.listdir('.')) ^ before)})")

    # --- mistakes: exit 2, one line ---------------------------------------
    before = set(os.listdir("."))
    run = check.run("label", "tiled_mask.npy", "--tile", "64", "--labels", "tiled.npy", "--properties", "area")
    one_line_error(check, "label --properties in tiles without --stats", run, ["--properties", "--stats"])
    run = check.run("label", "tiled_mask.npy", "--tile", "64", "--labels", "tiled.npy", "--stats", "tiled.csv",
                    "--intensity", "glow.npy", "--properties", "intensity_mean")
    one_line_error(check, "label in tiles with an intensity of another shape", run, ["glow.npy", "(150, 190)"])
    run = check.run("label", "tiled_volume.npy", "--tile", "16x16x8", "--labels", "tiled.npy", "--stats",
                    "tiled.csv", "--properties", "label,perimeter")
    one_line_error(check, "label 2-D property of a volume in bricks", run, ["perimeter"])
    check.report("label --properties in tiles, refused: writes nothing", set(os.listdir(".")) == before,
                 f"({sorted(set(os.listdir('.')) - before)})")
    run = check.run("measure", "plane_uint8.npy", "--properties", "label,aera")
    one_line_error(check, "measure unknown property", run, ["'aera'", "area", "orientation", "intensity_mean"])
    run = check.run("label", "mask.png", "--stats", "x.csv", "--properties", "label,solidity")
    one_line_error(check, "label unknown property", run, ["'solidity'", "area"])
    run = check.run("measure", "plane_uint8.npy", "--intensity", "glow.npy", "--properties", "intensity_mean")
    one_line_error(check, "measure intensity of another shape", run, ["glow.npy", "(57, 71)"])
    run = check.run("label", "mask.png", "--backend", "cpu", "--stats", "x.csv", "--intensity", "rgb.png",
                    "--properties", "intensity_mean")
    one_line_error(check, "label intensity of another shape", run, ["rgb.png"])
    check.report("label intensity of another shape writes nothing", not os.path.exists("x.csv"))
    np.save("float_labels.npy", plane.astype(np.float64))
    run = check.run("measure", "float_labels.npy", "--properties", "label,area")
    one_line_error(check, "measure float labels", run, ["float64", "integers"])
    np.save("bool_labels.npy", plane > 0)
    run = check.run("measure", "bool_labels.npy")
    one_line_error(check, "measure bool labels", run, ["bool"])
    run = check.run("measure", "volume.npy", "--properties", "label,perimeter")
    one_line_error(check, "measure 2-D property of a volume", run, ["perimeter"])
    run = check.run("measure", "plane_int64.npy", "--properties", "intensity_mean")
    one_line_error(check, "measure intensity property without an intensity", run, ["intensity_mean"])
    run = check.run("measure", "volume.npy", "--properties", "area", "--spacing", "1,2")
    one_line_error(check, "measure spacing of 2 for a volume", run, ["--spacing"])
    run = check.run("measure", "plane_int64.npy", "--properties", "area", "--spacing", "1,-2")
    one_line_error(check, "measure negative spacing", run, ["--spacing", "-2"])
    # A C-ordered little-endian .npy is mapped, not read whole: measured past
    # any limit; a Fortran-ordered one is read whole, and refused past it.
    run = check.run("measure", "volume.npy", "--memory-limit", "1K", "--properties", "label,area,bbox")
    compare(check, "measure a mapped .npy past --memory-limit", run.stdout,
            reference(volume, properties=["label", "area", "bbox"]))
    run = check.run("measure", "volume_fortran.npy", "--memory-limit", "1K")
    one_line_error(check, "measure past --memory-limit", run, ["--memory-limit", "volume_fortran.npy"])
    # Read whole, a Fortran-ordered .npy is reordered into a copy: the two
    # count, so a limit between one and two of its size refuses it.
    fortran_bytes = np.load("volume_fortran.npy", mmap_mode="r").nbytes
    run = check.run("measure", "volume_fortran.npy", "--memory-limit", str(fortran_bytes * 3 // 2))
    one_line_error(check, "measure a Fortran .npy whose reordered copy passes --memory-limit", run,
                   ["--memory-limit", str(2 * fortran_bytes) + " bytes"])
    run = check.run("measure", "volume_fortran.npy", "--memory-limit", str(2 * fortran_bytes), "--properties",
                    "label,area,bbox")
    compare(check, "measure a Fortran .npy within --memory-limit", run.stdout,
            reference(volume_for_fortran, properties=["label", "area", "bbox"]))
    # A file that is no label image fails (exit 1) in one line too.
    np.save("negative.npy", np.where(plane > 0, plane - 20, 0).astype(np.int32))
    run = check.run("measure", "negative.npy")
    check.report("measure negative labels: exit 1, one line", run.returncode == 1
                 and run.stderr.count("\n") == 1 and "negative" in run.stderr, run.stderr.strip())
    with open("plane_int64.npy", "rb") as f:
        data = f.read()
    with open("truncated.npy", "wb") as f:
        f.write(data[:-8])
    run = check.run("measure", "truncated.npy")
    check.report("measure truncated .npy: exit 1, one line", run.returncode == 1
                 and run.stderr.count("\n") == 1 and "ends before" in run.stderr, run.stderr.strip())
    run = check.run("label", "mask.png", "--stats", "x.csv", "--intensity", "rgb.png")
    one_line_error(check, "label --intensity without --properties", run, ["--properties"])
    run = check.run("label", "mask.png", "--properties", "area")
    one_line_error(check, "label --properties without --stats", run, ["--stats"])

    # Help: its own, and listed by glccl --help.
    run = check.run("measure", "--help")
    check.report("measure --help", run.returncode == 0 and run.stdout.startswith("usage: glccl measure"),
                 run.stdout[:80])
    check.report("glccl --help lists measure", "\n  measure " in check.run("--help").stdout)
    check.finish()


if __name__ == "__main__":
    main()
