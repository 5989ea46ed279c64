#!/usr/bin/python3
"""glccl label end to end on every input format and depth, against scikit-image.

Arrays are written by outside libraries (Pillow for PNG and JPEG, tifffile
for TIFF, NumPy for .npy) or by hand from the Netpbm specification (PGM/PPM),
labeled by the glccl command with the cpu, raster and compute backends
(cpu at both connectivities, each GL engine at the two in turn over the
criteria), and the labels compared with skimage.measure.label on
the same arrays, which compares full sample values. The label images glccl
writes (--label-image) are read back with Pillow and tifffile. Color PNG,
JPEG, TIFF and PPM files read as luma are compared with OpenCV's
cv2.imread(..., IMREAD_GRAYSCALE) pixel for pixel (skipped, with the reason,
where cv2 cannot be imported). The raster backend in an OpenGL ES context
(--gl es), and the compute backend where that context is ES 3.1 or newer,
label the bundled sample and the 16-bit inputs, compared with the cpu
backend's labels byte for byte, and their refusals are checked.

usage: gl_image_formats.py GLCCL_COMMAND WORK_DIR
"""

import concurrent.futures
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

try:
    import numpy as np
    import tifffile
    from PIL import Image
    from skimage.measure import label as sk_label
except ImportError as error:  # ctest reports the test as skipped (exit 77)
    print("skipped: %s (tools/install-deps.sh installs numpy, Pillow, tifffile, scikit-image)" % error)
    sys.exit(77)

GLCCL, WORK = sys.argv[1], sys.argv[2]
BACKENDS = ("cpu", "raster", "compute")
# glccl built with AddressSanitizer (tools/run-tests.sh runs this test in that
# build too, for the decoders' memory): there the luma of each color file is
# checked at one level, which decodes every file once; the plain build checks
# every level, which pins every pixel's value.
SANITIZED = subprocess.run(["grep", "-q", "__asan_init", GLCCL]).returncode == 0
rng = np.random.default_rng(15)
failures = []


def blobs(shape, values, density=0.45):
    """Random blobs (runs of pixels, so components span rows) of the given values."""
    h, w = shape
    picks = rng.integers(0, len(values), size=(h, w))
    array = np.asarray(values)[picks]
    keep = rng.random((h, w)) < density
    keep = keep | np.roll(keep, 1, axis=1)  # runs of two at least
    return np.where(keep, array, 0)


def write_pgm(path, array, maxval):
    magic = b"P5" if array.ndim == 2 else b"P6"
    data = array.astype(">u2" if maxval > 255 else "u1").tobytes()
    with open(path, "wb") as f:
        f.write(magic + b"\n# written by gl_image_formats.py\n%d %d\n%d\n" % (array.shape[1], array.shape[0], maxval) + data)


# name -> (array as labeled in gray mode, writer)
cases = {}
ids16 = np.zeros((4, 6), np.uint16)
ids16[:, :3], ids16[:, 3:] = 256, 257
mask16 = np.zeros((3, 7), np.uint16)
mask16[0, 0], mask16[1, 3], mask16[2, 6] = 1, 2, 300
cases["issue_ids16.png"] = ids16
cases["issue_mask16.png"] = mask16
cases["png8.png"] = blobs((37, 53), [1, 2, 200, 255]).astype(np.uint8)
cases["png16.png"] = blobs((41, 29), [1, 255, 256, 257, 65535]).astype(np.uint16)
cases["tif8.tif"] = blobs((23, 61), [3, 4, 250]).astype(np.uint8)
cases["tif16_deflate.tif"] = blobs((40, 40), [255, 256, 1000, 1001, 65534]).astype(np.uint16)
cases["tif32_tiled.tif"] = blobs((70, 50), [1, 16777216, 16777217, 4294967295]).astype(np.uint32)
cases["pgm8.pgm"] = blobs((19, 33), [9, 10, 11]).astype(np.uint8)
cases["pgm16.pgm"] = blobs((21, 17), [1, 300, 40000]).astype(np.uint16)
for dtype in (np.uint8, np.uint16, np.int32, np.uint32, np.float32):
    values = [1, 2, 255] + ([256, 70000] if dtype != np.uint8 else []) + ([2**31 - 1] if dtype in (np.int32, np.uint32) else [])
    array = blobs((25, 31), values).astype(dtype)
    cases["array_%s.npy" % np.dtype(dtype).name] = array
    cases["array_%s_fortran.npy" % np.dtype(dtype).name] = np.asfortranarray(array)
