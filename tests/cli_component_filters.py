"""`glccl label --min-size N` and `--keep-largest K` end to end: the .npy
labels, the CSV table, the summary and --json of the command, against
oracles computed here without glccl: scipy.ndimage.label of the mask, each
component's count by np.bincount, the components kept (at least N elements;
the K largest, equal counts by the lower label), and scipy.ndimage.label of
the mask of those kept (which numbers them 1..m in raster order); the
labels also against scikit-image's remove_small_objects then label. On 2-D
images (8- and 4-connected) and volumes (26- and 6-connected), one input
and a batch in --out-dir.

    cli_component_filters.py GLCCL SCRATCH

Reports through cli_check.py."""

import csv
import json
import os
import re
import warnings

import numpy as np
from scipy import ndimage
from skimage import measure, morphology

from cli_check import RANKS, CliCheck

check = CliCheck()
run, report = check.run, check.report


def labeled(mask, connectivity):
    structure = ndimage.generate_binary_structure(mask.ndim, RANKS[connectivity])
    return ndimage.label(mask, structure)


def kept_labels(mask, connectivity, min_size=None, keep_largest=None):
    """(labels, m, n): the components kept, numbered 1..m in raster order,
    and n, the components of the mask."""
    labels, n = labeled(mask, connectivity)
    counts = np.bincount(labels.ravel(), minlength=n + 1)
    keep = np.zeros(n + 1, bool)
    keep[1:] = counts[1:] >= (min_size or 0)
    if keep_largest is not None:
        candidates = np.flatnonzero(keep)
        ranked = candidates[np.lexsort((candidates, -counts[candidates]))]  # more elements, then the lower label
        keep[:] = False
        keep[ranked[:keep_largest]] = True
    kept, m = labeled(keep[labels], connectivity)
    return kept, m, n


def skimage_kept(mask, connectivity, min_size):
    """remove_small_objects then label, by scikit-image: the components of
    min_size elements or more, numbered in raster order. (Its rule changed
    across versions: "fewer than" or "at most" min_size are removed.)"""
    labels = measure.label(mask, connectivity=RANKS[connectivity])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "only one label", deprecations
        probe = morphology.remove_small_objects(np.array([1, 1, 0, 2, 3, 3, 3]), 2)
        fewer_than = probe.tolist() == [1, 1, 0, 0, 3, 3, 3]
        size = max(min_size if fewer_than else min_size - 1, 0)
        removed = morphology.remove_small_objects(labels, size) if size > 0 else labels
    return measure.label(removed > 0, connectivity=RANKS[connectivity])


def table_of(labels):
    """The CSV rows glccl writes for `labels` (x the last axis), from
    np.nonzero of each label."""
    rows = []
    for label in range(1, int(labels.max(initial=0)) + 1):
        where = np.nonzero(labels == label)
        x, y = where[-1], where[-2]
        row = {"label": label, "left": x.min(), "top": y.min(), "width": x.max() - x.min() + 1,
               "height": y.max() - y.min() + 1, "area": x.size, "centroid_x": x.mean(), "centroid_y": y.mean()}
        if labels.ndim == 3:
            z = where[0]
            row.update(front=z.min(), depth=z.max() - z.min() + 1, centroid_z=z.mean())
        rows.append(row)
    return rows


def same_table(path, labels):
    with open(path, newline="") as file:
        written = list(csv.DictReader(file))
    want = table_of(labels)
    if len(written) != len(want):
        return False, f"{len(written)} rows, expected {len(want)}"
    for got, row in zip(written, want):
        for key, value in row.items():
            if key.startswith("centroid"):
                ok = abs(float(got[key]) - value) <= 1e-9 * max(1.0, abs(value))
            else:
                ok = int(got[key]) == int(value)
            if not ok:
                return False, f"label {row['label']} {key}: {got[key]}, expected {value}"
    return True, ""


