"""glccl label --memory-limit holds for the densest content (docs/huge-images.md).

    tiles_memory_limit_test.py GLCCL SCRATCH

Inputs with the most components their connectivity allows (a 1-pixel
checkerboard at 4, isolated dots at 8, their 3-D kin at 6 and 26), binary
noise, and gray noise under the segments criterion (a component nearly every
pixel) are labeled in tiles under several limits on the cpu backend. Each
run's peak resident memory (wait4's ru_maxrss of that process alone) must stay
within its --memory-limit, and within the memory the run says it planned for,
give or take ALLOWANCE: what the plan cannot see when it is made, the code of
the labeling run for the first time after planning and the stacks of the
threads started after it (a run of a 64x64 image peaks at about 11 MiB, all of
it there when the plan is made). Its labels and table must equal the
one-piece reference backend's byte for byte. A limit no tiles hold, and tiles
given that break the limit, are refused up front: exit status 2, the reason,
nothing written.

With --properties, the regions' sums are held within the limit too: a run
whose sums it holds peaks within it and gives the reference backend's table;
one whose sums pass it stops with the reason (exit 1), nothing written.

Prints one line per failure, then "N runs within their limits, 0 failed".
"""

import filecmp
import json
import os
import subprocess
import sys

MIB = 1 << 20
ALLOWANCE = 4 * MIB

glccl, scratch = os.path.abspath(sys.argv[1]), sys.argv[2]
os.makedirs(scratch, exist_ok=True)
os.chdir(scratch)
for name in os.listdir("."):
    os.remove(name)


def peak_of(command):
    """Runs `command`; its exit status, output and peak resident bytes."""
    with open("out.txt", "w") as out, open("err.txt", "w") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
    with open("out.txt") as out, open("err.txt") as err:
        return os.waitstatus_to_exitcode(status), out.read(), err.read(), usage.ru_maxrss * 1024


# The inputs are made by another process: a child's peak counts the peak
# of the process that started it, so this one stays small (no numpy, no
# whole file read).
subprocess.run([sys.executable, "-c", """
import numpy as np
n = 2048
y, x = np.mgrid[0:n, 0:n]
np.save("checkerboard.npy", ((x + y) % 2 * 255).astype(np.uint8))
np.save("dots.npy", ((x % 2 == 0) & (y % 2 == 0)).astype(np.uint8) * 255)
np.save("noise.npy", (np.random.default_rng(7).random((n, n)) < 0.5).astype(np.uint8) * 255)
np.save("gray.npy", np.random.default_rng(8).integers(0, 256, (n, n), dtype=np.uint8))
m = 96
z, y, x = np.mgrid[0:m, 0:m, 0:m]
np.save("checkerboard3d.npy", ((x + y + z) % 2 * 255).astype(np.uint8))
np.save("dots3d.npy", ((x % 2 == 0) & (y % 2 == 0) & (z % 2 == 0)).astype(np.uint8) * 255)
"""], check=True)

# (input, connectivity, criterion, limits, extra options)
runs = [
    ("checkerboard", 4, "binary", ["64M", "128M", "256M"], []),
    ("checkerboard", 4, "binary", ["128M"], ["--label-type", "uint64"]),
    ("dots", 8, "binary", ["64M", "128M", "256M"], []),
    ("noise", 4, "binary", ["64M", "256M"], []),
    ("gray", 4, "segments", ["96M", "256M"], []),
    ("checkerboard3d", 6, "binary", ["128M", "256M"], []),
    ("dots3d", 26, "binary", ["64M"], []),
]

failed = passed = 0
# Under AddressSanitizer a peak counts its shadow and its quarantine of freed
# blocks: the peaks are checked in the plain build only. There each input is
# labeled under its smallest limit alone (the most tiles), against the
# reference: the other limits are there for their peaks.
sanitized = subprocess.run(["grep", "-q", "__asan_init", glccl]).returncode == 0
if sanitized:
    runs = [(name, connectivity, criterion, limits[:1], extra)
            for name, connectivity, criterion, limits, extra in runs]


def fail(text):
    global failed
    failed += 1
    print("FAILED:", text)


