"""gl="es": the raster backend labels in an OpenGL ES 3 context (as the
command line's --gl es) with scipy's and scikit-image's labels, and the
compute backend where that context is ES 3.1 or newer with image atomics;
in ES 3.0 compute is refused naming raster; a wrong gl is a ValueError
naming the choices."""

import os
import subprocess
import sys

import numpy as np
import pytest
from scipy import ndimage

import glccl
from references import assert_tables_equal, random_binary, skimage_labels, skimage_table

ES = {b["name"]: b for b in glccl.backends(gl="es")}
needs_es_raster = pytest.mark.skipif(not ES["raster"]["available"],
                                     reason=ES["raster"]["reason"] or "raster does not run in an ES context here")
needs_es_compute = pytest.mark.skipif(not ES["compute"]["available"],
                                      reason=ES["compute"]["reason"] or "compute does not run in an ES context here")
STRUCTURES = {4: ndimage.generate_binary_structure(2, 1), 8: ndimage.generate_binary_structure(2, 2)}


@needs_es_raster
@pytest.mark.parametrize("connectivity", [4, 8])
def test_es_raster_labels_as_scipy(connectivity):
    image = random_binary(np.random.default_rng(connectivity), 61, 77, p=0.55)
    labels, n, table = glccl.label(image, connectivity=connectivity, backend="raster", return_table=True, gl="es")
    want, want_n = ndimage.label(image, structure=STRUCTURES[connectivity])
    assert n == want_n
    assert np.array_equal(labels, want)
    assert_tables_equal(table, skimage_table(want), "raster in ES")


@needs_es_raster
@pytest.mark.parametrize("connectivity", [4, 8])
def test_es_raster_16_bit_samples(connectivity):
    rng = np.random.default_rng(16 + connectivity)
    # Values past 255 decide: ids 256 and 257 are two segments, and level 300
    # parts samples that an 8-bit reading would make equal.
    ids = rng.choice(np.array([0, 256, 257, 40000, 65535], dtype=np.uint16), size=(45, 52))
    labels, n = glccl.label(ids, connectivity=connectivity, criterion="segments", backend="raster", gl="es")
    want, want_n = skimage_labels(ids, connectivity, segments=True)
    assert n == want_n
    assert np.array_equal(labels, want)
    levels = rng.integers(0, 600, size=(45, 52)).astype(np.uint16)
    labels, n = glccl.label(levels, connectivity=connectivity, criterion=("binary", 300), backend="raster", gl="es")
    want, want_n = ndimage.label(levels > 300, structure=STRUCTURES[connectivity])
    assert n == want_n
    assert np.array_equal(labels, want)


@needs_es_raster
@pytest.mark.parametrize("connectivity", [4, 8])
def test_es_labeler_labels_as_scipy(connectivity):
    labeler = glccl.Labeler(connectivity=connectivity, backend="raster", gl="es")
    assert labeler.gl == "es"
    assert "gl='es'" in repr(labeler)
    rng = np.random.default_rng(100 + connectivity)
    for shape in [(33, 40), (33, 40), (20, 64)]:
        image = random_binary(rng, *shape, p=0.5)
        labels, n = labeler.label(image)
        want, want_n = ndimage.label(image, structure=STRUCTURES[connectivity])
        assert n == want_n
        assert np.array_equal(labels, want)
    assert labeler.last_backend == "raster"


def test_desktop_is_the_default():
    assert glccl.Labeler().gl == "desktop"
    assert glccl.Labeler(gl="desktop").gl == "desktop"
    assert "gl=" not in repr(glccl.Labeler())


@needs_es_compute
@pytest.mark.parametrize("connectivity", [4, 8])
def test_es_compute_labels_as_scipy(connectivity):
    image = random_binary(np.random.default_rng(200 + connectivity), 67, 81, p=0.55)
    labels, n, table = glccl.label(image, connectivity=connectivity, backend="compute", return_table=True, gl="es")
    want, want_n = ndimage.label(image, structure=STRUCTURES[connectivity])
    assert n == want_n
    assert np.array_equal(labels, want)
    assert_tables_equal(table, skimage_table(want), "compute in ES")
    labeler = glccl.Labeler(connectivity=connectivity, criterion="segments", backend="compute", gl="es")
    ids = np.random.default_rng(300 + connectivity).choice(np.array([0, 256, 257, 40000], dtype=np.uint16),
                                                           size=(45, 52))
    labels, n = labeler.label(ids)
    assert labeler.last_backend == "compute"
    want, want_n = skimage_labels(ids, connectivity, segments=True)
    assert n == want_n
    assert np.array_equal(labels, want)


@needs_es_compute
def test_es_properties_are_gathered_on_the_gpu():
    # The measuring programs run as GLSL ES: the totals, and so the table,
    # are the cpu engine's.
    image = random_binary(np.random.default_rng(400), 50, 61, p=0.5)
    properties = ["label", "area", "bbox", "centroid", "moments_hu", "perimeter", "perimeter_crofton", "euler_number"]
    _, n, table = glccl.label(image, backend="compute", properties=properties, gl="es")
    _, want_n, want = glccl.label(image, backend="cpu", properties=properties)
    assert n == want_n
    assert table.measured_by == "compute"
    assert table.keys() == want.keys()
    for name in want:
        assert np.array_equal(table[name], want[name]), name


