#!/usr/bin/env python3
"""Compares the machine code of the CUDA kernels of two revisions, kernel by
kernel: each cuda/src/*.cu compiled to an sm_90 cubin (nvcc -cubin), then
every kernel's .text section of the old revision against the new one's.
No GPU needed. For changes that must leave some kernels' code as it was
(the 8-bit binary kernels when the sample types grow, say):

    python3 bench/cubin_diff.py OLD_REV [NEW_REV] [--arch sm_90] [--map OLD_REGEX=NEW ...]

NEW_REV defaults to the working tree. A kernel whose template arguments
were renamed is found through --map: regular expressions applied to the
old mangled name (the anonymous namespace's per-file hash is taken out of
every name first). Prints SAME, DIFFERS (with both sizes) or MISSING per
kernel of the old revision; exits 0."""

import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile


def sections(path):
    """Section name -> bytes of an ELF64 file (NOBITS sections as zeros)."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strings = headers[shstrndx][4]
    out = {}
    for name, kind, _, _, offset, size in headers:
        end = data.index(b"\0", strings + name)
        out[data[strings + name:end].decode()] = data[offset:offset + size] if kind != 8 else b"\0" * size
    return out


def without_file_hash(name):
    """The anonymous namespace's name (_GLOBAL__N__<hash>_<file>...) out of a mangled name."""
    while True:
        match = re.search(r"(\d+)_GLOBAL__N__", name)
        if not match:
            return name
        length = int(match.group(1))
        start = match.start(1) + len(match.group(1))
        name = name[:match.start()] + "ANON" + name[start + length:]


def cubins(tree, arch, out):
    """Every cuda/src/*.cu of `tree` compiled into `out`; returns their stems."""
    nvcc = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
    src = os.path.join(tree, "cuda", "src")
    stems = []
    for file in sorted(os.listdir(src)):
        if not file.endswith(".cu"):
            continue
        stem = file[:-3]
        subprocess.run([nvcc, "-cubin", "-arch=" + arch, "-O3", "-DNDEBUG", "-std=c++17",
                        '-DGLCCL_CUDA_ARCHITECTURES="90"', "-I" + os.path.join(tree, "cuda", "include"), "-I" + src,
                        "-I" + os.path.join(tree, "host", "include"), "-I" + os.path.join(tree, "host", "internal"),
                        "-x", "cu", os.path.join(src, file), "-o", os.path.join(out, stem + ".cubin")], check=True)
        stems.append(stem)
    return stems


def checkout(revision, into):
    """The cuda/ and host/ folders of `revision` into `into`."""
    archive = subprocess.run(["git", "archive", revision, "cuda", "host"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new", nargs="?")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--map", action="append", default=[], help="OLD_REGEX=NEW, applied to old kernel names")
    args = parser.parse_args()
    maps = [m.split("=", 1) for m in args.map]
    with tempfile.TemporaryDirectory() as scratch:
        trees = {}
        for side, revision in (("old", args.old), ("new", args.new)):
            if revision is None:
                trees[side] = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True,
                                             capture_output=True, text=True).stdout.strip()
            else:
                trees[side] = os.path.join(scratch, side + "-tree")
                os.makedirs(trees[side])
                checkout(revision, trees[side])
            os.makedirs(os.path.join(scratch, side))
        stems = cubins(trees["old"], args.arch, os.path.join(scratch, "old"))
        cubins(trees["new"], args.arch, os.path.join(scratch, "new"))
        for stem in stems:
            new_path = os.path.join(scratch, "new", stem + ".cubin")
            if not os.path.exists(new_path):
                print(f"{stem}: MISSING file")
                continue
            old = {without_file_hash(k): v for k, v in sections(os.path.join(scratch, "old", stem + ".cubin")).items()}
            new = {without_file_hash(k): v for k, v in sections(new_path).items()}
            for name in sorted(old):
                if not name.startswith(".text."):
                    continue
                kernel = name[len(".text."):]
                target = kernel
                for pattern, replacement in maps:
                    target = re.sub(pattern, replacement, target)
                if ".text." + target not in new:
                    print(f"{stem}: MISSING {kernel}")
                elif old[name] == new[".text." + target]:
                    print(f"{stem}: SAME    {kernel}")
                else:
                    print(f"{stem}: DIFFERS {kernel} ({len(old[name])} -> {len(new['.text.' + target])} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
