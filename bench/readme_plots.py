#!/usr/bin/env python3
"""The README's two speed pictures, drawn from the CSVs of a benchmark run.

    readme_plots.py gpu OUT.png SIZE CSV [CSV...]
    readme_plots.py cpu OUT.png SIZE CPU_PEERS_CSV

gpu: the CSVs of `bench/run-bench.sh` (glccl bench's bench_compute.csv,
     bench_cuda.csv, ... and peers.csv): for every image family at SIZE
     (e.g. 8192x8192), one bar per backend and peer, throughput in Gpixel/s
     from the median device time of labels and component table (glccl) or
     labels (peers; OpenCV's is wall time on the host's threads). Backends
     whose time was not measured (no device timer) are left out.
cpu: the CSV of `bench/cpu_peers.py --csv` (glccl_cpu_bench beside OpenCV,
     scipy and scikit-image on byte-identical .npy files): for every family
     at SIZE, one bar per labeler and thread count, in milliseconds.

Both draw log-scaled bars with their values written on them, the legend
outside the bars. Needs matplotlib (Debian: python3-matplotlib).
"""

import csv
import sys

GPU_ORDER = [("compute", "glccl compute (OpenGL 4.3)"), ("cuda", "glccl cuda"),
             ("raster", "glccl raster (OpenGL 3.3)"), ("cupyx", "cupyx.scipy.ndimage.label"),
             ("opencv_default", "OpenCV connectedComponents (host, all threads)")]


def read(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as source:
            rows.extend(csv.DictReader(source))
    return rows


def parse_size(text):
    parts = text.lower().split("x")
    if len(parts) == 1:
        parts = parts * 2
    return tuple(int(p) for p in parts)


def number(value):
    """A bar's value as written on it: whole above 100, three digits below."""
    return "%.0f" % value if value >= 100 else "%.3g" % value


def bars(plt, groups, series, values, ylabel, title, output, unit_format):
    """groups: family names; series: [(key, label)]; values[(group, key)] -> number."""
    series = [(k, label) for k, label in series if any((g, k) in values for g in groups)]
    figure, ax = plt.subplots(figsize=(8, 4.6))
    width = 0.8 / max(1, len(series))
    for i, (key, label) in enumerate(series):
        xs, ys = [], []
        for j, group in enumerate(groups):
            if (group, key) in values:
                xs.append(j + (i - (len(series) - 1) / 2) * width)
                ys.append(values[(group, key)])
        drawn = ax.bar(xs, ys, width * 0.95, label=label, color="C%d" % i)
        for rect, value in zip(drawn, ys):
            ax.annotate(unit_format(value), (rect.get_x() + rect.get_width() / 2, rect.get_height()),
                        ha="center", va="bottom", fontsize=6.5, rotation=90, xytext=(0, 2),
                        textcoords="offset points")
    ax.set_yscale("log")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="y", which="major", alpha=0.3)
    ax.margins(y=0.25)
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2, frameon=False)
    figure.tight_layout()
    figure.savefig(output, dpi=110)
    print("wrote %s" % output)


def gpu(plt, output, size, paths):
    width, height = size
    values, groups, devices = {}, [], set()
    labels = dict(GPU_ORDER)
    for row in read(paths):
        if row.get("stage", "total") != "total" or row.get("backend") == "memory_floor":
            continue
        if (int(row["width"]), int(row["height"])) != (width, height) or str(row.get("connectivity", "8")) != "8":
            continue
        try:
            ms = float(row["median_ms"])
        except (KeyError, ValueError):
            continue
        if ms <= 0:
            continue
        family = row["family"]
        if family not in groups:
            groups.append(family)
        values[(family, row["backend"])] = width * height / (ms * 1e6)
        if row.get("device") and row["backend"] == "cupyx":
            devices.add(row["device"].split(" (")[0].split(",")[0])
        if row["backend"] == "opencv_default" and row.get("device"):
            threads = row["device"].rsplit(", ", 1)[-1]
            labels["opencv_default"] = "OpenCV connectedComponents (host, %s)" % threads
    if not values:
        print("readme_plots.py: no 8-connectivity rows at %dx%d in %s" % (width, height, ", ".join(paths)),
              file=sys.stderr)
        return 1
    title = ("%d×%d, 8-connectivity, one %s\nglccl: labels and component table; peers: labels"
             % (width, height, ", ".join(sorted(devices)) or "GPU"))
    bars(plt, groups, [(key, labels[key]) for key, _ in GPU_ORDER], values, "Gpixel/s (median, device time; higher is faster)", title, output,
         number)
    return 0


def cpu(plt, output, size, paths):
    shape = "%dx%d" % size
    rows = [r for r in read(paths) if r["shape"] == shape and str(r["connectivity"]) == "8"]
    if not rows:
        print("readme_plots.py: no 8-connectivity rows of shape %s in %s" % (shape, ", ".join(paths)),
              file=sys.stderr)
        return 1
    columns = [c for c in rows[0] if c not in ("input", "shape", "connectivity", "components")]
    threads = sorted({int(c.split("=")[1]) for c in columns if "t=" in c})
    series = []
    for t in sorted(threads, reverse=True):
        series.append(("glccl t=%d" % t, "glccl cpu, %d thread%s" % (t, "s" * (t > 1))))
    for t in sorted(threads, reverse=True):
        series.append(("cv t=%d" % t, "OpenCV connectedComponents, %d thread%s" % (t, "s" * (t > 1))))
    series += [("scipy", "scipy.ndimage.label"), ("skimage", "skimage.measure.label")]
    values, groups = {}, []
    for row in rows:
        groups.append(row["input"])
        for key, _ in series:
            if row.get(key):
                values[(row["input"], key)] = float(row[key])
    title = "%s, 8-connectivity, %d CPU cores, no GPU\nglccl: labels and component table; peers: labels" % (
        "×".join(str(s) for s in size), max(threads))
    bars(plt, groups, series, values, "milliseconds (median; lower is faster)", title, output,
         number)
    return 0


def main(argv):
    if len(argv) < 5 or argv[1] not in ("gpu", "cpu"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("readme_plots.py: matplotlib is not installed (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 1
    kind, output, size, paths = argv[1], argv[2], parse_size(argv[3]), argv[4:]
    return (gpu if kind == "gpu" else cpu)(plt, output, size, paths)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