cases["array_bool.npy"] = blobs((25, 31), [1]).astype(bool)

os.makedirs(WORK, exist_ok=True)
inputs = os.path.join(WORK, "inputs")
shutil.rmtree(inputs, ignore_errors=True)
os.makedirs(inputs)
paths = []
for name, array in cases.items():
    path = os.path.join(inputs, name)
    if name.endswith(".png"):
        Image.fromarray(array).save(path)  # mode L or I;16
    elif name.endswith(".tif"):
        kwargs = {"compression": "zlib"} if "deflate" in name else {}  # tifffile alone has no LZW encoder
        if "tiled" in name:
            kwargs["tile"] = (16, 16)
        tifffile.imwrite(path, array, **kwargs)
    elif name.endswith(".pgm"):
        write_pgm(path, array, 255 if array.dtype == np.uint8 else 65535)
    else:
        np.save(path, array)
    paths.append(path)

# A JPEG mask (Pillow's libjpeg): flat blocks far from the level, so that
# compression noise cannot move a pixel across it.
jpeg_mask = np.kron(rng.integers(0, 2, (6, 8)), np.ones((8, 8))).astype(np.uint8) * 255
jpeg_path = os.path.join(inputs, "mask.jpg")
Image.fromarray(jpeg_mask).save(jpeg_path, quality=95)
cases["mask.jpg"] = np.asarray(Image.open(jpeg_path))
# An RGB PPM read as luma: OpenCV's BT.601 weights in 14-bit fixed point.
rgb = np.stack([blobs((13, 15), [10, 200]), blobs((13, 15), [20, 100]), blobs((13, 15), [30, 50])], axis=2)
ppm_path = os.path.join(inputs, "color.ppm")
write_pgm(ppm_path, rgb.astype(np.uint8), 255)
r, g, b = (rgb[..., c].astype(np.int64) for c in range(3))
cases["color.ppm"] = ((r * 4899 + g * 9617 + b * 1868 + 8192) >> 14).astype(np.uint32)
paths += [jpeg_path, ppm_path]


def expected_labels(array, criterion, connectivity):
    array = np.asarray(array).astype(np.uint64)
    if criterion == "binary":
        array = array != 0
    elif criterion.startswith("binary:"):
        array = array > int(criterion.split(":")[1])
    return sk_label(array, background=0, connectivity=1 if connectivity == 4 else 2)


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


