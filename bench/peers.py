#!/usr/bin/env python3
"""Peer connected-component labelers timed on the images glccl labels.

    peers.py run --glccl PATH --image-dir DIR --csv OUT.csv [options]
    peers.py summary CSV [CSV...]

run
    For every family and size, writes the image with `glccl generate` as a
    .npy file in DIR (the byte-identical input of `glccl bench`, seed 1) and
    times on it:

      cupyx           cupyx.scipy.ndimage.label(image, structure=ones((3, 3)))
                      on the GPU; median_ms is device time (CUDA events around
                      the call, the image already on the device), wall_median_ms
                      adds the upload and the download of the labels
      opencv_sauf     cv2.connectedComponentsWithAlgorithm(image, 8, cv2.CV_32S,
                      cv2.CCL_SAUF): the numbering of the glccl contract
      opencv_default  cv2.connectedComponents(image, connectivity=8)

    OpenCV runs with cv2.setNumThreads(--threads); its times are wall times.
    It also measures the device's copy bandwidth (one large device-to-device
    copy; bytes read plus bytes written over its time) and adds one
    `memory_floor` row per size: the time to read one byte and write one
    4-byte label per pixel at that bandwidth, a bound no labeler can beat.
    Its family is "*" (it holds for every family).

    The CSV has the columns of `glccl bench --csv`:
      backend,family,width,height,components,median_ms,min_ms,max_ms,
      mpix_per_s,wall_median_ms,stage,connectivity,reps,device
    with stage "total". A peer that cannot run (no cupy, no GPU, no cv2) is
    skipped with the reason on stderr.

summary
    Reads CSVs of glccl bench and of `run`, and prints one line per family and
    size: the throughput (Mpixel/s, from the median time) of each backend and
    whether the component counts agree.
"""

import argparse
import csv
import os
import statistics
import subprocess
import sys
import time

COLUMNS = ["backend", "family", "width", "height", "components", "median_ms", "min_ms", "max_ms",
           "mpix_per_s", "wall_median_ms", "stage", "connectivity", "reps", "device"]
BYTES_PER_PIXEL_FLOOR = 5  # one input byte read, one 4-byte label written


def log(message):
    print(message, file=sys.stderr, flush=True)


def parse_sizes(text):
    sizes = []
    for item in filter(None, text.split(",")):
        width, _, height = item.partition("x")
        sizes.append((int(width), int(height or width)))
    return sizes


def image_path(image_dir, family, width, height):
    return os.path.join(image_dir, "%s_%dx%d.npy" % (family, width, height))


def load_image(numpy, glccl, image_dir, family, width, height):
    """The image glccl bench labels, written once by glccl generate into image_dir."""
    path = image_path(image_dir, family, width, height)
    if not os.path.exists(path):
        subprocess.run([glccl, "generate", family, "%dx%d" % (width, height), path],
                       check=True, stdout=subprocess.DEVNULL)
    image = numpy.load(path)
    if image.dtype != numpy.uint8 or image.shape != (height, width):
        raise RuntimeError("%s: expected uint8 %dx%d, got %s %s" % (path, width, height, image.dtype, image.shape))
    return numpy.ascontiguousarray(image)


def result_row(backend, family, width, height, components, times_ms, wall_ms, connectivity, reps, device):
    median = statistics.median(times_ms)
    return {
        "backend": backend, "family": family, "width": width, "height": height,
        "components": components,
        "median_ms": "%.4f" % median, "min_ms": "%.4f" % min(times_ms), "max_ms": "%.4f" % max(times_ms),
        "mpix_per_s": "%.3f" % (width * height / (median * 1e3)) if median > 0 else "",
        "wall_median_ms": "%.4f" % statistics.median(wall_ms) if wall_ms else "",
        "stage": "total", "connectivity": connectivity, "reps": reps, "device": device,
    }