references = {}
for name, connectivity, criterion, limits, extra in runs:
    key = (name, connectivity, criterion, tuple(extra))
    if key not in references:
        reference = "ref_%d" % len(references)
        status, _, err, _ = peak_of([glccl, "label", name + ".npy", "--backend", "reference",
                                     "--connectivity", str(connectivity), "--criterion", criterion,
                                     "--labels", reference + ".npy", "--stats", reference + ".csv"] + extra)
        if status != 0:
            fail("reference %s: %s" % (name, err.strip()))
            continue
        references[key] = reference
    reference = references[key]
    for limit in limits:
        what = "%s at %d, %s, --memory-limit %s %s" % (name, connectivity, criterion, limit, " ".join(extra))
        status, out, err, peak = peak_of([glccl, "label", name + ".npy", "--backend", "cpu",
                                          "--connectivity", str(connectivity), "--criterion", criterion,
                                          "--memory-limit", limit, "--labels", "l.npy", "--stats", "s.csv",
                                          "--force", "--json"] + extra)
        if status != 0:
            fail("%s: exit status %d: %s" % (what, status, err.strip()))
            continue
        planned = json.loads(out)[0]["tiled"]["memory_planned_mib"] * MIB
        bound = int(limit[:-1]) * MIB
        # Compared a block at a time: this process stays small.
        same_labels = filecmp.cmp("l.npy", reference + ".npy", shallow=False)
        same_table = filecmp.cmp("s.csv", reference + ".csv", shallow=False)
        if peak > bound + ALLOWANCE and not sanitized:
            fail("%s: peak %.1f MiB past the limit" % (what, peak / MIB))
        elif peak > planned + ALLOWANCE and not sanitized:
            fail("%s: peak %.1f MiB past the %.1f MiB planned for" % (what, peak / MIB, planned / MIB))
        elif not (same_labels and same_table):
            fail("%s: the labels or table differ from the reference backend's" % what)
        else:
            passed += 1

# With --properties the regions' sums grow with their count: they are kept
# within the limit too. Binary noise at 4 (some 280 000 regions) under a
# limit that holds its sums: the peak within it, the table the reference
# backend's. Dots at 8 (a region every 4 pixels) under one that does not:
# the run stops once past it, says so, and writes nothing (a table there
# before stays as it was).
PROPERTIES = "label,area,centroid,moments_central,perimeter,euler_number"
if not sanitized:  # a sanitizer's shadow memory counts in the process's own
    what = "noise at 4 with --properties under 800M"
    status, _, err, _ = peak_of([glccl, "label", "noise.npy", "--backend", "reference", "--connectivity", "4",
                                 "--properties", PROPERTIES, "--stats", "props_ref.csv"])
    status, _, err, peak = peak_of([glccl, "label", "noise.npy", "--backend", "cpu", "--connectivity", "4",
                                    "--memory-limit", "800M", "--tile", "512", "--properties", PROPERTIES,
                                    "--stats", "props.csv", "--force"])
    if status != 0:
        fail("%s: exit status %d: %s" % (what, status, err.strip()))
    elif peak > 800 * MIB + ALLOWANCE:
        fail("%s: peak %.1f MiB past the limit" % (what, peak / MIB))
    elif not filecmp.cmp("props.csv", "props_ref.csv", shallow=False):
        fail("%s: the table differs from the reference backend's" % what)
    else:
        passed += 1
with open("kept.csv", "w") as kept:
    kept.write("there before\n")
status, _, err, _ = peak_of([glccl, "label", "dots.npy", "--backend", "cpu", "--connectivity", "8", "--memory-limit",
                             "128M", "--properties", PROPERTIES, "--stats", "kept.csv", "--labels", "kept.npy",
                             "--force"])
with open("kept.csv") as kept:
    before = kept.read() == "there before\n"
if status != 1 or "measuring the properties asked past the memory limit of 128 MiB" not in err or not before \
        or os.path.exists("kept.npy"):
    fail("dots at 8 with --properties under 128M: exit status %d, table kept %s, %r" % (status, before, err.strip()))
else:
    passed += 1

# A limit no tiles hold, and given tiles past the limit: refused before
# anything is labeled, with the reason, nothing written.
for what, options, reason in [
        ("a limit too small", ["--memory-limit", "24M"], "is too small for a 2048x2048 image"),
        ("tiles past the limit", ["--memory-limit", "64M", "--tile", "2048x2048"],
         "does not hold tiles of 2048x2048")]:
    for name in ("refused.npy", "refused.csv"):
        if os.path.exists(name):
            os.remove(name)
    status, _, err, _ = peak_of([glccl, "label", "checkerboard.npy", "--backend", "cpu", "--connectivity", "4",
                                 "--labels", "refused.npy", "--stats", "refused.csv"] + options)
    if status != 2 or reason not in err or os.path.exists("refused.npy") or os.path.exists("refused.csv"):
        fail("%s: exit status %d, %r" % (what, status, err.strip()))
    else:
        passed += 1

print("%d runs within their limits, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
