"""`glccl label` and `glccl label --tile` (the memory-mapped reader) on .npy
files whose headers are written by hand, against numpy itself: every header
glccl reads, numpy reads too, as the same array (its labels those of
scipy.ndimage.label); the headers numpy writes are read; and a refusal names
what is wrong in full (a structured dtype whole, the shapes that are read,
volumes included).

    npy_headers_cli.py GLCCL SCRATCH

Reports through cli_check.py."""

import io

import numpy as np
from scipy import ndimage

from cli_check import CliCheck

check = CliCheck()
run, report = check.run, check.report


def npy_file(path, dict_text, data):
    header = dict_text + " " * ((64 - (10 + len(dict_text) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1") + data)


def numpy_reads(path):
    try:
        return np.load(path, allow_pickle=False)
    except Exception:  # numpy refuses the header or the data
        return None


def elements_numpy_reads(dict_text):
    """The element count of the header, as numpy reads it; 20 where numpy
    refuses it (the data is then beside the point)."""
    npy_file("probe.npy", dict_text, b"")
    try:
        with open("probe.npy", "rb") as f:
            np.lib.format.read_magic(f)
            shape, _, _ = np.lib.format.read_array_header_1_0(f)
        return max(0, int(np.prod(shape)))
    except Exception:
        return 20


rng = np.random.default_rng(3)
shapes = ["(4, 5)", "(4,5)", "( 4 , 5 )", "(4, 5,)", "(4, 5, 6)", "(4,5,6,)", "(4, 5, 6,,)", "(04, 5, 6)",
          "(4 5)", "(4)", "(,)", "(4,,5)", "[4, 5]", "(4, 5", "4, 5", "(-4, 5)", "(4.0, 5)", "(0x4, 5)", "(4, 5))",
          "(4, 5) x", "(4, 5, 6, 1)", "(1, 4, 5, 6)", "()", "(120,)", "(4, 0x5)", "(4_0, 3)", "(\t4, 5)"]
dicts = ["{'descr': '|u1', 'fortran_order': False, 'shape': %s, }",
         "{'shape': %s, 'fortran_order': False, 'descr': '|u1'}",
         "{'descr': '<u1', 'fortran_order': False, 'shape': %s}"]
others = ["{'descr': '|u1', 'fortran_order': False, 'shape': (4, 5), } x",
          "'descr': '|u1', 'fortran_order': False, 'shape': (4, 5)",
          "{'descr': '|u1', 'fortran_order': false, 'shape': (4, 5), }",
          "{'descr': '|u1', 'fortran_order': 0, 'shape': (4, 5), }",
          "{'descr': '|u1', 'shape': (4, 5), }",
          "{'descr': '|u1', 'fortran_order': False, 'shape': (4, 5), 'extra': 1, }",
          "{'descr': 'u1', 'fortran_order': False, 'shape': (4, 5), }",
          "{'descr': '|u1' , 'fortran_order': False , 'shape': (4, 5) , }",
          "{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (4, 5)}"]
headers = [d % shape for d in dicts for shape in shapes] + others
read_by_glccl = read_by_both = 0
for i, header in enumerate(headers):
    path = f"h{i}.npy"
    npy_file(path, header, bytes(rng.integers(0, 2, elements_numpy_reads(header)).astype(np.uint8)))
    expected = numpy_reads(path)
    for extra in ([], ["--tile", "64"]):
        result = run("label", path, "--backend", "cpu", "--labels", "l.npy", "--force", *extra)
        name = f"{header!r} {' '.join(extra)}"
        if result.returncode != 0:
            # A refusal is one sentence on stderr, never a crash.
            report(name + " refused in words", result.returncode == 1 and result.stderr.startswith("glccl: ")
                   and "Traceback" not in result.stderr, result.stderr)
            continue
        read_by_glccl += 1
        if expected is None:
            report(name + " read by glccl, refused by numpy", False)
            continue
        read_by_both += 1
        structure = ndimage.generate_binary_structure(expected.ndim, expected.ndim)
        report(name, np.array_equal(np.load("l.npy"), ndimage.label(expected, structure)[0]))
# The headers numpy writes are among those read.
for shape in ((4, 5), (3, 4, 5), (1, 7), (7, 1)):
    buffer = io.BytesIO()
    np.save(buffer, np.ones(shape, np.uint8))
    with open("numpy.npy", "wb") as f:
        f.write(buffer.getvalue())
    result = run("label", "numpy.npy", "--backend", "cpu")
    report(f"numpy's own header of {shape}", result.returncode == 0, result.stderr)

# Refusals in full: a structured dtype named whole, 4-D shapes with the
# shapes that are read, volumes included.
np.save("structured.npy", np.zeros((3, 4), dtype=[("a", "u1"), ("b, c)", "<u2")]))
result = run("label", "structured.npy", "--backend", "cpu")
report("structured dtype named whole", result.returncode == 1 and
       "[('a', '|u1'), ('b, c)', '<u2')]" in result.stderr, result.stderr)
np.save("four.npy", np.zeros((2, 3, 4, 5), np.uint8))
for extra in ([], ["--tile", "64"]):
    result = run("label", "four.npy", "--backend", "cpu", *extra)
    report(f"4-D shape {extra}", result.returncode == 1 and "(height, width), volumes (depth, height, width), or "
           "(height, width, 1|3|4) with the channel axis named" in result.stderr, result.stderr)
print(f"{len(headers)} headers: {read_by_glccl} read by glccl, {read_by_both} of them by numpy too")
check.finish()