class Cupyx:
    name = "cupyx"

    def __init__(self, numpy, connectivity):
        import cupy
        import cupyx.scipy.ndimage
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
        self.cupy = cupy
        self.label = cupyx.scipy.ndimage.label
        full = connectivity == 8
        self.structure = numpy.ones((3, 3), dtype=bool) if full else numpy.array(
            [[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=bool)
        properties = cupy.cuda.runtime.getDeviceProperties(0)
        name = properties["name"]
        self.gpu_name = name.decode() if isinstance(name, bytes) else str(name)
        self.device = "%s, CuPy %s" % (self.gpu_name, cupy.__version__)

    def run(self, image):
        """One labeling: (device ms, wall ms, components)."""
        cupy = self.cupy
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        cupy.cuda.Device().synchronize()
        begin = time.perf_counter()
        d_image = cupy.asarray(image)
        start.record()
        d_labels, count = self.label(d_image, structure=self.structure)
        stop.record()
        labels = cupy.asnumpy(d_labels)
        stop.synchronize()
        wall = (time.perf_counter() - begin) * 1e3
        del d_image, d_labels, labels
        return cupy.cuda.get_elapsed_time(start, stop), wall, int(count)

    def copy_bandwidth(self, mebibytes, reps):
        """Bytes read plus written per second of a device-to-device copy."""
        cupy = self.cupy
        size = mebibytes << 20
        source = cupy.ones(size, dtype=cupy.uint8)
        target = cupy.empty_like(source)
        stream = cupy.cuda.get_current_stream()
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        times = []
        for rep in range(reps + 1):
            start.record(stream)
            cupy.cuda.runtime.memcpyAsync(target.data.ptr, source.data.ptr, size,
                                          cupy.cuda.runtime.memcpyDeviceToDevice, stream.ptr)
            stop.record(stream)
            stop.synchronize()
            if rep > 0:  # the first copy warms up
                times.append(cupy.cuda.get_elapsed_time(start, stop))
        del source, target
        return 2.0 * size / (statistics.median(times) * 1e-3)


class OpenCv:
    def __init__(self, name, connectivity, threads, sauf):
        import cv2
        cv2.setNumThreads(threads)
        self.cv2 = cv2
        self.name = name
        self.connectivity = connectivity
        self.sauf = sauf
        self.device = "CPU, OpenCV %s, %d threads" % (cv2.__version__, cv2.getNumThreads())

    def run(self, image):
        cv2 = self.cv2
        begin = time.perf_counter()
        if self.sauf:
            count, labels = cv2.connectedComponentsWithAlgorithm(image, self.connectivity, cv2.CV_32S, cv2.CCL_SAUF)
        else:
            count, labels = cv2.connectedComponents(image, connectivity=self.connectivity)
        wall = (time.perf_counter() - begin) * 1e3
        del labels
        return wall, wall, int(count) - 1  # OpenCV counts the background as label 0


def command_run(args):
    try:
        import numpy
    except ImportError:
        log("peers.py: numpy is not installed; nothing to run")
        return 1
    if os.path.exists(args.csv) and not args.force:
        log("peers.py: %s exists; use --force to overwrite it" % args.csv)
        return 1
    os.makedirs(args.image_dir, exist_ok=True)
    families = [f for f in args.families.split(",") if f]
    plans = []  # (peer, sizes)
    factories = [
        ("cupyx", args.cupyx_sizes, lambda: Cupyx(numpy, args.connectivity)),
        ("opencv_sauf", args.opencv_sizes, lambda: OpenCv("opencv_sauf", args.connectivity, args.threads, True)),
        ("opencv_default", args.opencv_sizes, lambda: OpenCv("opencv_default", args.connectivity, args.threads, False)),
    ]
    for name, sizes, make in factories:
        if not sizes:
            continue
        try:
            plans.append((make(), parse_sizes(sizes)))
        except Exception as error:  # ImportError, CUDA errors: the peer cannot run here
            log("peers.py: %s skipped: %s" % (name, error))

    rows = []
    output = open(args.csv, "w", newline="")
    writer = csv.DictWriter(output, fieldnames=COLUMNS)
    writer.writeheader()

    def emit(row):
        rows.append(row)
        writer.writerow(row)
        output.flush()

    # The memory floor first: it needs only the device.
    cupyx_peer = next((peer for peer, _ in plans if peer.name == "cupyx"), None)
    all_sizes = sorted({size for _, sizes in plans for size in sizes}, key=lambda s: s[0] * s[1])
    if cupyx_peer is not None and args.copy_mib > 0:
        bandwidth = cupyx_peer.copy_bandwidth(args.copy_mib, args.reps)
        print("device copy bandwidth: %.0f GB/s (read + write, %d MiB device-to-device)"
              % (bandwidth / 1e9, args.copy_mib))
        device = "%s, copy %.0f GB/s, %d bytes per pixel" % (cupyx_peer.gpu_name, bandwidth / 1e9,
                                                                BYTES_PER_PIXEL_FLOOR)
        for width, height in all_sizes:
            floor_ms = width * height * BYTES_PER_PIXEL_FLOOR / bandwidth * 1e3
            emit(result_row("memory_floor", "*", width, height, "", [floor_ms], [], args.connectivity, 1, device))

    # Sizes outer, as glccl bench: a run stopped early has every family at the smaller sizes.
    cells = sum(len(sizes) for _, sizes in plans) * len(families)
    cell = 0
    for width, height in all_sizes:
        for family in families:
            peers = [peer for peer, sizes in plans if (width, height) in sizes]
            if not peers:
                continue
            image = load_image(numpy, args.glccl, args.image_dir, family, width, height)
            for peer in peers:
                cell += 1
                if width * height >= 1 << 20:  # as glccl: progress lines for the long steps only
                    log("[%d/%d] %s %s %dx%d" % (cell, cells, peer.name, family, width, height))
                times, walls, components = [], [], None
                for rep in range(args.warmup + args.reps):
                    device_ms, wall_ms, components = peer.run(image)
                    if rep >= args.warmup:
                        times.append(device_ms)
                        walls.append(wall_ms)
                emit(result_row(peer.name, family, width, height, components, times, walls,
                                args.connectivity, args.reps, peer.device))
            del image
    output.close()

    table = [["backend", "image", "size", "components", "median_ms", "min_ms", "max_ms", "Mpix/s", "wall_ms"]]
    for row in rows:
        table.append([row["backend"], row["family"], "%dx%d" % (row["width"], row["height"]),
                      str(row["components"]), row["median_ms"], row["min_ms"], row["max_ms"],
                      "%.1f" % float(row["mpix_per_s"]) if row["mpix_per_s"] else "", row["wall_median_ms"]])
    print_table(table, left={0, 1})
    print("wrote %s" % args.csv)
    return 0


def print_table(rows, left):
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(widths[c]) if c in left else cell.rjust(widths[c]) for c, cell in enumerate(row)]
        print("  ".join(cells).rstrip())


def command_summary(args):
    results = {}   # (width, height, family) -> {backend: row}
    floors = {}    # (width, height) -> Mpix/s
    backends = []
    for path in args.csv:
        with open(path, newline="") as source:
            for row in csv.DictReader(source):
                if row.get("stage", "total") != "total":
                    continue
                size = (int(row["width"]), int(row["height"]))
                if row["backend"] == "memory_floor":
                    floors[size] = row["mpix_per_s"]
                    continue
                if row["backend"] not in backends:
                    backends.append(row["backend"])
                results.setdefault(size + (row["family"],), {})[row["backend"]] = row
    if not results:
        print("no results")
        return 1
    table = [["image", "size"] + backends + (["floor"] if floors else []) + ["counts"]]
    disagreements = 0
    for key in sorted(results, key=lambda k: (k[0] * k[1], k[2])):
        width, height, family = key
        by_backend = results[key]
        line = [family, "%dx%d" % (width, height)]
        for backend in backends:
            row = by_backend.get(backend)
            line.append("%.0f" % float(row["mpix_per_s"]) if row and row["mpix_per_s"] else "-")
        if floors:
            floor = floors.get((width, height))
            line.append("%.0f" % float(floor) if floor else "-")
        counts = {row["components"] for row in by_backend.values() if row["components"] != ""}
        if len(counts) <= 1:
            line.append("agree" if counts else "-")
        else:
            disagreements += 1
            line.append("DIFFER: " + " ".join("%s=%s" % (b, r["components"]) for b, r in by_backend.items()))
        table.append(line)
    print("throughput in Mpixel/s (median time; GPU backends: device time)")
    print_table(table, left={0, 1, len(table[0]) - 1})
    return 1 if disagreements else 0


def main():
    parser = argparse.ArgumentParser(description="Peer CCL labelers on glccl's images, and a summary of results.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="time the peers")
    run.add_argument("--glccl", required=True, help="the glccl command (writes the images)")
    run.add_argument("--image-dir", required=True, help="folder for the generated .npy images")
    run.add_argument("--csv", required=True, help="output CSV")
    run.add_argument("--families", default="noise50,sparse_disks,dense_disks,large")
    run.add_argument("--cupyx-sizes", default="1024,2048,4096,8192,16384", help="'' to skip cupyx")
    run.add_argument("--opencv-sizes", default="1024,2048,4096,8192,16384", help="'' to skip OpenCV")
    run.add_argument("--reps", type=int, default=5)
    run.add_argument("--warmup", type=int, default=1)
    run.add_argument("--threads", type=int, default=16, help="cv2.setNumThreads (default 16)")
    run.add_argument("--connectivity", type=int, choices=(4, 8), default=8)
    run.add_argument("--copy-mib", type=int, default=1024, help="size of the bandwidth copy; 0 skips it")
    run.add_argument("--force", action="store_true", help="overwrite the CSV")
    summary = commands.add_parser("summary", help="throughput table from CSVs")
    summary.add_argument("csv", nargs="+")
    args = parser.parse_args()
    if args.command == "run":
        return command_run(args)
    return command_summary(args)


if __name__ == "__main__":
    sys.exit(main())