# The cpu backend at both connectivities and every criterion. The GL engines'
# uploads and sample reads depend on the input's format, not on the
# connectivity (their connectivities are the criteria's and depths' tests'):
# each takes the two in turn over the criteria, raster starting at 4 and
# compute at 8, so that each meets both.
for backend in BACKENDS:
    for connectivity in (4, 8):
        for turn, criterion in enumerate(("binary", "segments", "binary:128")):
            if backend != "cpu" and connectivity != (4, 8)[(turn + (backend == "compute")) % 2]:
                continue
            out = os.path.join(WORK, "out_%s_%d_%s" % (backend, connectivity, criterion.replace(":", "")))
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            command = [GLCCL, "label", *paths, "--backend", backend, "--connectivity", str(connectivity),
                       "--criterion", criterion, "--out-dir", out, "--labels", "--label-image"]
            run = subprocess.run(command, capture_output=True, text=True)
            what = "%s %d-connectivity %s" % (backend, connectivity, criterion)
            if run.returncode != 0:
                failures.append("%s: exit %d\n%s%s" % (what, run.returncode, run.stdout, run.stderr))
                continue
            for path in paths:
                name = os.path.basename(path)
                if criterion == "binary:128" and name.startswith(("array_", "issue_")) is False and name != "mask.jpg":
                    continue  # one level test per kind of input is enough
                expected = expected_labels(cases[name], criterion, connectivity)
                labels = np.load(os.path.join(out, stem(path) + "_labels.npy"))
                if labels.shape != expected.shape or not np.array_equal(labels, expected):
                    failures.append("%s, %s: %d components, scikit-image %d" %
                                    (what, name, labels.max(initial=0), expected.max(initial=0)))
                    continue
                picture = os.path.join(out, stem(path) + "_labels.png")
                read_back = (np.asarray(Image.open(picture)) if os.path.exists(picture)
                             else tifffile.imread(os.path.join(out, stem(path) + "_labels.tif")))
                if not np.array_equal(read_back.astype(np.uint64), labels.astype(np.uint64)):
                    failures.append("%s, %s: the label image differs from the labels" % (what, name))
            print("%s: %d inputs compared" % (what, len(paths)))

# The issue's counts, stated once more on their own.
for name, count in (("issue_ids16.png", 2), ("issue_mask16.png", 3)):
    criterion = "segments" if "ids" in name else "binary"
    if expected_labels(cases[name], criterion, 8).max() != count:
        failures.append("scikit-image does not count %d in %s" % (count, name))

# ---- The GL engines in an OpenGL ES context (--gl es) ------------------------
# The bundled sample, the 16-bit inputs above and a 32-bit one (and a 16-bit
# color TIFF for threshold) labeled with --backend raster --gl es, each labels file equal
# byte for byte to the cpu backend's and to scikit-image: in the ES context
# the driver gives, with EXT_texture_norm16 taken away (16-bit gray as
# GL_R16UI), and in a true ES 3.0 context, on Mesa (MESA_EXTENSION_OVERRIDE,
# MESA_GLES_VERSION_OVERRIDE; other drivers ignore both and run the first
# again); and with --backend compute in the ES context the driver gives
# where it is ES 3.1 or newer with image atomics (binary at 4-connectivity,
# segments at 8). Then what --json and
# --timing say of the context and its timer queries, and the refusals:
# compute in ES 3.0, an option --gl es does not fit, no ES 3 context, 16-bit
# color without EXT_texture_norm16.
SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "samples", "blobs_and_text.png")


