#!/usr/bin/python3
"""The markdown summary of bench/run-huge.sh's results:

    huge_report.py BENCH.jsonl [BENCH.jsonl...] > bench.md

Several files (the OUT_DIR of each device command) make one summary, so
that tiled throughput is compared with the single call of another command.

Each line of BENCH.jsonl is a run ({"step", "case", "gpus", "result": the
JSON of glccl label --json --timing or glccl-mpi --json --timing, and for
runs timed against the I/O floor "io": bench/io_floor.py run's JSON}) or a
note ({"step", "note"}: a check's verdict, a step not run and why). Sections
appear for the steps that ran. Throughput is in Gpixel/s of device time (the
stage times the backends measure on the GPU, summed over tiles) and of wall
time; with several workers the device time is the busiest worker's.
"""
import json
import os
import statistics
import sys


def gpx(pixels, milliseconds):
    return "%.1f" % (pixels / milliseconds / 1e6) if milliseconds and milliseconds > 0 else "-"


def pixels_of(result):
    return result["width"] * result["height"] * result.get("depth", 1)


def device_ms(result):
    stages = result.get("stages", {})
    # null where the driver measured no device time (a software renderer)
    busiest = stages.get("device_busiest_worker") or 0.0
    return busiest if busiest > 0 else stages.get("device") or 0.0


def size_of(result):
    return "x".join(str(result[key]) for key in ("width", "height", "depth") if key in result)


def tiles_of(result):
    tiled = result["tiled"]
    if "tile_depth" in tiled:
        return "%dx%dx%d of %dx%dx%d" % (tiled["tiles_x"], tiled["tiles_y"], tiled["tiles_z"], tiled["tile_width"],
                                         tiled["tile_height"], tiled["tile_depth"])
    return "%dx%d of %dx%d" % (tiled["tiles_x"], tiled["tiles_y"], tiled["tile_width"], tiled["tile_height"])


