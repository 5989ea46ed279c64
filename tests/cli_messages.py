"""What the `glccl` and `glccl-mpi` commands say when something is wrong, run as

    cli_messages.py GLCCL SCRATCH [GLCCL_MPI|-]

- no message names a C++ entry (`glccl::readImage():`); a file's path is
  said once;
- a criterion without its number says which number it needs;
- a misspelled option or command gets "did you mean" with the right one;
- a connectivity that does not fit a volume is a usage error (exit 2), in
  one piece or in bricks;
- --out-dir naming a file says it is a file; validate --diff-dir may name
  a folder that does not exist yet;
- a folder's dangling links and FIFOs with an image's name are reported as
  failures, as the same paths named one by one are;
- counts read "1 input", and glccl-mpi names the device it ran on;
- a list option with an item left out (`area,,centroid`) is refused, and an
  .npy header's fortran_order that is neither True nor False is named;
- what goes to a standard output that cannot take it (/dev/full) fails with
  exit 1 and says so;
- in tiles, --labels naming the --intensity file is refused, and a brick's
  depth given for an image too.

The cpu backend only: no GL context is needed."""

import os
import re
import subprocess
import sys

from cli_check import CliCheck

CPP_NAME = re.compile(r"glccl::|\w+::\w+\(\)")