def check_gles():
    folder = os.path.join(WORK, "gles")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    rgb16 = blobs((19, 23), [300, 301, 65535]).astype(np.uint16)
    rgb16 = np.stack([rgb16, np.roll(rgb16, 1, axis=1), rgb16], axis=2)
    # tifffile writes 16-bit color, which Pillow's PNG writer does not.
    rgb16_path = os.path.join(folder, "rgb16.tif")
    tifffile.imwrite(rgb16_path, rgb16, photometric="rgb")
    deep = [n for n in cases if n.startswith(("png16", "tif16", "pgm16", "issue_")) or
            n in ("array_uint16.npy", "array_uint32.npy")]
    inputs = [SAMPLE] + [os.path.join(inputs_folder, n) for n in deep]

    def label(paths, backend, out, extra=(), env=None):
        os.makedirs(out, exist_ok=True)
        return subprocess.run([GLCCL, "label", *paths, "--backend", backend, "--out-dir", out, "--labels", "--force",
                               *extra],
                              capture_output=True, text=True, env=dict(os.environ, **(env or {})))

    probe = subprocess.run([GLCCL, "label", SAMPLE, "--backend", "raster", "--gl", "es", "--json"],
                           capture_output=True, text=True)
    mesa = "Mesa" in subprocess.run([GLCCL, "label", SAMPLE, "--backend", "raster", "--json"],
                                    capture_output=True, text=True).stdout
    if probe.returncode != 0:
        # Skipped where the driver gives no ES 3 context, but not on Mesa,
        # which always offers one through EGL.
        if mesa or "no headless GL context" not in probe.stderr:
            failures.append("--gl es: the sample is not labeled: %s" % probe.stderr.strip())
        else:
            print("--gl es skipped: %s" % probe.stderr.strip())
        return
    context = json.loads(probe.stdout)[0].get("context", "")
    if not context.startswith("OpenGL ES 3."):
        failures.append("--gl es --json: context %r, not OpenGL ES 3.x" % context)

    environments = {"es": {}, "es without EXT_texture_norm16": {"MESA_EXTENSION_OVERRIDE": "-GL_EXT_texture_norm16"},
                    "es 3.0": {"MESA_GLES_VERSION_OVERRIDE": "3.0"}}
    runs = [(name, env, "raster") for name, env in environments.items()]
    # Compute in ES on two of the cases only: each input format is a
    # program of its own for the software rasterizer to compile, and
    # tests/gl_gles.cpp labels generated and random images there.
    compute_cases = {(4, "binary"), (8, "segments")}
    compute_probe = subprocess.run([GLCCL, "label", SAMPLE, "--backend", "compute", "--gl", "es"],
                                   capture_output=True, text=True)
    if compute_probe.returncode == 0:
        runs.append(("es", {}, "compute"))
    elif mesa:
        failures.append("compute --gl es: Mesa offers ES 3.2, but the sample is not labeled: %s" %
                        compute_probe.stderr.strip())
    else:
        print("compute --gl es skipped: %s" % compute_probe.stderr.strip())
    compared = 0
    for connectivity in (4, 8):
        for criterion in ("binary", "segments", "binary:256", "threshold:1"):
            options = ("--connectivity", str(connectivity), "--criterion", criterion)
            what = "%d-connectivity %s" % (connectivity, criterion)
            paths = inputs + ([rgb16_path] if criterion.startswith("threshold") else [])
            if criterion == "binary:256":
                paths = paths[1:]  # past the sample's 8 bits
            reference = os.path.join(folder, "cpu_%d_%s" % (connectivity, criterion.replace(":", "")))
            run = label(paths, "cpu", reference, options)
            if run.returncode != 0:
                failures.append("--gl es, cpu %s: exit %d\n%s" % (what, run.returncode, run.stderr))
                continue
            for name, env, backend in runs:
                if backend == "compute" and (connectivity, criterion) not in compute_cases:
                    continue
                out = os.path.join(folder, "%s_%s_%d_%s" % (backend, name.replace(" ", "_"), connectivity,
                                                            criterion.replace(":", "")))
                es_paths = paths
                if name != "es" and criterion.startswith("threshold"):
                    # 16-bit color needs EXT_texture_norm16, which Mesa's ES
                    # 3.0 lacks too: refused below.
                    es_paths = paths[:-1]
                run = label(es_paths, backend, out, ("--gl", "es") + options, env)
                if run.returncode != 0:
                    failures.append("%s --gl es (%s), %s: exit %d\n%s" % (backend, name, what, run.returncode,
                                                                          run.stderr))
                    continue
                for path in es_paths:
                    stem_name = stem(path) + "_labels.npy"
                    with open(os.path.join(reference, stem_name), "rb") as f:
                        want = f.read()
                    with open(os.path.join(out, stem_name), "rb") as f:
                        got = f.read()
                    if got != want:
                        failures.append("%s --gl es (%s), %s, %s: the labels differ from the cpu backend's" %
                                        (backend, name, what, os.path.basename(path)))
                        continue
                    name_in_cases = os.path.basename(path)
                    if name_in_cases in cases and not criterion.startswith("threshold"):
                        expected = expected_labels(cases[name_in_cases], criterion, connectivity)
                        if not np.array_equal(np.load(os.path.join(out, stem_name)), expected):
                            failures.append("%s --gl es (%s), %s, %s: differs from scikit-image" %
                                            (backend, name, what, name_in_cases))
                            continue
                    compared += 1
    print("--gl es: %d labelings in OpenGL ES (%s) equal the cpu backend's byte for byte" %
          (compared, ", ".join("%s in %s" % (backend, name) for name, env, backend in runs)))

    # --json and --timing: the context, and stage times measured (at least
    # 100 ns) or null, never 0; without EXT_disjoint_timer_query all null.
    for name, env in (("es", {}), ("es without EXT_disjoint_timer_query",
                                   {"MESA_EXTENSION_OVERRIDE": "-GL_EXT_disjoint_timer_query"})):
        run = subprocess.run([GLCCL, "label", SAMPLE, "--backend", "raster", "--gl", "es", "--json", "--timing"],
                             capture_output=True, text=True, env=dict(os.environ, **env))
        if run.returncode != 0:
            failures.append("--gl es --timing (%s): exit %d: %s" % (name, run.returncode, run.stderr))
            continue
        printed = json.loads(run.stdout)[0]
        stages = printed.get("stages", {})
        if not printed.get("context", "").startswith("OpenGL ES") or not stages:
            failures.append("--gl es --json --timing (%s): context %r, stages %r" % (name, printed.get("context"),
                                                                                   stages))
        for stage, ms in stages.items():
            if not (ms is None or ms >= 1e-4) or ("disjoint" in name and mesa and ms is not None):
                failures.append("--gl es --timing (%s): stage %s reads %r" % (name, stage, ms))
        text = subprocess.run([GLCCL, "label", SAMPLE, "--backend", "raster", "--gl", "es", "--timing"],
                              capture_output=True, text=True, env=dict(os.environ, **env)).stdout
        if "  context: OpenGL ES" not in text or re.search(r"^  node_graph +0\.000$", text, re.M):
            failures.append("--gl es --timing (%s): the text does not name the context, or reads 0:\n%s" %
                            (name, text))

    # Refusals, each in words that name what to do.
    refusals = [
        (["--backend", "cpu", "--gl", "es"], {}, 2, "the cpu backend labels without one"),
        (["--backend", "raster", "--gl", "gles"], {}, 2, "expected desktop (OpenGL core profile) or es"),
        (["--backend", "raster", "--gl", "es", "--gl", "es"], {}, 2, "option --gl is given twice"),
        (["--backend", "raster", "--gl", "es", "--tile", "64"], {}, 2, "--gl es labels in one piece"),
    ]
    if mesa:
        refusals += [
            (["--backend", "compute", "--gl", "es"], {"MESA_GLES_VERSION_OVERRIDE": "3.0"}, 1,
             "it needs OpenGL ES 3.1 (compute shaders), the context is OpenGL ES 3.0"),
            (["--backend", "raster", "--gl", "es"], {"MESA_GLES_VERSION_OVERRIDE": "2.0"}, 1,
             "no EGL display gives an OpenGL ES 3.0 context"),
            (["--backend", "raster", "--gl", "es", "--criterion", "threshold:1", "INPUT=" + rgb16_path],
             {"MESA_EXTENSION_OVERRIDE": "-GL_EXT_texture_norm16"}, 1,
             "16-bit color images need GL_RGBA16, which an OpenGL ES context has only with EXT_texture_norm16"),
        ]
    for args, env, status, words in refusals:
        given = [a[len("INPUT="):] for a in args if a.startswith("INPUT=")]
        args = [a for a in args if not a.startswith("INPUT=")]
        run = subprocess.run([GLCCL, "label", *(given or [SAMPLE]), *args], capture_output=True, text=True,
                             env=dict(os.environ, **env))
        said = run.stderr.strip()
        if run.returncode != status or words not in said or "glccl::" in said:
            failures.append("glccl label %s (%s): exit %d, expected %d with %r: %s" %
                            (" ".join(args), env, run.returncode, status, words, said))
    print("--gl es: %d refusals checked" % len(refusals))


