#!/usr/bin/env python3
"""Checks the CSV of `glccl bench --csv` for the command-line tests.

    bench_csv_check.py OUT.csv [--frames N]

Checks the form, never the timings: the header's columns in their order
(transfer_floor_ms right after wall_median_ms); the bandwidth rows (backend
"transfer", stages h2d_gbps and d2h_gbps) either both present with numbers
> 0, and then every total row's transfer_floor_ms a number >= 0, or both
absent, and then every total row's transfer_floor_ms empty; a total row of
the backends that label in host memory (cpu, reference) a floor of 0 either
way, and a run of those backends alone no bandwidth rows; with --frames N,
right after every total row its frame_wall and frame_wall_table rows, with
reps N, wall times >= 0 and, where the bandwidth is known, floors >= 0. Prints one line,

    bench csv: C cells, floor on every cell, F frame rows
    bench csv: C cells, floor empty on every cell, F frame rows
    bench csv: C cells, floor on K of C cells, F frame rows

and exits 0, or prints what is wrong and exits 1.
"""
import csv
import sys

HEADER = ["backend", "family", "width", "height", "components", "median_ms", "min_ms", "max_ms", "mpix_per_s",
          "wall_median_ms", "transfer_floor_ms", "stage", "connectivity", "reps", "device"]
FRAME_STAGES = ["frame_wall", "frame_wall_table"]
HOST_BACKENDS = ("cpu", "reference")  # they label in host memory: nothing crosses a bus


def number(row, key, least):
    """The field `key` of `row` as a float >= least (or > 0 when least is None)."""
    try:
        value = float(row[key])
    except (KeyError, ValueError):
        raise SystemExit(f"bench_csv_check: {key} is not a number in {row}")
    if (least is None and value <= 0.0) or (least is not None and value < least):
        raise SystemExit(f"bench_csv_check: {key} = {value} is out of range in {row}")
    return value


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--frames"):
        raise SystemExit(__doc__)
    frames = int(argv[3]) if len(argv) == 4 else 0
    with open(argv[1], newline="") as source:
        reader = csv.reader(source)
        header = next(reader)
        if header != HEADER:
            raise SystemExit(f"bench_csv_check: header {header}, expected {HEADER}")
        rows = [dict(zip(HEADER, fields)) for fields in reader]

    bandwidth = {r["stage"]: r for r in rows if r["backend"] == "transfer"}
    if sorted(bandwidth) not in ([], ["d2h_gbps", "h2d_gbps"]):
        raise SystemExit(f"bench_csv_check: bandwidth rows {sorted(bandwidth)}, expected h2d_gbps and d2h_gbps")
    for row in bandwidth.values():
        number(row, "median_ms", None)
    has_floor = bool(bandwidth)
    totals = [r for r in rows if r["stage"] == "total"]
    if has_floor and totals and all(r["backend"] in HOST_BACKENDS for r in totals):
        raise SystemExit("bench_csv_check: bandwidth rows in a run of host-memory backends alone")

    cells = floors = frame_rows = 0
    for index, row in enumerate(rows):
        if row["stage"] != "total":
            continue
        cells += 1
        if row["backend"] in HOST_BACKENDS:
            if number(row, "transfer_floor_ms", 0.0) != 0.0:
                raise SystemExit(f"bench_csv_check: a floor other than 0 for a host-memory backend in {row}")
            floors += 1
        elif has_floor:
            number(row, "transfer_floor_ms", 0.0)
            floors += 1
        elif row["transfer_floor_ms"] != "":
            raise SystemExit(f"bench_csv_check: a floor without bandwidth rows in {row}")
        number(row, "wall_median_ms", 0.0)
        if not frames:
            continue
        following = rows[index + 1:index + 1 + len(FRAME_STAGES)]
        if [r["stage"] for r in following] != FRAME_STAGES:
            raise SystemExit(f"bench_csv_check: no {FRAME_STAGES} rows after {row}")
        for frame in following:
            if (frame["backend"], frame["family"], frame["width"], frame["height"]) != \
                    (row["backend"], row["family"], row["width"], row["height"]):
                raise SystemExit(f"bench_csv_check: {frame} does not belong to {row}")
            if frame["reps"] != str(frames):
                raise SystemExit(f"bench_csv_check: reps {frame['reps']}, expected {frames} in {frame}")
            for key in ("median_ms", "min_ms", "max_ms", "wall_median_ms"):
                number(frame, key, 0.0)
            if has_floor:
                number(frame, "transfer_floor_ms", 0.0)
            frame_rows += 1
    if cells == 0:
        raise SystemExit("bench_csv_check: no total rows")
    where = ("floor on every cell" if floors == cells else "floor empty on every cell" if floors == 0
             else f"floor on {floors} of {cells} cells")
    print(f"bench csv: {cells} cell{'s' if cells != 1 else ''}, {where}, {frame_rows} frame rows")


if __name__ == "__main__":
    main(sys.argv)
