"""The frame shared by the scripts that check the `glccl` command end to end
(gl_npy_dtypes_cli.py, gl_volumes_cli.py), each run as

    SCRIPT GLCCL SCRATCH

CliCheck() takes the command and the scratch folder from the command line,
empties the folder and works in it; run() calls the command; report() counts
each result and prints a line per difference; finish() ends the script with
"N identical, M different" and exits 1 when any differs."""

import os
import shutil
import subprocess
import sys

# glccl's connectivities as scipy's and scikit-image's ranks (neighbours
# within that many steps along the axes).
RANKS = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}


class CliCheck:
    def __init__(self):
        self.glccl, scratch = sys.argv[1], sys.argv[2]
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
        os.chdir(scratch)
        self.identical = self.different = 0

    def run(self, *args):
        return subprocess.run([self.glccl, *args], capture_output=True, text=True)

    def report(self, name, ok, detail=""):
        if ok:
            self.identical += 1
        else:
            self.different += 1
            print(f"DIFFERENT: {name} {detail}")

    def finish(self):
        print(f"{self.identical} identical, {self.different} different")
        sys.exit(1 if self.different else 0)
