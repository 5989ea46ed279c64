#!/usr/bin/env python3
"""Markdown tables from the CSVs of glccl bench and bench/peers.py.

    python3 bench/bench_tables.py OUT_DIR [--wall] > tables.md

OUT_DIR is what bench/run-bench.sh wrote (bench_*.csv, peers.csv).
Prints: throughput per image and size for every backend and peer; milliseconds
and ratios of the GPU backends against the peers; the per-stage split of every
glccl backend that reported stages (glccl bench --steps), with the stages named
and ordered as the backend reported them; a time that was not measured (an
empty median_ms, or the 0 of an older CSV) is left out, never read as 0 ms;
the raster pipeline against the paper's 91 ms at 2048² and in full-screen-pass
equivalents (the fullscreen_pass rows of glccl bench); and what a user waits
for: per backend, image and size the device time, the wall time, the transfer
floor (column transfer_floor_ms) and wall / (device + floor), then the
per-frame wall times of glccl bench --frames (rows frame_wall and
frame_wall_table) beside the device time of the same run. With --wall only
these last two tables are printed.

cupyx's CSV (peers.py) has no floor column: its floor is computed from the
fastest bandwidths (rows h2d_gbps and d2h_gbps) of the glccl bench runs in
OUT_DIR, for the same bytes (1 byte a pixel up, 4 down). OpenCV runs on the
host and has no floor.
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
# glccl bench --frames: per-frame wall times without and with the table.
FRAME_STAGES = ["frame_wall", "frame_wall_table", "frame_interop_floor"]
# Issue 12's targets, reported beside the times (never asserted).
WALL_TARGET = 1.5          # wall <= 1.5 x (device + floor) ...
WALL_TARGET_SIDES = {"8192", "16384"}  # ... at these sizes
FRAME_TARGET_MS = 0.15     # per frame, label + table: <= device + 0.15 ms
# Backends whose wall time includes host transfers the floor stands for.
WALL_BACKENDS = ["compute", "raster", "cuda", "cpu", "cupyx"]


def load(folder):
    """Every row of every CSV in `folder`, each tagged with its file's name."""
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                row["_file"] = os.path.basename(path)
                rows.append(row)
    return rows


def measured(row):
    """Whether the row's device time was measured: glccl bench leaves
    median_ms empty where the driver did not time the work, and a CSV
    written before it did so holds 0 there (a GPU does nothing in 0 ms)."""
    try:
        return float(row.get("median_ms") or 0) > 0
    except ValueError:
        return False


def lookup(rows, backend, family, size, stage=WHOLE, key="median_ms", connectivity="8"):
    for r in rows:
        if r["backend"] == backend and r["family"] == family and r["width"] == size and r["height"] == size and \
                (r.get("stage") or WHOLE) == stage and r.get(key) and measured(r) and \
                (r.get("connectivity") or "8") == connectivity:
            return float(r[key])
    return None


def sizes_of(rows):
    """The sides of the square images (the tables keyed by one side); other
    shapes, such as the 1920×1080 frames, have tables of their own."""
    return sorted({r["width"] for r in rows if r["family"] in FAMILIES and r["width"] == r["height"]}, key=int)


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
    """The stages a backend reported, in the order it first reported them
    (not the per-frame rows of --frames, which are wall times)."""
    stages = []
    for r in rows:
        stage = r.get("stage") or WHOLE
        if r["backend"] == backend and r["family"] in FAMILIES and stage not in [WHOLE] + FRAME_STAGES and \
                stage not in stages:
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


def number(row, key):
    """The field `key` of `row` as a float, None when empty or absent."""
    text = row.get(key) or ""
    return float(text) if text else None


def bandwidths(rows):
    """The fastest host-to-device and device-to-host GB/s of the runs, or None."""
    best = {}
    for r in rows:
        if r["backend"] == "transfer" and r.get("stage") in ("h2d_gbps", "d2h_gbps") and number(r, "median_ms"):
            best[r["stage"]] = max(best.get(r["stage"], 0.0), number(r, "median_ms"))
    return (best["h2d_gbps"], best["d2h_gbps"]) if len(best) == 2 else None


def size_text(width, height):
    return f"{width}²" if width == height else f"{width}×{height}"


