#!/usr/bin/python3
"""glccl's region properties beside scikit-image's and scipy.ndimage's, on the
same label and intensity images.

    /usr/bin/python3 bench/measure_peers.py [--glccl build/tools/glccl] [options]

For every 2-D family and size, in --dir:

  1. the image is written by `glccl generate FAMILY NxN` (seed 1, the images
     glccl bench labels), labeled once by `glccl label --backend cpu
     --labels`; the intensity image of the size is uint16 from
     numpy.random.default_rng(1).integers(0, 65536);
  2. glccl t=N   `glccl measure LABELS --intensity I --properties P
     --threads N`, N in --threads ("1,all" by default; all = the cores this
     process may run on): the median of --reps runs of the "ms measuring"
     it prints (reading the files and writing the CSV left out), and beside
     it, in brackets, the median wall time of the process; one untimed run
     first writes the table the checks read;
  3. skimage     skimage.measure.regionprops_table(labels, intensity,
     properties=P), one run, on the arrays loaded with numpy; left out above
     --skimage-max-pixels, and said so;
     scipy       scipy.ndimage's mean + maximum + center_of_mass with index =
     every label, one run (center_of_mass weighted by the label image
     itself, constant in a region: the centroid);
  4. label B, label+props B   `glccl label IMAGE --backend B --stats t.csv
     --json` against the same with `--properties P --intensity I`, B in
     --backends: the median of --reps of the labeling phase it reports
     (seconds.labeling of its JSON: the labeling call, and with --properties
     the measuring that follows it; reading and writing left out; each
     run a process of its own, so a GPU backend's includes making its
     context);
  5. the checks: glccl's table against scikit-image's where it ran (integer
     properties equal; floats within 1e-9 of the largest magnitude among the
     property's columns in that row, lengths and eccentricity compared
     squared; orientation where the inertia tensor's diagonal is equal has
     the opposite sign in scikit-image 0.19 and is taken either way there,
     and +-pi/2, the one axis, either way where the raw moments give mu11 =
     0 exactly, whose sign is rounding noise in scikit-image),
     scipy's means, maxima and centroids against glccl's within 1e-9
     relative, and the table of every `glccl label --properties` run equal
     to glccl measure's byte for byte. A disagreement is printed as FAIL and
     makes the exit status 1.

P is label, area, bbox, centroid, moments, orientation, axis_major_length,
axis_minor_length, eccentricity, perimeter, euler_number, intensity_mean,
intensity_min, intensity_max (--properties to change it).

A Markdown table of milliseconds goes to stdout, a row per family and size,
with the ratios peer / glccl (above 1: glccl faster) at each thread count and
label+props / label per backend; --csv writes the same rows; the steps go to
stderr. Nothing is written outside --dir (a temporary folder, removed after,
when not given) but the --csv file.
"""

import argparse
import csv
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROPERTIES = ("label,area,bbox,centroid,moments,orientation,axis_major_length,axis_minor_length,eccentricity,"
              "perimeter,euler_number,intensity_mean,intensity_min,intensity_max")
INTEGER_PROPERTIES = {"label", "area", "bbox", "euler_number", "intensity_min", "intensity_max", "num_pixels"}
RTOL = 1e-9


def log(message):
    print(message, file=sys.stderr, flush=True)


def all_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def parse_list(text, kind=str):
    return [kind(item) for item in text.split(",") if item]


def find_glccl(given):
    if given:
        return given
    for folder in ("build", "build-cpu", "build-release"):
        path = os.path.join(REPO, folder, "tools", "glccl")
        if os.access(path, os.X_OK):
            return path
    sys.exit("measure_peers.py: no glccl under build/tools or build-cpu/tools; give --glccl PATH")


class GlcclFailed(Exception):
    pass


def run_glccl(glccl, args):
    """stdout of `glccl ARGS` and the wall time of the process in ms."""
    start = time.perf_counter()
    result = subprocess.run([glccl] + args, capture_output=True, text=True)
    wall = (time.perf_counter() - start) * 1e3
    if result.returncode != 0:
        raise GlcclFailed(f"glccl {' '.join(args)} failed (exit {result.returncode}):\n{result.stderr.strip()}")
    return result.stdout, wall


def measure_time(glccl, labels, intensity, properties, threads, out):
    """The "ms measuring" glccl measure prints, and its process's wall ms."""
    stdout, wall = run_glccl(glccl, ["measure", labels, "--intensity", intensity, "--properties", properties,
                                     "--threads", str(threads), "--stats", out, "--force", "--quiet"])
    found = re.search(r"([0-9.]+) ms measuring, ([0-9.]+) ms in all", stdout)
    if not found:
        raise GlcclFailed(f"glccl measure printed no 'ms measuring' line:\n{stdout}")
    return float(found.group(1)), wall


