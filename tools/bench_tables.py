#!/usr/bin/env python3
"""Markdown tables from the CSVs of glccl bench and tools/device/peers.py.

    python3 tools/bench_tables.py OUT_DIR > tables.md

OUT_DIR is what tools/device/run-bench.sh wrote (bench_*.csv, peers.csv).
Prints: throughput per image and size for every backend and peer; milliseconds
and ratios of the GPU backends against the peers; the per-stage split of every
glccl backend that reported stages (glccl bench --steps), with the stages named
and ordered as the backend reported them;
the raster pipeline against the paper's 91 ms at 2048² and in full-screen-pass
equivalents (the fullscreen_pass rows of glccl bench).
Only the standard library is used.
"""
import csv
import glob
import os
import sys

FAMILIES = ["noise50", "sparse_disks", "dense_disks", "large"]
BACKENDS = ["compute", "raster", "cuda", "cpu", "cupyx", "opencv_sauf", "opencv_default"]
PAPER_2048_MS = 91.0  # O'Connell's 2048x2048 time on a 9800GT (his Table 10-1)
# glccl bench's name for a backend's whole labeling: a sum it computes from
# the stages, never a stage of a backend.
WHOLE = "total"


def load(folder):
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        with open(path, newline="") as f:
            rows.extend(csv.DictReader(f))
    return rows


def lookup(rows, backend, family, size, stage=WHOLE, key="median_ms", connectivity="8"):
    for r in rows:
        if r["backend"] == backend and r["family"] == family and r["width"] == size and \
                (r.get("stage") or WHOLE) == stage and r.get(key) and \
                (r.get("connectivity") or "8") == connectivity:
            return float(r[key])
    return None


def sizes_of(rows):
    return sorted({r["width"] for r in rows if r["family"] in FAMILIES}, key=int)


def fmt(value, pattern):
    return "–" if value is None else pattern.format(value)


def throughput(rows):
    print("| image | size | " + " | ".join(BACKENDS) + " |")
    print("|---|---|" + "---:|" * len(BACKENDS))
    for size in sizes_of(rows):
        for family in FAMILIES:
            cells = [fmt(lookup(rows, b, family, size, key="mpix_per_s"), "{:,.0f}") for b in BACKENDS]
            print(f"| {family} | {size}² | " + " | ".join(cells) + " |")


def ratios(rows):
    print("| image | size | raster ms | cuda ms | cupyx ms | OpenCV default ms | cuda vs cupyx | cuda vs OpenCV | raster vs OpenCV |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for size in sizes_of(rows):
        for family in FAMILIES:
            raster, cuda = lookup(rows, "raster", family, size), lookup(rows, "cuda", family, size)
            cupyx, opencv = lookup(rows, "cupyx", family, size), lookup(rows, "opencv_default", family, size)
            ratio = lambda a, b: "–" if a is None or b is None else f"{b / a:.2f}×"
            print(f"| {family} | {size}² | {fmt(raster, '{:.2f}')} | {fmt(cuda, '{:.3f}')} | {fmt(cupyx, '{:.3f}')} | "
                  f"{fmt(opencv, '{:.2f}')} | {ratio(cuda, cupyx)} | {ratio(cuda, opencv)} | {ratio(raster, opencv)} |")


def passes(rows):
    print("| image | size | connectivity | raster ms | full-screen pass ms | full-screen-pass equivalents | vs the paper's 91 ms |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for size in sizes_of(rows):
        for connectivity in ["8", "4"]:
            one_pass = lookup(rows, "raster", "fullscreen_pass", size, "fullscreen_pass", connectivity=connectivity)
            for family in FAMILIES:
                raster = lookup(rows, "raster", family, size, connectivity=connectivity)
                if raster is None:
                    continue
                equivalents = "–" if one_pass is None else f"{raster / one_pass:.0f}"
                paper = f"{PAPER_2048_MS / raster:.1f}× faster" if size == "2048" else ""
                print(f"| {family} | {size}² | {connectivity} | {raster:.2f} | {fmt(one_pass, '{:.3f}')} | "
                      f"{equivalents} | {paper} |")


def stages_of(rows, backend):
    """The stages a backend reported, in the order it first reported them."""
    stages = []
    for r in rows:
        stage = r.get("stage") or WHOLE
        if r["backend"] == backend and r["family"] in FAMILIES and stage != WHOLE and stage not in stages:
            stages.append(stage)
    return stages


def split(rows, backend, size):
    present = [s for s in stages_of(rows, backend) if any(lookup(rows, backend, f, size, s) is not None for f in FAMILIES)]
    if not present:
        print(f"no stages of {backend} at {size}²")
        return
    print(f"| {backend} {size}² | " + " | ".join(FAMILIES) + " |")
    print("|---|" + "---:|" * len(FAMILIES))
    for stage in present:
        print(f"| `{stage}` | " + " | ".join(fmt(lookup(rows, backend, f, size, stage), "{:.3f}") for f in FAMILIES) + " |")
    print("| **total (device)** | " + " | ".join(fmt(lookup(rows, backend, f, size), "**{:.3f}**") for f in FAMILIES) + " |")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    if not rows:
        sys.exit(f"no CSV files in {sys.argv[1]}")
    print("### Throughput, Mpixel/s\n")
    throughput(rows)
    print("\n### Times and ratios\n")
    ratios(rows)
    print("\n### Raster pipeline in full-screen passes\n")
    passes(rows)
    for size in ["2048", "16384"]:
        print(f"\n### CUDA path per kernel, ms, {size}²\n")
        split(rows, "cuda", size)
    for backend in ["raster", "compute"]:
        for size in ["1024", "2048", "4096", "16384"]:
            print(f"\n### {backend.capitalize()} pipeline per stage, ms, {size}²\n")
            split(rows, backend, size)


if __name__ == "__main__":
    main()