def main():
    mpi = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    check = CliCheck()

    def says(name, args, status, pattern, also=None):
        """`glccl ARGS` exits with `status` and says a line matching `pattern`,
        and no C++ name."""
        run = check.run(*args) if also is None else also(args)
        said = run.stdout + run.stderr
        ok = run.returncode == status and re.search(pattern, said, re.M) is not None
        check.report(name, ok, f"(glccl {' '.join(args)}: exit {run.returncode}, expected {status} and "
                               f"/{pattern}/: {said.strip()!r})")
        check.report(name + ": no C++ name", CPP_NAME.search(run.stderr) is None, f"({run.stderr.strip()!r})")
        return run

    check.run("generate", "noise50", "64x48", "a.png")
    check.run("generate", "blobs", "16x16x16", "v.npy")
    with open("bad.png", "w") as f:
        f.write("junk")

    # Library messages reach the user without the C++ entry, the path once.
    run = says("unreadable input", ["label", "bad.png", "--backend", "cpu"], 1,
               r"^glccl: bad\.png: not an image in a supported format")
    says("unreadable input in validate", ["validate", "bad.png", "--backends", "cpu"], 1,
         r"^glccl: bad\.png: not an image in a supported format")
    says("unknown criterion", ["label", "a.png", "--criterion", "foo"], 2,
         r"^glccl: --criterion: unknown criterion 'foo'; expected .*delta:D")
    says("criterion without its number: threshold", ["label", "a.png", "--criterion", "threshold"], 2,
         r"^glccl: --criterion: 'threshold' needs its number: threshold:T")
    says("criterion without its number: delta", ["label", "a.png", "--criterion", "delta"], 2,
         r"^glccl: --criterion: 'delta' needs its number: delta:D")
    says("unknown backend", ["label", "a.png", "--backend", "vulkan"], 2, r"^glccl: --backend: unknown backend")

    # Did you mean.
    says("misspelled label option", ["label", "a.png", "--critrion", "binary"], 2,
         r"^glccl: unknown option '--critrion' for label; did you mean '--criterion'\?")
    says("misspelled filter option", ["label", "a.png", "--min-sise", "3"], 2, r"did you mean '--min-size'\?")
    says("misspelled tiled option", ["label", "a.png", "--tiel", "64"], 2, r"did you mean '--tile'\?")
    says("misspelled option of a tiled run", ["label", "v.npy", "--tile", "8x8x8", "--critrion", "binary"], 2,
         r"did you mean '--criterion'\?")
    says("misspelled bench option", ["bench", "--rep", "3"], 2, r"did you mean '--reps'\?")
    says("misspelled validate option", ["validate", "--backend", "cpu"], 2, r"did you mean '--backends'\?")
    says("misspelled generate option", ["generate", "noise50", "8x8", "x.png", "--sed", "3"], 2,
         r"did you mean '--seed'\?")
    says("misspelled command", ["lable", "a.png"], 2, r"^glccl: unknown command 'lable'; did you mean 'label'\?")
    says("misspelled help topic", ["help", "valdiate"], 2,
         r"^glccl: no help for unknown command 'valdiate'; did you mean 'validate'\?")
    run = check.run("label", "a.png", "--zzzz")
    check.report("no suggestion for a stranger", "did you mean" not in run.stderr and run.returncode == 2,
                 f"({run.stderr.strip()!r})")

    # A connectivity that does not fit a volume: a usage error.
    says("image connectivity for a volume", ["label", "v.npy", "--connectivity", "8", "--backend", "cpu"], 2,
         r"^glccl: v\.npy: --connectivity: connectivity 8 is for 2-D images; a volume takes 6, 18 or 26")
    says("image connectivity for a volume in bricks",
         ["label", "v.npy", "--tile", "8x8x8", "--connectivity", "8", "--backend", "cpu"], 2,
         r"--connectivity: connectivity 8 is for 2-D images; a volume takes 6, 18 or 26")

    # Folders that are not.
    with open("afile", "w") as f:
        f.write("x")
    says("--out-dir a file", ["label", "a.png", "--out-dir", "afile", "--labels"], 1,
         r"^glccl: --out-dir: 'afile' is a regular file, not a folder")
    says("--diff-dir a file", ["validate", "--backends", "cpu", "--generate", "noise50@8x8", "--diff-dir", "afile"],
         1, r"^glccl: --diff-dir: 'afile' is a regular file, not a folder")
    says("--diff-dir not there yet", ["validate", "--backends", "cpu", "--generate", "noise50@8x8", "--diff-dir",
                                      "new/diffs"], 0, r"^1 input, 1 comparison: 1 identical, 0 different$")
    says("--diff-dir under a file", ["validate", "--backends", "cpu", "--generate", "noise50@8x8", "--diff-dir",
                                     "afile/diffs"], 1, r"^glccl: --diff-dir: .*'afile' is a regular file")

    # A folder's odd entries are failures, as the same paths named one by one.
    os.makedirs("folder")
    check.run("generate", "spiral", "40x30", "folder/b.png")
    os.symlink("nothing-here.png", "folder/dangling.png")
    os.mkfifo("folder/pipe.png")
    os.makedirs("folder/sub.png")
    says("folder with a dangling link and a FIFO", ["label", "folder", "--backend", "cpu"], 1,
         r"^3 inputs, 1 labeled, 2 failed, total")
    run = check.run("label", "folder", "--backend", "cpu")
    check.report("folder's dangling link named", "folder/dangling.png" in run.stderr, f"({run.stderr.strip()!r})")
    check.report("folder's FIFO named", "folder/pipe.png: input 'folder/pipe.png' is a FIFO" in run.stderr,
                 f"({run.stderr.strip()!r})")
    alone = check.run("label", "folder/dangling.png", "folder/pipe.png", "--backend", "cpu")
    check.report("named one by one, the same failures", alone.returncode == run.returncode and
                 sorted(alone.stderr.splitlines()) == sorted(run.stderr.splitlines()),
                 f"(folder: {run.stderr!r}; named: {alone.stderr!r})")

    # Counts.
    os.makedirs("one")
    check.run("generate", "comb", "40x30", "one/c.png")
    says("one input", ["label", "one", "--backend", "cpu"], 0, r"^1 input, 1 labeled, 0 failed, total")

    # A list with an item left out is a typo: refused, not read as a shorter list.
    for text in ("area,,centroid", "area,", ",area"):
        says(f"an empty item in --properties {text}", ["label", "a.png", "--backend", "cpu", "--properties", text,
                                                         "--stats", "t.csv"], 2,
             r"^glccl: --properties: the list '.*' has an empty item")
    says("an empty item in --spacing", ["label", "a.png", "--backend", "cpu", "--properties", "area", "--spacing",
                                        "1,,1", "--stats", "t.csv"], 2, r"^glccl: --spacing: the list '1,,1' has an empty item")
    check.report("no table where a list was refused", not os.path.exists("t.csv"), "(t.csv written)")
    # An .npy whose fortran_order is neither True nor False says what it is.
    with open("fortran.npy", "wb") as f:
        header = "{'descr': '|u1', 'fortran_order': 'True', 'shape': (2, 3), }"
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"  # numpy's: data at a multiple of 64
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + bytes(6))
    says("fortran_order a string", ["label", "fortran.npy", "--backend", "cpu"], 1,
         r"fortran_order is 'True', not True or False")

    # In tiles too, no output is an input: the intensity the properties
    # read is not overwritten by --labels, even with --force.
    check.run("generate", "noise50", "64x48", "intensity.npy")
    with open("intensity.npy", "rb") as f:
        intensity = f.read()
    says("tiles: --labels is the --intensity", ["label", "a.png", "--backend", "cpu", "--tile", "16x16", "--labels",
                                               "intensity.npy", "--stats", "p.csv", "--properties", "label,intensity_mean",
                                               "--intensity", "intensity.npy", "--force"], 2,
         r"^glccl: --labels 'intensity\.npy' is the input 'intensity\.npy'")
    with open("intensity.npy", "rb") as f:
        check.report("tiles: the intensity kept", f.read() == intensity, "(intensity.npy changed)")
    says("tiles: a brick's depth for an image", ["label", "a.png", "--backend", "cpu", "--tile", "16x16x4", "--labels",
                                                "bricks.npy"], 2, r"--tile: a WxHxD brick is for a volume; this is a 2-D image")

    # A table printed on standard output that could not all be written
    # (a full disk, a file past ulimit -f) fails, as a --stats file does.
    if os.path.exists("/dev/full"):
        def into_full(args):
            with open("/dev/full", "w") as full:
                return subprocess.run([check.glccl, *args], stdout=full, stderr=subprocess.PIPE, text=True)
        for args in (["measure", "v.npy", "--properties", "label,area,centroid"], ["label", "a.png", "--backend", "cpu"],
                     ["--help"]):
            run = into_full(args)
            run.stdout = ""
            check.report("standard output full: " + " ".join(args),
                         run.returncode == 1 and "cannot write to standard output" in run.stderr,
                         f"(exit {run.returncode}: {run.stderr.strip()!r})")
    else:
        print("skipped: standard output full (no /dev/full here)")

    # Without a GL context: the reasons given are in the same words.
    no_gl = dict(os.environ, __EGL_VENDOR_LIBRARY_FILENAMES=os.path.abspath("no_such_vendor.json"))
    for args in (["validate", "--generate", "noise50@8x8"], ["label", "a.png"], ["label", "a.png", "--backend", "raster"],
                 ["bench", "--backends", "cpu", "--families", "noise50", "--sizes", "16", "--reps", "1",
                  "--floor-mib", "1"], ["backends"]):
        run = subprocess.run([check.glccl, *args], capture_output=True, text=True, env=no_gl)
        said = run.stdout + run.stderr
        check.report(f"no GL context, glccl {args[0]}: no C++ name", CPP_NAME.search(said) is None, said.strip())

    if mpi:
        check.run("generate", "noise50", "64x48", "m.npy")
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        for ranks in ("1", "2"):
            run = subprocess.run(["mpirun", "-n", ranks, "--oversubscribe", mpi, "label", "m.npy", "--backend", "cpu"],
                                 capture_output=True, text=True, env=env)
            device = re.search(r"^m\.npy: 64x48, \d+ components, [0-9.]+ ms \(cpu, (.*)\)$", run.stdout, re.M)
            check.report(f"glccl-mpi names its device ({ranks} ranks)",
                         run.returncode == 0 and device is not None and device.group(1).startswith("CPU"),
                         f"({run.stdout.strip()!r} {run.stderr.strip()!r})")
        run = subprocess.run(["mpirun", "-n", "1", mpi, "label", "m.npy", "--tiel", "64"], capture_output=True,
                             text=True, env=env)
        check.report("glccl-mpi: did you mean", "did you mean '--tile'?" in run.stderr and run.returncode == 2,
                     f"({run.stderr.strip()!r})")
    check.finish()


if __name__ == "__main__":
    main()