inputs_folder = inputs
check_gles()

# ---- Color files read as luma, against OpenCV's IMREAD_GRAYSCALE ------------
# glccl label reads a color file as one channel for binary, binary:L and
# segments. Color PNG, JPEG, TIFF and PPM files (dark colors, every PNG color
# chunk that can change the conversion, 16-bit samples, a photograph) are
# written by Pillow, OpenCV and tifffile; the luma glccl reads is compared
# with cv2.imread's pixel for pixel: for every value v OpenCV reads, glccl's
# mask at --criterion binary:(v-1) and binary:v must be exactly OpenCV's
# (gray > v-1) and (gray > v), which leaves glccl's value at every pixel v
# and nothing else. glccl refuses a level past its depth, so a 16-bit file
# read as 8 bits fails too.

def png_with_chunks(encoded, chunks):
    """PNG bytes with `chunks` ((type, data) pairs) inserted after IHDR."""
    ihdr_end = 8 + 8 + 13 + 4
    extra = b"".join(struct.pack(">I", len(data)) + kind + data +
                     struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF) for kind, data in chunks)
    return encoded[:ihdr_end] + extra + encoded[ihdr_end:]


def luma_cases(folder):
    """name -> (path, reference): the color files and what OpenCV reads of
    them as glccl does, as cv2.imread flags (16-bit kept: IMREAD_ANYDEPTH;
    EXIF orientation not applied: IMREAD_IGNORE_ORIENTATION) or, where
    cv2.imread is not that, a (description, function of the path) pair."""
    from skimage import data

    def gamma(value):
        return (b"gAMA", struct.pack(">I", value))

    chromaticities = (b"cHRM", struct.pack(">8I", 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000))
    png_variants = {"plain": [], "gama045": [gamma(45455)], "gama22": [gamma(220000)], "gama1": [gamma(100000)],
                    "srgb": [(b"sRGB", b"\0")], "gama_chrm": [gamma(45455), chromaticities]}
    try:
        from PIL import ImageCms
        profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
        png_variants["iccp"] = [(b"iCCP", b"sRGB (lcms)\0\0" + zlib.compress(profile))]
        png_variants["iccp_gama"] = [gamma(45455)] + png_variants["iccp"]
    except Exception as error:  # Pillow without littlecms: the other chunks still run
        print("luma: no iCCP case (%s)" % error)

    # 8-bit colors: every color of 0..15 per channel (the dark ones, where
    # gamma matters most), random colors, and a photograph.
    dark = np.stack(np.meshgrid(np.arange(16), np.arange(16), np.arange(16), indexing="ij"), -1).reshape(64, 64, 3)
    noise = rng.integers(0, 256, (64, 64, 3))
    photo = data.astronaut()[::4, ::4]  # 128x128
    rgb8 = np.concatenate([np.concatenate([dark, noise], axis=1), photo], axis=0).astype(np.uint8)  # 192x128
    alpha8 = rng.integers(0, 256, rgb8.shape[:2] + (1,)).astype(np.uint8)
    # 16-bit: seven colors (two dark), so that each file has few levels to check.
    colors16 = np.concatenate([rng.integers(0, 400, (2, 3)), rng.integers(0, 65536, (5, 3))]).astype(np.uint16)
    rgb16 = colors16[rng.integers(0, len(colors16), (6, 9))]
    alpha16 = rng.integers(0, 65536, rgb16.shape[:2] + (1,)).astype(np.uint16)

    plain, as_stored = cv2.IMREAD_GRAYSCALE, cv2.IMREAD_GRAYSCALE | cv2.IMREAD_IGNORE_ORIENTATION
    deep = cv2.IMREAD_GRAYSCALE | cv2.IMREAD_ANYDEPTH
    cases = {}

    def add(name, encoded, flags):
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(encoded)
        cases[name] = (path, flags)

    def pillow(image, **kwargs):
        buffer = io.BytesIO()
        image.save(buffer, **kwargs)
        return buffer.getvalue()

    for variant, chunks in png_variants.items():
        add("rgb8_%s.png" % variant, png_with_chunks(pillow(Image.fromarray(rgb8), format="PNG"), chunks), plain)
        add("rgb16_%s.png" % variant,
            png_with_chunks(cv2.imencode(".png", np.ascontiguousarray(rgb16[..., ::-1]))[1].tobytes(), chunks), deep)
    add("rgba8_gama045.png", png_with_chunks(pillow(Image.fromarray(np.concatenate([rgb8, alpha8], 2)), format="PNG"),
                                             png_variants["gama045"]), plain)
    add("rgba16_srgb.png", png_with_chunks(cv2.imencode(".png", np.concatenate([rgb16[..., ::-1], alpha16], 2))[1]
                                           .tobytes(), png_variants["srgb"]), deep)
    palette = Image.fromarray(rgb8).quantize(200)
    add("palette_trns_gama045.png", png_with_chunks(pillow(palette, format="PNG", transparency=3),
                                                    png_variants["gama045"]), plain)
    add("rgb8_eXIf_orientation6.png", png_with_chunks(pillow(Image.fromarray(rgb8), format="PNG"), [
        (b"eXIf", b"MM\0*\0\0\0\x08\0\x01" + struct.pack(">HHII", 0x0112, 3, 1, 6 << 16) + b"\0\0\0\0")]), as_stored)

    add("q90_420.jpg", pillow(Image.fromarray(rgb8), format="JPEG", quality=90, subsampling=2), plain)
    add("q100_444.jpg", pillow(Image.fromarray(rgb8), format="JPEG", quality=100, subsampling=0), plain)
    add("q75_422_progressive.jpg", pillow(Image.fromarray(rgb8), format="JPEG", quality=75, subsampling=1,
                                          progressive=True), plain)
    add("opencv.jpg", cv2.imencode(".jpg", np.ascontiguousarray(rgb8[..., ::-1]))[1].tobytes(), plain)
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees to show
    add("exif_orientation6.jpg", pillow(Image.fromarray(rgb8), format="JPEG", quality=90, exif=exif.tobytes()),
        as_stored)

    for name, array, flags, kwargs in (("rgb8_tiff.tif", rgb8, plain, {}),
                                       ("rgb16_deflate.tif", rgb16, deep, {"compression": "zlib"}),
                                       ("rgba8_associated.tif", np.concatenate([rgb8, alpha8], 2), plain,
                                        {"extrasamples": [1]}),
                                       ("rgba16.tif", np.concatenate([rgb16, alpha16], 2), deep,
                                        {"extrasamples": [2]})):
        path = os.path.join(folder, name)
        tifffile.imwrite(path, array, photometric="rgb", **kwargs)
        cases[name] = (path, flags)
    # Unassociated alpha: OpenCV's imread premultiplies the colors by it
    # (libtiff's RGBA reader); glccl takes the luma of the stored colors, as
    # for PNG: OpenCV's luma of an RGB TIFF of the same colors.
    path = os.path.join(folder, "rgba8_unassociated.tif")
    tifffile.imwrite(path, np.concatenate([rgb8, alpha8], 2), photometric="rgb", extrasamples=[2])
    colors_only = os.path.join(folder, "references", "rgba8_unassociated_colors.tif")
    os.makedirs(os.path.dirname(colors_only), exist_ok=True)
    tifffile.imwrite(colors_only, rgb8, photometric="rgb")
    cases["rgba8_unassociated.tif"] = (path, ("cv2.imread(IMREAD_GRAYSCALE) of its colors without alpha",
                                              lambda _: cv2.imread(colors_only, plain)))
    for name, array, maxval, flags in (("rgb8_ppm.ppm", rgb8, 255, plain), ("rgb16_ppm.ppm", rgb16, 65535, deep)):
        path = os.path.join(folder, name)
        write_pgm(path, array, maxval)
        cases[name] = (path, flags)
    return cases


