"""Stage times that were not measured say so, run as

    cli_timings.py GLCCL SCRATCH BENCH_DIR

A GPU stage (a dispatch, a draw) never takes under 100 ns: `glccl label
--timing --json` gives each stage of the GL backends either a time of at
least that or null (not measured: a driver whose timer queries read next
to nothing, as llvmpipe's 1 ns for compute dispatches), and the text says
"n/a" where the JSON says null;
`glccl bench --csv` leaves median_ms, min_ms, max_ms and mpix_per_s empty
where the device time was not measured and otherwise gives a median above
0 and mpix_per_s = pixels / median; `glccl bench --gl es` gives the
yardstick (the full-screen pass) no time where the ES context has no
EXT_disjoint_timer_query (n/a in the table, empty in the CSV), and labels
its textures in an OpenGL ES 3.0 context too; labeling in tiles gives its summed
device times as null or "n/a" where a stage was not measured; bench/bench_tables.py and
bench/plot_bench.py leave out rows whose device time was not measured
(empty, or the 0 of a CSV written before) rather than print a throughput.
Exits 77 (skipped) where no GL context can be made."""

import csv
import importlib.util
import json
import os
import re
import subprocess
import sys

from cli_check import CliCheck


def main():
    bench_dir = os.path.abspath(sys.argv[3])
    check = CliCheck()
    check.run("generate", "noise50", "64x48", "a.png")
    backends = []
    for backend in ("compute", "raster"):
        run = check.run("label", "a.png", "--backend", backend)
        if run.returncode == 0:
            backends.append(backend)
    if not backends:
        print("skipped: no GL backend runs here")
        sys.exit(77)

    for backend in backends:
        run = check.run("label", "a.png", "--backend", backend, "--timing", "--json")
        stages = json.loads(run.stdout)[0]["stages"]
        check.report(f"{backend}: stages listed", len(stages) > 0, run.stdout)
        for stage, ms in stages.items():
            check.report(f"{backend} {stage}: measured, at least 100 ns, or not measured", ms is None or ms >= 1e-4,
                         f"({stage}: {ms})")
        text = check.run("label", "a.png", "--backend", backend, "--timing").stdout
        for stage, ms in stages.items():
            line = re.search(r"^  %s +(\S+)$" % stage, text, re.M)
            shown = line and line.group(1)
            check.report(f"{backend} {stage}: text says n/a where not measured",
                         shown is not None and (shown == "n/a") == (ms is None) and shown != "0.000",
                         f"({stage}: json {ms}, text {shown!r})")

    # In tiles: the device time summed over the tiles, null or "n/a" where a
    # stage was not measured.
    check.run("generate", "noise50", "64x48", "a.npy")
    for backend in backends:
        run = check.run("label", "a.npy", "--backend", backend, "--tile", "32", "--timing", "--json")
        stages = json.loads(run.stdout)[0]["stages"] if run.returncode == 0 else {}
        # The second pass labels no tile again where it kept the first's
        # labels (relabel_calls 0): its device time is then no time at all.
        calls = {"device": stages.get("label_calls"), "relabel_device": stages.get("relabel_calls")}
        for key in ("device", "relabel_device"):
            ms = stages.get(key, "absent")
            check.report(f"{backend} tiled {key}: measured or null",
                         ms is None or (ms != "absent" and (ms > 0.0 or (ms == 0 and calls[key] == 0))),
                         f"({key}: {ms}; {run.stderr.strip()})")
        text = check.run("label", "a.npy", "--backend", backend, "--tile", "32", "--timing").stdout
        shown = re.findall(r"^    device \(sum over tiles\) +(\S+)$", text, re.M)
        # The first pass labels every tile in both runs (the second may not:
        # --json without --table keeps no rows to relabel).
        expected = "n/a" if stages.get("device") is None else "measured"
        check.report(f"{backend} tiled device in the text", len(shown) == 2 and
                     ("n/a" if shown[0] == "n/a" else "measured") == expected and shown[0] != "0.000",
                     f"({shown}, the first against {expected})")

    run = check.run("bench", "--backends", ",".join(backends + ["cpu"]), "--families", "noise50", "--sizes", "64x48",
                    "--reps", "2", "--floor-mib", "1", "--steps", "--csv", "bench.csv")
    check.report("bench ran", run.returncode == 0, run.stdout + run.stderr)
    with open("bench.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["backend"] in backends + ["cpu"] and r["family"] == "noise50"]
    for r in rows:
        name = f"bench {r['backend']} {r['stage']}"
        if not r["median_ms"]:
            check.report(name + ": not measured, no throughput",
                         r["min_ms"] == r["max_ms"] == r["mpix_per_s"] == "", str(r))
            continue
        median = float(r["median_ms"])
        if r["backend"] in backends:
            check.report(name + ": median above 0", median > 0.0, str(r))
        if r["stage"] == "total" and median > 0.0:
            expected = 64 * 48 / (median * 1e3)
            check.report(name + ": mpix_per_s from the median",
                         r["mpix_per_s"] != "" and abs(float(r["mpix_per_s"]) - expected) <= 0.01 * expected + 0.01,
                         f"({r['mpix_per_s']} against {expected:.3f})")
    for line in run.stdout.splitlines():
        fields = line.split()
        if fields and fields[0] in backends and len(fields) > 7:
            check.report(f"bench table {fields[0]}: no zero time", fields[4] != "0.000" and fields[7] != "0.0",
                         line)

    # The yardstick (one full-screen pass) in an OpenGL ES context, whose
    # device times come from EXT_disjoint_timer_query: taken away (Mesa's
    # extension override; other drivers ignore it), the context times none
    # of a raster labeling's stages, and the yardstick reads n/a (empty in
    # the CSV), never a time of an unmeasured query; where the context does
    # time them, the yardstick is a time above 0 or n/a.
    def without_timer(*args):
        env = dict(os.environ, MESA_EXTENSION_OVERRIDE="-GL_EXT_disjoint_timer_query")
        return subprocess.run([check.glccl, *args], capture_output=True, text=True, env=env)

    es = without_timer("label", "a.png", "--backend", "raster", "--gl", "es", "--timing", "--json")
    if "raster" in backends and es.returncode == 0:
        timed = any(ms is not None for ms in json.loads(es.stdout)[0]["stages"].values())
        run = without_timer("bench", "--gl", "es", "--backends", "raster", "--families", "noise50", "--sizes",
                            "64x48", "--reps", "2", "--floor-mib", "1", "--csv", "bench_es.csv")
        check.report("bench --gl es ran", run.returncode == 0, run.stdout + run.stderr)
        with open("bench_es.csv", newline="") as f:
            passes = [r for r in csv.DictReader(f) if r["family"] == "fullscreen_pass"]
        shown = [line.split() for line in run.stdout.splitlines() if line.split()[1:2] == ["fullscreen_pass"]]
        check.report("bench --gl es: one yardstick row in the CSV and the table", len(passes) == 1 and len(shown) == 1,
                     str(passes) + run.stdout)
        if len(passes) == 1 and len(shown) == 1:
            csv_ms, table_ms = passes[0]["median_ms"], shown[0][3]
            check.report("bench --gl es: the yardstick is n/a in the table where empty in the CSV",
                         (csv_ms == "") == (table_ms == "n/a"), f"(csv {csv_ms!r}, table {table_ms!r})")
            if timed:
                check.report("bench --gl es: a measured yardstick is above 0", csv_ms == "" or float(csv_ms) > 0.0,
                             f"(csv {csv_ms!r})")
            else:
                check.report("bench --gl es: no stage timed, the yardstick not measured",
                             csv_ms == "" and table_ms == "n/a", f"(csv {csv_ms!r}, table {table_ms!r}; label's "
                                                                 f"stages {es.stdout.strip()})")

    # An OpenGL ES 3.0 context cannot say a texture's size and format: bench
    # labels its resident textures there (and their frames) with the sizes
    # it knows, and the raster cell has the components the cpu engine finds
    # in the same generated image. Mesa's version override makes the
    # context 3.0; elsewhere it is the newest ES.
    if "raster" in backends and es.returncode == 0:
        with open("bench.csv", newline="") as f:
            cpu = [r["components"] for r in csv.DictReader(f)
                   if r["backend"] == "cpu" and r["family"] == "noise50" and r["stage"] == "total"]
        env = dict(os.environ, MESA_GLES_VERSION_OVERRIDE="3.0")
        run = subprocess.run([check.glccl, "bench", "--gl", "es", "--backends", "raster", "--families", "noise50",
                              "--sizes", "64x48", "--reps", "2", "--frames", "2", "--floor-mib", "1", "--csv",
                              "bench_es30.csv"], capture_output=True, text=True, env=env)
        check.report("bench --gl es in ES 3.0 ran", run.returncode == 0, run.stdout + run.stderr)
        rows = []
        if os.path.exists("bench_es30.csv"):
            with open("bench_es30.csv", newline="") as f:
                rows = [r for r in csv.DictReader(f) if r["backend"] == "raster" and r["family"] == "noise50"]
        stages = {r["stage"]: r for r in rows}
        check.report("bench --gl es in ES 3.0: the raster cell and its frames, with the cpu engine's components",
                     "total" in stages and "frame_wall" in stages and cpu and stages["total"]["components"] == cpu[0],
                     f"({[(r['stage'], r['components']) for r in rows]} against cpu {cpu})")

    # The scripts on what bench wrote, and on a row a bench before wrote as
    # a measured 0 (median 0.0000, no throughput or an absurd one).
    os.makedirs("tables", exist_ok=True)
    with open("bench.csv") as f:
        text = f.read()
    header = text.splitlines()[0]
    zero = "compute,noise50,1024,1024,12,0.0000,0.0000,0.0000,4194304000.000,150.0,,total,8,5,llvmpipe\n" \
           "compute,sparse_disks,1024,1024,12,0.0000,0.0000,0.0000,0.000,150.0,,total,8,5,llvmpipe\n"
    with open("tables/bench_old.csv", "w") as f:
        f.write(header + "\n" + zero)
    tables = subprocess.run([sys.executable, os.path.join(bench_dir, "bench_tables.py"), "tables"],
                            capture_output=True, text=True)
    rows_1024 = [line for line in tables.stdout.splitlines() if line.startswith("| noise50 | 1024²") or
                 line.startswith("| sparse_disks | 1024²")]
    check.report("bench_tables.py: a 0 ms row is no throughput",
                 tables.returncode == 0 and rows_1024 and all("4,194,304,000" not in l and "| 0 |" not in l
                                                             for l in rows_1024),
                 tables.stdout[:2000] + tables.stderr)
    wall = subprocess.run([sys.executable, os.path.join(bench_dir, "bench_tables.py"), "tables", "--wall"],
                          capture_output=True, text=True)
    check.report("bench_tables.py --wall: a 0 ms row left out",
                 wall.returncode == 0 and "| compute | noise50 | 1024²" not in wall.stdout, wall.stdout + wall.stderr)
    spec = importlib.util.spec_from_file_location("plot_bench", os.path.join(bench_dir, "plot_bench.py"))
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)
    plotted = plot.read_rows(["tables/bench_old.csv", "bench.csv"])
    check.report("plot_bench.py: only measured rows",
                 all(r["median_ms"] and float(r["median_ms"]) > 0 and float(r["mpix_per_s"]) > 0 for r in plotted),
                 str([(r["backend"], r["family"], r["median_ms"]) for r in plotted]))
    check.finish()


if __name__ == "__main__":
    main()
