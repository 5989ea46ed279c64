#!/usr/bin/env python3
"""Per-stage device times of two builds side by side, from `glccl bench
--steps --csv` files of each (several runs of each build, alternated, so that
the machine's drift is shared): the median over the runs of each stage's
median, after / before, and whether any stage got slower past the spread of
the runs.

    python3 bench/stage_diff.py --before b1.csv b2.csv --after a1.csv a2.csv [--tolerance 0.03]

Prints a Markdown table, one row per backend, image, connectivity and stage,
and a last line naming the stages slower than before by more than the
tolerance (a fraction) and more than the runs' own spread.
"""
import argparse
import csv
import statistics
from collections import defaultdict


def read_runs(paths):
    """{(backend, family, size, connectivity, stage): [median_ms per run]}"""
    runs = defaultdict(list)
    for path in paths:
        with open(path, newline="") as handle:
            for row in csv.DictReader(handle):
                if row.get("backend") == "transfer" or not row.get("median_ms"):
                    continue
                if row.get("family") == "fullscreen_pass":
                    continue
                size = row["width"] + "x" + row["height"]
                key = (row["backend"], row["family"], size, row.get("connectivity", ""), row.get("stage", ""))
                runs[key].append(float(row["median_ms"]))
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", nargs="+", required=True)
    parser.add_argument("--after", nargs="+", required=True)
    parser.add_argument("--tolerance", type=float, default=0.03)
    args = parser.parse_args()
    before, after = read_runs(args.before), read_runs(args.after)
    print("| backend | image | size | conn | stage | before ms | after ms | after / before |")
    print("|---|---|---|---|---|---:|---:|---:|")
    slower = []
    for key in sorted(set(before) & set(after)):
        b, a = statistics.median(before[key]), statistics.median(after[key])
        ratio = a / b if b > 0 else float("nan")
        print("| %s | %s | %s | %s | %s | %.4f | %.4f | %.3f |" % (key + (b, a, ratio)))
        spread = max(max(before[key]) - min(before[key]), max(after[key]) - min(after[key]))
        if b > 0 and a > b * (1 + args.tolerance) and a - b > spread:
            slower.append("%s %s %s c%s %s (%.3f)" % (key + (ratio,)))
    print()
    print("slower than before: " + ("; ".join(slower) if slower else "none"))


if __name__ == "__main__":
    main()
