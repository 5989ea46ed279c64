"""glccl backends says which backends run here and on what: where this
machine has no GPU device node, every GL backend that runs is a software
renderer; where the CUDA driver reports no device, cuda does not run; cpu
and the reference run on the CPU.

usage: cli_backends_test.py GLCCL"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from machine_facts import cuda_driver_devices, gpu_device_nodes  # noqa: E402

GLCCL = sys.argv[1]


def main():
    done = subprocess.run([GLCCL, "backends"], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        print(f"FAIL: glccl backends exited {done.returncode}: {done.stderr}")
        return 1
    lines = done.stdout.splitlines()
    header = lines[0].split()
    rows = {}
    for line in lines[1:]:
        # backend, runs, then "on" (one or two words), device and note.
        words = line.split()
        rows[words[0]] = (words[1], line)
    failures = []
    if header[:3] != ["backend", "runs", "on"]:
        failures.append(f"unexpected header: {lines[0]}")
    if sorted(rows) != ["auto", "compute", "cpu", "cuda", "raster", "reference"]:
        failures.append(f"unexpected backends: {sorted(rows)}")
    for name in ("cpu", "reference"):
        runs, line = rows.get(name, ("", ""))
        if runs != "yes" or " CPU " not in line:
            failures.append(f"{name} does not run on the CPU: {line}")
    if cuda_driver_devices() == 0 and rows.get("cuda", ("",))[0] != "no":
        failures.append(f"cuda runs where the CUDA driver reports no device: {rows.get('cuda')}")
    if not gpu_device_nodes():
        for name in ("compute", "raster"):
            runs, line = rows.get(name, ("", ""))
            if runs == "yes" and "software renderer" not in line:
                failures.append(f"{name} runs without a GPU but is not called a software renderer: {line}")
        if "GPU" in [line.split()[2] for _, line in rows.values()]:
            failures.append("a backend is said to run on a GPU where there is none")
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        print(done.stdout)
        return 1
    print("glccl backends: " + ", ".join(f"{name} {runs}" for name, (runs, _) in rows.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
