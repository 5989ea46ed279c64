"""glccl label shows a progress line on a terminal for a labeling past a
second: on stderr, rewritten in place with the percentage done rising to
the end, and erased before the results; none when stderr is a pipe or with
--quiet. The labels are checked against scipy.

usage: cli_progress_test.py GLCCL WORKDIR"""

import json
import math
import os
import pty
import re
import select
import subprocess
import sys

import numpy as np
from scipy import ndimage

GLCCL, WORK = sys.argv[1], sys.argv[2]
# The noise is sized for about 2 s of one thread of the cpu engine (a
# progress line shows past a second), from the time that thread takes on a
# smaller one: the same margin on a fast machine and in a sanitizer build,
# where every pixel costs several times more. Never past LARGEST.
TARGET_MILLISECONDS = 2000
CALIBRATION = 3000
LARGEST = 14000


def run(arguments, terminal):
    """Runs glccl with stdout on a pipe and stderr on a pseudo-terminal (or
    a pipe); returns (status, stdout, stderr)."""
    if not terminal:
        done = subprocess.run([GLCCL] + arguments, capture_output=True, timeout=300)
        return done.returncode, done.stdout.decode(), done.stderr.decode()
    leader, follower = pty.openpty()
    process = subprocess.Popen([GLCCL] + arguments, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL)
    os.close(follower)
    err = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 300)
        if not ready:
            process.kill()
            raise SystemExit("glccl label did not finish in 300 s")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the follower side is closed
            break
        if not chunk:
            break
        err += chunk
    out = process.stdout.read().decode()
    process.wait(timeout=60)
    os.close(leader)
    return process.returncode, out, err.decode(errors="replace")


def generate(path, side):
    subprocess.run([GLCCL, "generate", "noise50", f"{side}x{side}", path, "--force"], check=True,
                   capture_output=True)


def side_for_target(image):
    """The side of a square of noise one thread labels in about
    TARGET_MILLISECONDS, from its time on a CALIBRATION-sided one."""
    generate(image, CALIBRATION)
    done = subprocess.run([GLCCL, "label", image, "--backend", "cpu", "--threads", "1", "--json"],
                          capture_output=True, timeout=300, check=True)
    milliseconds = max(json.loads(done.stdout)[0]["milliseconds"], 1.0)
    side = int(CALIBRATION * math.sqrt(TARGET_MILLISECONDS / milliseconds))
    print(f"{CALIBRATION}x{CALIBRATION} labeled in {milliseconds:.0f} ms: {side}x{side} for the test")
    return min(max(side, CALIBRATION), LARGEST)


def main():
    os.makedirs(WORK, exist_ok=True)
    image = os.path.join(WORK, "noise.npy")
    labels = os.path.join(WORK, "labels.npy")
    generate(image, side_for_target(image))
    label = ["label", image, "--backend", "cpu", "--threads", "1", "--json"]

    failures = []
    status, out, err = run(label + ["--labels", labels, "--force"], terminal=True)
    if status != 0:
        raise SystemExit(f"glccl label failed ({status}): {err}")
    result = json.loads(out)[0]
    milliseconds = result["milliseconds"]
    want, n = ndimage.label(np.load(image), np.ones((3, 3), bool))
    if result["components"] != n or not np.array_equal(np.load(labels), want):
        failures.append("the labels differ from scipy's")
    percents = [int(p) for p in re.findall(r"labeling [^\r]*?: *(\d+)% \(", err)]
    print("last progress line:", err.split("\r")[-2:-1])
    if milliseconds < 1200:
        print(f"skipped: the labeling took {milliseconds:.0f} ms, too short for a progress line")
        return 0
    if not percents:
        failures.append(f"no progress line on a terminal for a {milliseconds:.0f} ms labeling: {err!r}")
    else:
        if percents != sorted(percents):
            failures.append(f"the percentage went back: {percents}")
        if not all(0 <= p <= 100 for p in percents):
            failures.append(f"a percentage outside 0..100: {percents}")
        if not err.endswith("\r\x1b[K"):
            failures.append(f"the line was not erased at the end: {err[-80:]!r}")
        if "\n" in err:
            failures.append(f"the progress line wrote whole lines: {err!r}")

    for name, arguments, terminal in [("stderr a pipe", label, False),
                                      ("--quiet on a terminal", label + ["--quiet"], True)]:
        status, out, err = run(arguments, terminal)
        if status != 0:
            failures.append(f"{name}: glccl label failed ({status}): {err}")
        elif "labeling" in err or "%" in err or "\r" in err:
            failures.append(f"{name}: a progress line was printed: {err!r}")

    for failure in failures:
        print("FAIL:", failure)
    if failures:
        return 1
    print("progress line on a terminal, none on a pipe or with --quiet; labels identical to scipy")
    return 0


if __name__ == "__main__":
    try:
        status = main()
    finally:
        for name in ("noise.npy", "labels.npy"):  # a gigabyte between them
            if os.path.exists(os.path.join(WORK, name)):
                os.remove(os.path.join(WORK, name))
    sys.exit(status)