def label_time(glccl, image, backend, out, extra):
    """The labeling phase of `glccl label --json` in ms (with --properties:
    labeling and measuring), and the components it labeled."""
    stdout, _ = run_glccl(glccl, ["label", image, "--backend", backend, "--stats", out, "--force", "--quiet",
                                  "--json"] + extra)
    summary = json.loads(stdout)[0]
    return summary["seconds"]["labeling"] * 1e3, summary["components"]


def timed_once(call):
    start = time.perf_counter()
    out = call()
    return (time.perf_counter() - start) * 1e3, out


def read_table(path):
    """glccl's CSV as {column: numpy array}, integer properties as int64."""
    with open(path, newline="") as source:
        rows = list(csv.reader(source))
    header, body = rows[0], rows[1:]
    table = {}
    for i, column in enumerate(header):
        if column.split("-")[0] in INTEGER_PROPERTIES:
            table[column] = np.array([int(row[i]) for row in body], dtype=np.int64)
        else:
            table[column] = np.array([float(row[i]) for row in body], dtype=np.float64)
    return table


def property_scale(table, prop):
    """Per row, the largest magnitude among the columns of prop."""
    columns = [np.abs(np.asarray(v, dtype=float)) for k, v in table.items() if k.split("-")[0] == prop]
    return np.nanmax(np.stack(columns), axis=0)