def test_compute_in_es_3_0_is_refused_naming_raster():
    # Mesa pins the ES version for a process of its own; other drivers
    # ignore the variable and give their newest ES.
    probe = """
import glccl, numpy as np
es = {b["name"]: b for b in glccl.backends(gl="es")}
print(es["raster"]["available"], es["compute"]["available"], es["compute"]["reason"])
try:
    glccl.label(np.ones((16, 16), np.uint8), backend="compute", gl="es")
except RuntimeError as error:
    print("refused:", error)
"""
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=dict(os.environ, MESA_GLES_VERSION_OVERRIDE="3.0"))
    assert run.returncode == 0, run.stderr
    raster, compute, _ = run.stdout.split(" ", 2)
    if raster != "True" or compute == "True":
        pytest.skip("no ES 3.0 context with raster here (the driver ignores MESA_GLES_VERSION_OVERRIDE)")
    assert "it needs OpenGL ES 3.1 (compute shaders), the context is OpenGL ES 3.0" in run.stdout
    assert "the raster backend runs there" in run.stdout
    assert "refused: " in run.stdout and "compute backend cannot run here" in run.stdout


@pytest.mark.parametrize("value", ["ES", "gles", "opengl", ""])
def test_a_wrong_gl_names_the_choices(value):
    image = np.zeros((4, 4), np.uint8)
    for call in (lambda: glccl.label(image, gl=value), lambda: glccl.Labeler(gl=value),
                 lambda: glccl.backends(gl=value)):
        with pytest.raises(ValueError, match=r"is not a GL context; expected \"desktop\" .* or \"es\""):
            call()


def test_gl_must_be_a_str():
    with pytest.raises(TypeError, match="gl must be a str"):
        glccl.label(np.zeros((4, 4), np.uint8), gl=3)
    with pytest.raises(TypeError, match="gl must be a str"):
        glccl.Labeler(gl=None)


@pytest.mark.parametrize("backend", ["cpu", "reference", "cuda"])
def test_es_with_a_backend_without_a_context(backend):
    image = np.zeros((4, 4), np.uint8)
    with pytest.raises(ValueError, match=f"the {backend} backend labels without one"):
        glccl.label(image, backend=backend, gl="es")
    with pytest.raises(ValueError, match=f"the {backend} backend labels without one"):
        glccl.Labeler(backend=backend, gl="es")


@needs_es_raster
def test_es_labels_in_one_piece():
    # Wider than a GL_MAX_TEXTURE_SIZE (16384 on llvmpipe, 32768 at most): raster
    # labels it in tiles, whose GL workers make desktop contexts.
    image = np.ones((2, 70000), np.uint8)
    with pytest.raises(RuntimeError, match="gl='es' labels in one piece"):
        glccl.label(image, backend="raster", gl="es")


@needs_es_raster
@pytest.mark.parametrize("connectivity", [4, 8])
def test_es_batches_label_as_scipy(connectivity):
    rng = np.random.default_rng(500 + connectivity)
    stack = np.stack([random_binary(rng, 29, 37, p=p) for p in (0.3, 0.55, 0.7)])
    backends = ["raster"] + (["compute"] if ES["compute"]["available"] else [])
    _, _, want_tables = glccl.label_batch(stack, connectivity, return_table=True, backend="cpu")
    for backend in backends:
        labels, counts, tables = glccl.label_batch(stack, connectivity, return_table=True, backend=backend, gl="es")
        for i, image in enumerate(stack):
            want, want_n = ndimage.label(image, structure=STRUCTURES[connectivity])
            assert counts[i] == want_n, (backend, i)
            assert np.array_equal(labels[i], want), (backend, i)
            assert_tables_equal(tables[i], want_tables[i], f"{backend} in ES, image {i}")


def test_a_batch_takes_gl_as_label_does():
    stack = np.zeros((2, 4, 4), np.uint8)
    for value in ["ES", "gles", ""]:
        with pytest.raises(ValueError, match=r"label_batch\(\): gl='.*' is not a GL context; expected \"desktop\""):
            glccl.label_batch(stack, gl=value)
    with pytest.raises(TypeError, match="gl must be a str"):
        glccl.label_batch(stack, gl=None)
    for backend in ["cpu", "reference", "cuda"]:
        with pytest.raises(ValueError, match=f"the {backend} backend labels without one"):
            glccl.label_batch(stack, backend=backend, gl="es")
    # An empty stack is refused too: the keyword is checked before any image.
    with pytest.raises(ValueError, match="is not a GL context"):
        glccl.label_batch(np.zeros((0, 4, 4), np.uint8), gl="gles")
    labels, counts = glccl.label_batch(stack, gl="desktop")
    assert not labels.any() and not counts.any()


@needs_es_raster
def test_es_batches_label_in_one_piece():
    stack = np.ones((1, 2, 70000), np.uint8)
    with pytest.raises(RuntimeError, match=r"label_batch\(\): image 0 of the stack: gl='es' labels in one piece"):
        glccl.label_batch(stack, backend="raster", gl="es")