def check_luma_against_opencv():
    folder = os.path.join(WORK, "luma")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    cases = luma_cases(folder)
    expected, levels_of = {}, {}
    for name, (path, reference) in cases.items():
        gray = reference[1](path) if isinstance(reference, tuple) else cv2.imread(path, reference)
        if gray is None or gray.ndim != 2:
            failures.append("luma: OpenCV cannot read %s as one channel" % name)
            continue
        values = [int(v) for v in np.unique(gray)]
        expected[name] = gray
        levels_of[name] = set(v - 1 for v in values if v > 0) | set(values)

    def run_level(level, names):
        """glccl's masks of `names` at binary:level, as {name: mask or None}, and the run."""
        out = os.path.join(folder, "level_%d_%s" % (level, stem(names[0])))
        os.makedirs(out)
        # Levels past 255 reach the one-piece path too: its warm-up labels a
        # one-element image of the input's own route and sample bits, so that
        # 16-bit inputs are not refused by an 8-bit warm-up.
        outputs = ["--out-dir", out, "--labels"]
        run = subprocess.run([GLCCL, "label", *(cases[name][0] for name in names), "--backend", "cpu",
                              "--connectivity", "4", "--criterion", "binary:%d" % level, *outputs],
                             capture_output=True, text=True)
        masks = {}
        for name in names:
            labels_path = os.path.join(out, stem(name) + "_labels.npy")
            masks[name] = np.load(labels_path) != 0 if os.path.exists(labels_path) else None
        shutil.rmtree(out)
        return level, masks, run

    runs = []
    if SANITIZED:
        # Each file at the middle one of its levels, files of a level in one run.
        middles = {}
        for name in expected:
            levels = sorted(levels_of[name])
            middles.setdefault(levels[len(levels) // 2], []).append(name)
        runs = sorted(middles.items())
    else:
        for level in sorted(set().union(*levels_of.values())):
            names = [name for name in expected if level in levels_of[name]]
            runs.append((level, names))
    levels = set(level for level, _ in runs)
    mismatches = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for level, masks, run in pool.map(lambda job: run_level(*job), runs):
            for name, mask in masks.items():
                if name in mismatches:
                    continue
                want = expected[name] > level
                if mask is None:
                    mismatches[name] = "binary:%d failed: %s" % (level, (run.stderr or run.stdout).strip()[-300:])
                elif mask.shape != want.shape:
                    mismatches[name] = "%dx%d, OpenCV %dx%d" % (mask.shape[1], mask.shape[0], want.shape[1],
                                                                 want.shape[0])
                elif not np.array_equal(mask, want):
                    y, x = np.argwhere(mask != want)[0]
                    mismatches[name] = ("%d pixels differ at binary:%d; first (%d, %d): OpenCV %d, glccl %s %d" %
                                        (np.count_nonzero(mask != want), level, x, y, expected[name][y, x],
                                         "above" if mask[y, x] else "at most", level))
    flag_names = ("IMREAD_ANYDEPTH", "IMREAD_IGNORE_ORIENTATION")
    for name, why in sorted(mismatches.items()):
        reference = cases[name][1]
        if isinstance(reference, tuple):
            reference = reference[0]
        else:
            flags = " | ".join(["IMREAD_GRAYSCALE"] + [f for f in flag_names if reference & getattr(cv2, f)])
            reference = "cv2.imread(%s)" % flags
        failures.append("luma of %s against %s: %s" % (name, reference, why))
    print("luma: %d color files against OpenCV's IMREAD_GRAYSCALE, %d levels in %d runs: %d equal" %
          (len(cases), len(levels), len(runs), len(expected) - len(mismatches)))


try:
    import cv2
except ImportError as error:
    print("luma against OpenCV skipped: cv2 cannot be imported (%s); tools/install-deps.sh installs python3-opencv"
          % error)
else:
    check_luma_against_opencv()


if failures:
    print("\n".join(failures))
    sys.exit(1)
print("all inputs agree with scikit-image on", ", ".join(BACKENDS))