def cells(rows, backend, stage=WHOLE):
    """Rows of `backend` and `stage` on the generated families, the first of
    each (family, size, connectivity), sorted by connectivity (8 first), size
    and family."""
    seen, found = set(), []
    for r in rows:
        if r["backend"] != backend or (r.get("stage") or WHOLE) != stage or r["family"] not in FAMILIES:
            continue
        key = (r["family"], r["width"], r["height"], r.get("connectivity") or "8")
        if key not in seen:
            seen.add(key)
            found.append(r)
    return sorted(found, key=lambda r: (-int(r.get("connectivity") or 8), int(r["width"]) * int(r["height"]),
                                        FAMILIES.index(r["family"])))


def wall_against_floor(rows):
    bandwidth = bandwidths(rows)
    if bandwidth:
        print(f"Page-locked copy bandwidth (fastest of the runs): host to device {bandwidth[0]:.2f} GB/s, "
              f"device to host {bandwidth[1]:.2f} GB/s.\n")
    print("| backend | image | size | conn. | device ms | wall ms | floor ms | wall/(device+floor) | "
          f"≤ {WALL_TARGET}× at 8192², 16384² |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for backend in WALL_BACKENDS:
        for r in cells(rows, backend):
            device = number(r, "median_ms") if measured(r) else None
            wall, floor = number(r, "wall_median_ms"), number(r, "transfer_floor_ms")
            if floor is None and backend == "cupyx" and bandwidth:
                pixels = int(r["width"]) * int(r["height"])
                floor = (pixels / bandwidth[0] + 4 * pixels / bandwidth[1]) * 1e-6
            if device is None or wall is None:
                continue
            ratio = None if floor is None or device + floor <= 0 else wall / (device + floor)
            target = ""
            if ratio is not None and r["width"] == r["height"] and r["width"] in WALL_TARGET_SIDES:
                target = "yes" if ratio <= WALL_TARGET else "no"
            print(f"| {backend} | {r['family']} | {size_text(r['width'], r['height'])} | "
                  f"{r.get('connectivity') or '8'} | {device:.3f} | {wall:.3f} | {fmt(floor, '{:.3f}')} | "
                  f"{fmt(ratio, '{:.2f}')} | {target} |")


def frames(rows):
    print("| backend | image | size | conn. | frames | device ms | label + glFinish ms | label + table ms | "
          f"table floor ms | label + table − device ms | ≤ device + {FRAME_TARGET_MS} ms |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    printed = False
    for backend in WALL_BACKENDS:
        for plain in cells(rows, backend, FRAME_STAGES[0]):
            # The device time and the table row of the same run (file).
            same = [r for r in rows if r["_file"] == plain["_file"] and r["backend"] == backend and
                    r["family"] == plain["family"] and r["width"] == plain["width"] and
                    r["height"] == plain["height"] and r.get("connectivity") == plain.get("connectivity")]
            total = next((r for r in same if (r.get("stage") or WHOLE) == WHOLE), None)
            table = next((r for r in same if r.get("stage") == FRAME_STAGES[1]), None)
            if total is None or table is None or not measured(total):
                continue
            device, with_table = number(total, "median_ms"), number(table, "wall_median_ms")
            over = with_table - device
            print(f"| {backend} | {plain['family']} | {size_text(plain['width'], plain['height'])} | "
                  f"{plain.get('connectivity') or '8'} | {plain['reps']} | {device:.3f} | "
                  f"{number(plain, 'wall_median_ms'):.3f} | {with_table:.3f} | "
                  f"{fmt(number(table, 'transfer_floor_ms'), '{:.3f}')} | {over:+.3f} | "
                  f"{'yes' if over <= FRAME_TARGET_MS else 'no'} |")
            printed = True
    if not printed:
        print("\nno frame_wall rows (glccl bench --frames)")


def main():
    args = [a for a in sys.argv[1:] if a != "--wall"]
    if len(args) != 1:
        sys.exit(__doc__)
    rows = load(args[0])
    if not rows:
        sys.exit(f"no CSV files in {args[0]}")
    if "--wall" in sys.argv[1:]:
        print("### Wall time against device time and transfer floor\n")
        wall_against_floor(rows)
        print("\n### Per frame through Labeler, ms\n")
        frames(rows)
        return
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
    print("\n### Wall time against device time and transfer floor\n")
    wall_against_floor(rows)
    print("\n### Per frame through Labeler, ms\n")
    frames(rows)


if __name__ == "__main__":
    main()
