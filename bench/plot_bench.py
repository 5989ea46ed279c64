#!/usr/bin/env python3
"""Plots the throughput of CCL backends against image size.

    plot_bench.py CSV [CSV...] OUT.png

Reads the CSVs of `glccl bench --csv` and of `bench/peers.py run`
(the same columns, but for glccl bench's transfer_floor_ms) and draws one
panel per image family: throughput in Mpixel/s (from the median time; log
scale) against the image's pixel count, one line per backend. Only the rows
with stage "total" (glccl bench's name for a backend's whole labeling,
computed from its stages) are used: not the bandwidth rows (stages h2d_gbps,
d2h_gbps), the per-frame rows (frame_wall, frame_wall_table) or the stages.
Rows of the backend `memory_floor` (family "*") are drawn in every panel as a
dashed line: the throughput at which reading the input and writing the labels
alone would take all the time. glccl bench's transfer_floor_ms, where given,
is drawn as a dotted line: the throughput at which moving the image to the
GPU and the labels back at the page-locked bandwidth would take all the time,
the bound of a call that starts and ends in host memory (its wall time, not
the device time plotted).

Needs matplotlib (Debian: python3-matplotlib); without it the script says
so and exits with status 1.
"""

import csv
import math
import sys


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as source:
            for row in csv.DictReader(source):
                # Rows without a measured device time (an empty median_ms,
                # or the 0 of an older CSV) have no throughput to plot.
                if row.get("stage", "total") != "total" or not row.get("mpix_per_s") or \
                        float(row.get("median_ms") or 0) <= 0 or float(row["mpix_per_s"]) <= 0:
                    continue
                rows.append(row)
    return rows


def main(argv):
    if len(argv) < 3 or any(a in ("-h", "--help") for a in argv[1:]):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 and argv[1] in ("-h", "--help") else 2
    *inputs, output = argv[1:]
    if not output.endswith(".png"):
        print("plot_bench.py: the last argument is the output picture and must end in .png", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_bench.py: matplotlib is not installed (Debian: apt-get install python3-matplotlib; "
              "elsewhere: pip install matplotlib); no plot written", file=sys.stderr)
        return 1

    rows = read_rows(inputs)
    if not rows:
        print("plot_bench.py: no rows with a throughput in %s" % ", ".join(inputs), file=sys.stderr)
        return 1
    families = sorted({r["family"] for r in rows if r["backend"] != "memory_floor"})
    backends = []
    for r in rows:
        if r["backend"] != "memory_floor" and r["backend"] not in backends:
            backends.append(r["backend"])
    floor = sorted((int(r["width"]) * int(r["height"]), float(r["mpix_per_s"]))
                   for r in rows if r["backend"] == "memory_floor")
    # The fastest floor of each size (the runs measured the bus one by one).
    transfer = {}
    for r in rows:
        if r.get("transfer_floor_ms") and float(r["transfer_floor_ms"]) > 0:
            pixels = int(r["width"]) * int(r["height"])
            transfer[pixels] = max(transfer.get(pixels, 0.0), pixels / (float(r["transfer_floor_ms"]) * 1e3))
    transfer = sorted(transfer.items())

    columns = min(len(families), 2)
    lines = math.ceil(len(families) / columns)
    figure, axes = plt.subplots(lines, columns, figsize=(6.5 * columns, 4.5 * lines), squeeze=False)
    colors = {backend: "C%d" % (i % 10) for i, backend in enumerate(backends)}
    for index, family in enumerate(families):
        ax = axes[index // columns][index % columns]
        for backend in backends:
            points = sorted((int(r["width"]) * int(r["height"]), float(r["mpix_per_s"]))
                            for r in rows if r["backend"] == backend and r["family"] == family)
            if points:
                ax.plot([p for p, _ in points], [t for _, t in points], marker="o", label=backend,
                        color=colors[backend])
        if floor:
            ax.plot([p for p, _ in floor], [t for _, t in floor], linestyle="--", color="black",
                    label="memory floor (1 B read + 4 B written per pixel)")
        if transfer:
            ax.plot([p for p, _ in transfer], [t for _, t in transfer], linestyle=":", color="gray",
                    label="transfer floor (1 B up, 4 B down per pixel, page-locked)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        sides = sorted({(int(r["width"]), int(r["height"])) for r in rows if r["family"] in (family, "*")},
                       key=lambda s: s[0] * s[1])
        ax.set_xticks([w * h for w, h in sides])
        ax.set_xticklabels(["%d²" % w if w == h else "%dx%d" % (w, h) for w, h in sides], rotation=30)
        ax.minorticks_off()
        ax.set_title(family)
        ax.set_xlabel("image size (pixels)")
        ax.set_ylabel("throughput (Mpixel/s, median)")
        ax.grid(True, which="major", alpha=0.3)
    for index in range(len(families), lines * columns):
        axes[index // columns][index % columns].set_visible(False)
    connectivities = sorted({r.get("connectivity", "") for r in rows if r.get("connectivity")})
    figure.suptitle("Connected-component labeling throughput" +
                    (" (connectivity %s)" % ", ".join(connectivities) if connectivities else ""))
    # One legend for every panel, below them, so that no line is hidden.
    handles, names = {}, []
    for ax in axes.flat:
        for handle, name in zip(*ax.get_legend_handles_labels()):
            if name not in handles:
                handles[name] = handle
                names.append(name)
    figure.legend([handles[n] for n in names], names, loc="lower center", ncol=min(4, len(names)),
                  fontsize="small", frameon=False)
    figure.tight_layout(rect=(0, 0.04 + 0.025 * math.ceil(len(names) / 4), 1, 1))
    figure.savefig(output, dpi=110)
    print("wrote %s" % output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