def masks():
    """(name, mask, connectivities): blobs of every size in 2-D and 3-D."""
    rng = np.random.default_rng(21)
    yield "image", ndimage.uniform_filter(rng.random((90, 130)), 3) > 0.55, (8, 4)
    yield "strip", rng.random((1, 300)) < 0.6, (8,)
    yield "volume", ndimage.uniform_filter(rng.random((14, 20, 24)), 3) > 0.55, (26, 6)


FILTERS = [("--min-size", "1"), ("--min-size", "4"), ("--min-size", "30"), ("--keep-largest", "0"),
           ("--keep-largest", "1"), ("--keep-largest", "5"), ("--keep-largest", "100000"),
           ("--min-size", "4", "--keep-largest", "3"), ("--keep-largest=2", "--min-size=1000000")]


def rule_of(options):
    """The min_size and keep_largest of options as given."""
    pairs, i = {}, 0
    while i < len(options):
        if "=" in options[i]:
            name, value = options[i].split("=")
            i += 1
        else:
            name, value = options[i], options[i + 1]
            i += 2
        pairs[name] = int(value)
    return pairs.get("--min-size"), pairs.get("--keep-largest")


for name, mask, connectivities in masks():
    np.save(f"{name}.npy", mask.astype(np.uint8))
    for connectivity in connectivities:
        for options in FILTERS:
            min_size, keep_largest = rule_of(options)
            case = f"{name} at {connectivity}, {' '.join(options)}"
            want, m, n = kept_labels(mask, connectivity, min_size, keep_largest)
            result = run("label", f"{name}.npy", "--backend", "cpu", "--connectivity", str(connectivity), *options,
                         "--labels", "labels.npy", "--stats", "stats.csv", "--force")
            if result.returncode != 0:
                report(case, False, result.stderr)
                continue
            labels = np.load("labels.npy")
            report(f"{case}: labels", labels.dtype == np.uint32 and np.array_equal(labels, want),
                   f"{m} components expected, {int(labels.max(initial=0))} written")
            report(f"{case}: table", *same_table("stats.csv", want))
            given = " ".join(f"{option} {value}" for option, value in
                             (("--min-size", min_size), ("--keep-largest", keep_largest)) if value is not None)
            summary = re.search(rf": [0-9x]+, {m} components? \(of {n}; {given}\), ", result.stdout)
            report(f"{case}: summary", summary is not None, result.stdout.splitlines()[0])
            if min_size is not None and keep_largest is None:
                report(f"{case}: scikit-image", np.array_equal(labels, skimage_kept(mask, connectivity, min_size)))

# --json says how many were labeled and how many kept; the default backend
# (auto) keeps the same.
mask = np.load("image.npy") != 0
want, m, n = kept_labels(mask, 8, 10, None)
result = run("label", "image.npy", "--min-size", "10", "--json", "--labels", "auto.npy")
document = json.loads(result.stdout) if result.returncode == 0 else [{}]
report("--json", document[0].get("components") == m and document[0].get("labeled_components") == n,
       result.stdout + result.stderr)
report("auto backend", result.returncode == 0 and np.array_equal(np.load("auto.npy"), want))

# A batch: each input filtered on its own.
os.makedirs("out", exist_ok=True)
result = run("label", "image.npy", "volume.npy", "--backend", "cpu", "--keep-largest", "3", "--out-dir", "out",
             "--labels", "--stats")
report("batch", result.returncode == 0, result.stderr)
for name, connectivity in (("image", 8), ("volume", 26)):
    want, _, _ = kept_labels(np.load(f"{name}.npy") != 0, connectivity, None, 3)
    path = f"out/{name}_labels.npy"
    report(f"batch: {name} labels", os.path.exists(path) and np.array_equal(np.load(path), want))
    if os.path.exists(f"out/{name}_stats.csv"):
        report(f"batch: {name} table", *same_table(f"out/{name}_stats.csv", want))
    else:
        report(f"batch: {name} table", False, "not written")

check.finish()