def seconds(milliseconds):
    return "%.1f" % (milliseconds / 1000) if milliseconds is not None else "-"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def main(paths):
    runs, notes = [], []
    lines = [line for path in paths if os.path.exists(path) for line in open(path)]
    for line in lines:
        line = line.strip()
        if not line:
            continue
        entry = json.loads(line)
        if "note" in entry:
            notes.append(entry)
        elif entry.get("result"):
            entry["result"] = entry["result"][0]
            runs.append(entry)

    def of(*steps):
        return [r for r in runs if r["step"] in steps]

    def notes_of(*steps):
        return ["- %s: %s" % (n["step"], n["note"]) for n in notes if n["step"] in steps]

    out = ["# Tiled labeling on the GPU machine (bench/run-huge.sh)", ""]
    gpus = max([r.get("gpus", 1) for r in runs] or [1])
    device = next((r["result"]["device"] for r in runs if r["result"].get("backend") == "cuda"), "")
    if device:
        out += ["Machine: %d GPU(s); cuda workers on %s." % (gpus, device), ""]
    out += notes_of("tests")

    exact = of("exact50k", "exact46k")
    if exact or notes_of("exact50k", "exact46k"):
        out += ["", "## Exact against the CPU reference", ""]
        rows = []
        for r in exact:
            res = r["result"]
            case = r["case"].split(" peak_kib ")
            rows.append([size_of(res), "{:,}".format(pixels_of(res)), res["backend"], res["tiled"]["workers"],
                         "{:,}".format(res["components"]), res["tiled"]["label_type"], "%.0f" % res["milliseconds"],
                         "%.0f" % (int(case[1]) / 1024) if len(case) > 1 else "-"])
        out += [table(["image", "pixels", "backend", "workers", "components", "labels", "wall ms", "peak RSS MiB"],
                      rows), ""]
        out += notes_of("exact50k", "exact46k")

    timed = [r for r in runs if "io" in r]
    if timed or notes_of("io2d", "io3d"):
        out += ["", "## Wall time against the I/O floor", ""]
        rows = []
        for r in timed:
            res, io = r["result"], r["io"]
            stages = res.get("stages", {})
            rows.append([size_of(res), r["case"], "{:,}".format(res["components"]), tiles_of(res),
                         "%.1f" % io["wall_s"], "%.1f + %.1f = %.1f" % (io["read_s"], io["write_fsync_s"], io["floor_s"]),
                         "%.2f" % io["ratio"], seconds(stages.get("label_tiles")), seconds(stages.get("relabel_tiles")),
                         seconds(stages.get("write_sink")), "%.2f" % io["peak_rss_gib"]])
        out += [table(["input", "backend", "components", "tiles", "wall s", "floor s: read + write", "wall / floor",
                       "label_tiles s", "relabel_tiles s", "of which writing s", "peak RSS GiB"], rows), "",
                "The floor, measured in the same run (bench/io_floor.py): the input read with the page cache "
                "dropped, and as many bytes as the labels written with fsync. Each run starts with the page cache "
                "dropped too and ends with its labels on the disk; wall is the whole command's."
                + ("" if all(r["io"]["cache_dropped"] for r in timed) else
                   " The page cache could not be dropped here (not root): reads may have come from memory.")]
        out += notes_of("io2d", "io3d")

    bench = of("bench16k", "bench32k", "bench65k")
    if bench:
        out += ["", "## Throughput on one GPU: tiles of %s against one call" %
                ("%dx%d" % (bench[0]["result"]["tiled"]["tile_width"], bench[0]["result"]["tiled"]["tile_height"])), ""]
        groups = {}
        for r in bench:
            res = r["result"]
            groups.setdefault((pixels_of(res), res["backend"]), []).append(res)
        baseline = {}
        for (pixels, backend), results in sorted(groups.items()):
            if results[0]["tiled"]["tiles_x"] * results[0]["tiled"]["tiles_y"] == 1:
                baseline.setdefault(backend, pixels / statistics.median(device_ms(x) for x in results) / 1e6
                                    if all(device_ms(x) > 0 for x in results) else None)
        rows = []
        for (pixels, backend), results in sorted(groups.items(), key=lambda item: (item[0][1], item[0][0])):
            device = statistics.median(device_ms(x) for x in results)
            wall = statistics.median(x["milliseconds"] for x in results)
            first = results[0]
            rate = pixels / device / 1e6 if device > 0 else None
            share = "%.0f %%" % (100 * rate / baseline[backend]) if rate and baseline.get(backend) else "-"
            rows.append([size_of(first), backend, "%dx%d" % (first["tiled"]["tiles_x"], first["tiled"]["tiles_y"]),
                         len(results), "{:,}".format(first["components"]), "%.1f" % device, gpx(pixels, device), share,
                         "%.0f" % statistics.median(x["stages"]["label_tiles"] for x in results),
                         "%.0f" % statistics.median(x["stages"]["relabel_tiles"] for x in results),
                         "%.0f" % wall, gpx(pixels, wall)])
        out += [table(["image", "backend", "tiles", "runs", "components", "device ms", "device Gpx/s",
                       "of one call", "label_tiles ms", "relabel_tiles ms", "wall ms", "wall Gpx/s"], rows), "",
                "Medians over the runs. 'of one call': device-time throughput against the same backend's "
                "16384^2 single tile."]

    multi = of("multi65k")
    if multi:
        out += ["", "## Two GPUs against one (%s)" % size_of(multi[0]["result"]), ""]
        if gpus < 2:
            out += ["One GPU here: the two workers shared it, so the speed-up was not measured (the run proves the "
                    "multi-worker path only).", ""]
        rows = []
        for r in multi:
            res = r["result"]
            # The baseline: the same step's one-worker run of the backend, else bench65k's.
            one = [x["result"] for x in multi if x["result"]["backend"] == res["backend"]
                   and x["case"].endswith(" devices 0")] or \
                [x["result"] for x in of("bench65k") if x["result"]["backend"] == res["backend"]]
            pixels = pixels_of(res)
            ratio = lambda a, b: "%.2fx" % (a / b) if a and b else "-"
            rows.append([res["backend"], res["tiled"]["workers"], res["device"], "%.1f" % device_ms(res),
                         gpx(pixels, device_ms(res)),
                         ratio(device_ms(one[0]), device_ms(res)) if one else "-",
                         "%.0f" % res["stages"]["label_tiles"],
                         ratio(one[0]["stages"]["label_tiles"], res["stages"]["label_tiles"]) if one else "-",
                         "%.0f" % res["milliseconds"], ratio(one[0]["milliseconds"], res["milliseconds"]) if one else "-"])
        out += [table(["backend", "workers", "devices", "busiest worker's device ms", "device Gpx/s",
                       "device speed-up", "label_tiles ms", "label_tiles speed-up", "wall ms", "wall speed-up"], rows),
                "", "Speed-ups against the one-worker run on GPU 0 of the same backend (bench65k's where the step "
                "has none; label_tiles: pass 1, reading, labeling and border merging; wall: the whole command, "
                "pass 2 and writing the labels included)."]
        out += notes_of("multi65k")

    memory = of("memory65k")
    if memory:
        out += ["", "## Peak host memory, %s (%s, labels and table written)" % (
            size_of(memory[0]["result"]), memory[0]["result"]["backend"]), ""]
        rows = []
        for r in memory:
            res = r["result"]
            limit, peak = r["case"].split(" peak_kib ")
            rows.append([limit.replace("limit ", ""), tiles_of(res), "%.2f" % (int(peak) / 1048576),
                         "%.1f" % (pixels_of(res) * 5 / 2**30), "%.0f" % res["stages"]["label_tiles"],
                         "%.0f" % res["stages"]["relabel_tiles"], "%.0f" % res["milliseconds"]])
        out += [table(["--memory-limit", "tiles", "peak RSS GiB", "one piece would hold GiB",
                       "label_tiles ms", "relabel_tiles ms", "wall ms"], rows), "",
                "'One piece would hold': the image and its uint32 labels (5 bytes a pixel), before any table."]

    for step, title in (("mpi-strong", "MPI strong scaling (fixed image)"),
                        ("mpi-weak", "MPI weak scaling (image grows with the ranks)")):
        results = of(step)
        if not results and not notes_of(step):
            continue
        out += ["", "## " + title, ""]
        rows = []
        base = None
        for r in sorted(results, key=lambda r: r["result"]["ranks"]):
            res = r["result"]
            s = res["stages"]
            ranks = res["ranks"]
            merge = s["merge_blocks"] + s["number_components"]
            total = res["milliseconds"]
            if ranks == 1:
                base = total
            if step == "mpi-strong":
                speedup = base / total if base else None
                karp = ((1 / speedup - 1 / ranks) / (1 - 1 / ranks)) if speedup and ranks > 1 else None
                extra = ["%.2f" % speedup if speedup else "-", "%.0f %%" % (100 * speedup / ranks) if speedup else "-",
                         "%.3f" % karp if karp is not None else "-"]
            else:
                efficiency = base / total if base else None
                extra = ["%.2f" % (ranks * efficiency) if efficiency else "-",
                         "%.0f %%" % (100 * efficiency) if efficiency else "-", "-"]
            rows.append([ranks, size_of(res), res["backend"], "%.0f" % s["label_tiles"], "%.0f" % merge,
                         "%.0f" % s["relabel_tiles"], "%.0f" % total, gpx(pixels_of(res), total)] + extra)
        if rows:
            speedup = "speed-up" if step == "mpi-strong" else "scaled speed-up"
            out += [table(["ranks", "image", "backend", "labeling ms", "merging ms", "writing ms", "wall ms",
                           "wall Gpx/s", speedup, "efficiency", "Karp-Flatt e"], rows), "",
                    "Slowest rank per phase: labeling = label_tiles (each rank's row block), merging = merge_blocks + "
                    "number_components (the tree of ranks, the scan, final labels and stats exchanged), writing = "
                    "relabel_tiles (pass 2 and MPI-IO into one .npy). Karp-Flatt e = (1/S - 1/P) / (1 - 1/P)."]
        out += notes_of(step)
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