def far(got, want, scale):
    """Rows where got and want differ by more than RTOL * max(|want|, scale)."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    nan = np.isnan(got) | np.isnan(want)
    off = np.abs(got - want) > RTOL * np.maximum(np.abs(want), scale)
    return (np.isnan(got) != np.isnan(want)) | (~nan & off)


def skimage_before_0_20(skimage_version):
    parts = [int(p) for p in re.findall(r"\d+", skimage_version)[:2]]
    return parts < [0, 20]


def zero_mu11(table, row):
    """Whether the central moment mu11 of the row is 0, from its raw moments
    in integers (False where the table has no moments)."""
    try:
        m00, m01, m10, m11 = (int(table[f"moments-{i}-{j}"][row]) for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
    except KeyError:
        return False
    return m00 * m11 - m10 * m01 == 0


def compare_skimage(got, want, old_orientation):
    """Disagreements of glccl's table `got` with scikit-image's `want`."""
    problems = []
    if list(got) != list(want):
        return [f"columns differ: glccl {list(got)} against scikit-image {list(want)}"]
    for column, values in want.items():
        prop = column.split("-")[0]
        values = np.asarray(values)
        mine = got[column]
        if len(mine) != len(values):
            problems.append(f"{column}: {len(mine)} rows against {len(values)}")
            continue
        if prop in INTEGER_PROPERTIES:
            bad = np.asarray(mine, dtype=float) != np.asarray(values, dtype=float)
        elif prop in ("axis_major_length", "axis_minor_length"):
            # Square roots: compared squared, against the major axis (a minor
            # axis of 0 is the root of rounding noise in scikit-image).
            major = np.asarray(want["axis_major_length"], dtype=float) if "axis_major_length" in want \
                else property_scale(want, prop)
            bad = far(mine ** 2, values.astype(float) ** 2, major ** 2)
        elif prop == "eccentricity":
            bad = far(mine ** 2, values.astype(float) ** 2, 1.0)
        elif prop == "orientation":
            bad = far(mine, values, math.pi)
            swapped = ~far(mine, -values, math.pi)
            if old_orientation:
                # Equal diagonal: the limit +-pi/4, signs swapped in 0.19.
                bad &= ~(swapped & ~far(np.abs(mine), math.pi / 4, 1.0))
            # +-pi/2, one axis: the sign is that of a zero mu11, rounding
            # noise in scikit-image; taken where mu11 is 0 exactly.
            for row in np.flatnonzero(bad & swapped & ~far(np.abs(mine), math.pi / 2, 1.0)):
                bad[row] = not zero_mu11(got, row)
        else:
            bad = far(mine, values, property_scale(want, prop))
        if bad.any():
            rows = np.flatnonzero(bad)
            problems.append(f"{column}: {len(rows)} rows differ, e.g. label {got['label'][rows[0]]}: "
                            f"glccl {mine[rows[0]]!r} against scikit-image {values[rows[0]]!r}")
    return problems


def compare_scipy(got, mean, maximum, centroids):
    """Disagreements of glccl's table with scipy.ndimage's figures."""
    problems = []
    centroids = np.asarray(centroids, dtype=float).reshape(-1, 2)
    pairs = [("intensity_mean", mean), ("intensity_max", maximum),
             ("centroid-0", centroids[:, 0]), ("centroid-1", centroids[:, 1])]
    for column, values in pairs:
        if column not in got:
            continue
        values = np.asarray(values, dtype=float)
        if len(values) != len(got[column]):
            problems.append(f"{column}: {len(got[column])} rows against scipy's {len(values)}")
            continue
        bad = far(got[column], values, 0.0)
        if bad.any():
            row = np.flatnonzero(bad)[0]
            problems.append(f"{column}: {np.count_nonzero(bad)} rows differ from scipy, e.g. label "
                            f"{got['label'][row]}: glccl {got[column][row]!r} against {values[row]!r}")
    return problems


def same_file(a, b):
    with open(a, "rb") as first, open(b, "rb") as second:
        return first.read() == second.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--glccl", help="the glccl program (default: build/tools/glccl or build-cpu/tools/glccl)")
    parser.add_argument("--dir", help="where the inputs and tables go (default: a temporary folder, removed after)")
    parser.add_argument("--families", default="noise50,sparse_disks,dense_disks,large", help="2-D families")
    parser.add_argument("--sizes", default="2048,8192", help="sides (square images)")
    parser.add_argument("--threads", default="1,all", help="thread counts of glccl measure ('all': every core)")
    parser.add_argument("--backends", default="cpu", help="backends of glccl label, e.g. cpu,compute,cuda")
    parser.add_argument("--reps", type=int, default=3, help="timed runs of each glccl command (median)")
    parser.add_argument("--properties", default=PROPERTIES, help="the properties measured (regionprops names)")
    parser.add_argument("--skimage-max-pixels", type=int, default=2048 * 2048,
                        help="leave scikit-image out of larger images (default 2048*2048)")
    parser.add_argument("--csv", help="also write the rows to this CSV file")
    args = parser.parse_args()
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    try:
        threads = list(dict.fromkeys(all_cores() if t == "all" else int(t) for t in parse_list(args.threads)))
        sides = parse_list(args.sizes, int)
    except ValueError as error:
        parser.error(f"--threads and --sizes take numbers ('all' for threads): {error}")
    if not threads or min(threads) < 1 or not sides or min(sides) < 1:
        parser.error("--threads and --sizes need at least one positive number each")

    import scipy.ndimage as ndi
    import skimage
    import skimage.measure as skm
    old_orientation = skimage_before_0_20(skimage.__version__)

    glccl = find_glccl(args.glccl)
    backends = parse_list(args.backends)
    properties = args.properties
    folder = args.dir or tempfile.mkdtemp(prefix="glccl-measure-peers-")
    os.makedirs(folder, exist_ok=True)
    log(f"measure_peers.py: {glccl}, scikit-image {skimage.__version__}, in {folder}")

    rows, failures = [], 0

    def fail(message):
        nonlocal failures
        failures += 1
        print(f"FAIL {message}", flush=True)

    for side in sides:
        size = f"{side}x{side}"
        intensity_path = os.path.join(folder, f"intensity_{size}.npy")
        if not os.path.exists(intensity_path):
            rng = np.random.default_rng(1)
            np.save(intensity_path, rng.integers(0, 65536, size=(side, side), dtype=np.uint16))
        for family in parse_list(args.families):
            stem = os.path.join(folder, f"{family}_{size}")
            row = {"family": family, "size": size}
            rows.append(row)
            try:
                measure_one(glccl, args, family, size, stem, intensity_path, threads, backends, properties,
                            row, fail, ndi, skm, old_orientation)
            except GlcclFailed as error:
                fail(f"{family} {size}: {error}")

    print_table(rows, threads, backends)
    if args.csv:
        columns = list(dict.fromkeys(["family", "size", "components"] + [key for row in rows for key in row]))
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=columns)
            writer.writeheader()
            for row in rows:
                writer.writerow({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})
    if not args.dir:
        shutil.rmtree(folder)
    if failures:
        log(f"measure_peers.py: {failures} FAIL")
    return 1 if failures else 0


def measure_one(glccl, args, family, size, stem, intensity_path, threads, backends, properties, row, fail,
                ndi, skm, old_orientation):
    image_path, labels_path, table_path = stem + ".npy", stem + "_labels.npy", stem + "_measure.csv"
    if not os.path.exists(image_path):
        run_glccl(glccl, ["generate", family, size, image_path])
    log(f"{family} {size}: labeling")
    run_glccl(glccl, ["label", image_path, "--backend", "cpu", "--labels", labels_path, "--force", "--quiet"])

    # glccl measure: one untimed run writes the table the checks read.
    log(f"{family} {size}: glccl measure")
    measure_time(glccl, labels_path, intensity_path, properties, threads[-1], table_path)
    scratch = stem + "_timed.csv"
    for t in threads:
        times = [measure_time(glccl, labels_path, intensity_path, properties, t, scratch) for _ in range(args.reps)]
        row[f"glccl t={t} ms"] = statistics.median(ms for ms, _ in times)
        row[f"glccl t={t} wall ms"] = statistics.median(wall for _, wall in times)
    table = read_table(table_path)
    row["components"] = len(table["label"]) if "label" in table else len(next(iter(table.values())))

    labels = np.load(labels_path)
    intensity = np.load(intensity_path)
    if labels.size <= args.skimage_max_pixels:
        log(f"{family} {size}: scikit-image")
        ms, want = timed_once(lambda: skm.regionprops_table(labels, intensity, properties=properties.split(",")))
        row["skimage ms"] = ms
        for problem in compare_skimage(table, want, old_orientation):
            fail(f"{family} {size} scikit-image: {problem}")
    else:
        log(f"{family} {size}: scikit-image left out ({labels.size} pixels > --skimage-max-pixels "
            f"{args.skimage_max_pixels})")

    log(f"{family} {size}: scipy.ndimage")
    index = np.arange(1, int(labels.max(initial=0)) + 1)

    def scipy_peer():
        return (ndi.mean(intensity, labels, index), ndi.maximum(intensity, labels, index),
                ndi.center_of_mass(labels, labels, index))

    row["scipy ms"], (mean, maximum, centroids) = timed_once(scipy_peer)
    for problem in compare_scipy(table, mean, maximum, centroids):
        fail(f"{family} {size} scipy: {problem}")

    for backend in backends:
        log(f"{family} {size}: glccl label --backend {backend}")
        plain, props = stem + f"_{backend}_table.csv", stem + f"_{backend}_props.csv"
        try:
            alone = [label_time(glccl, image_path, backend, plain, []) for _ in range(args.reps)]
            measured = [label_time(glccl, image_path, backend, props,
                                   ["--properties", properties, "--intensity", intensity_path])
                        for _ in range(args.reps)]
        except GlcclFailed as error:
            fail(f"{family} {size} {backend}: {error}")
            continue
        row[f"label {backend} ms"] = statistics.median(ms for ms, _ in alone)
        row[f"label+props {backend} ms"] = statistics.median(ms for ms, _ in measured)
        # Warm: one process labels copies of the image one after another,
        # measuring each (the GL engines' measuring programs built by the
        # first); the last one's labeling call and its measuring, as
        # `glccl label --json` reports them (milliseconds, measure_milliseconds).
        # Without the intensity properties: --intensity is one input's.
        spatial = ",".join(p for p in properties.split(",") if not p.startswith("intensity"))
        try:
            copies = []
            for k in range(3):
                copy = os.path.join(os.path.dirname(image_path), f"warm{k}_{os.path.basename(image_path)}")
                if not os.path.exists(copy):
                    os.symlink(os.path.abspath(image_path), copy)
                copies.append(copy)
            outdir = os.path.join(os.path.dirname(image_path), f"warm_{backend}")
            os.makedirs(outdir, exist_ok=True)
            stdout, _ = run_glccl(glccl, ["label"] + copies + ["--backend", backend, "--out-dir", outdir, "--stats",
                                                               "--properties", spatial, "--json", "--force",
                                                               "--quiet"])
            last = json.loads(stdout)[-1]
            row[f"warm label {backend} ms"] = last["milliseconds"]
            row[f"warm measure {backend} ms"] = last["measure_milliseconds"]
        except GlcclFailed as error:
            fail(f"{family} {size} {backend} (warm): {error}")
        if not same_file(props, table_path):
            fail(f"{family} {size} {backend}: glccl label --properties wrote another table than glccl measure")


def cell(value):
    if value is None:
        return "-"
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "-"


def print_table(rows, threads, backends):
    header = ["family", "size", "components"]
    header += [f"glccl t={t} ms (wall)" for t in threads]
    header += ["skimage ms", "scipy ms"]
    header += [f"skimage / t={t}" for t in threads] + [f"scipy / t={t}" for t in threads]
    for b in backends:
        header += [f"label {b} ms", f"label+props {b} ms", f"ratio {b}", f"warm label {b} ms",
                   f"warm measure {b} ms (no intensity)"]
    print()
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * (len(header) - 2)) + "|")
    for row in rows:
        g = {t: row.get(f"glccl t={t} ms") for t in threads}
        cells = [row["family"], row["size"], str(row.get("components", "-"))]
        cells += [f"{cell(g[t])} ({cell(row.get(f'glccl t={t} wall ms'))})" for t in threads]
        cells += [cell(row.get("skimage ms")), cell(row.get("scipy ms"))]
        cells += [ratio(row.get("skimage ms"), g[t]) for t in threads]
        cells += [ratio(row.get("scipy ms"), g[t]) for t in threads]
        for b in backends:
            alone, measured = row.get(f"label {b} ms"), row.get(f"label+props {b} ms")
            cells += [cell(alone), cell(measured), ratio(measured, alone),
                      cell(row.get(f"warm label {b} ms")), cell(row.get(f"warm measure {b} ms"))]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
