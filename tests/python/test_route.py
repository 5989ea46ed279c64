"""An array larger than one call of its backend (wider or taller than
llvmpipe's GL_MAX_TEXTURE_SIZE, 16384) is labeled through tiles by the
route glccl chooses, with the labels and table of scikit-image."""

import numpy as np
import pytest

import glccl
from machine_facts import cuda_driver_devices, gpu_device_nodes
from references import AVAILABLE, assert_tables_equal, backend_params, random_binary, skimage_labels, skimage_table


@pytest.mark.parametrize("backend", ["auto"] + backend_params(("compute", "raster")))
@pytest.mark.parametrize("shape", [(5, 20000), (20000, 3)])
def test_past_one_call(backend, shape):
    image = random_binary(np.random.default_rng(sum(shape)), *shape, p=0.55)
    labels, n, table = glccl.label(image, connectivity=8, backend=backend, return_table=True)
    want, want_n = skimage_labels(image, 8)
    assert n == want_n
    assert np.array_equal(labels, want)
    assert_tables_equal(table, skimage_table(want), "regionprops")


# ---- what runs here, on what ----------------------------------------------------------------

def test_has_cuda_says_whether_cuda_runs_here():
    assert isinstance(glccl.built_with_cuda, bool) and isinstance(glccl.has_cuda, bool)
    assert glccl.has_cuda == AVAILABLE["cuda"]["available"]
    assert not glccl.has_cuda or glccl.built_with_cuda
    if cuda_driver_devices() == 0:
        assert not glccl.has_cuda
    assert "has_cuda" in dir(glccl) and "built_with_cuda" in dir(glccl)


def test_backends_say_what_runs_here_and_on_what():
    rows = {row["name"]: row for row in glccl.backends()}
    for name, row in rows.items():
        assert isinstance(row["device"], str) and isinstance(row["note"], str)
        assert isinstance(row["gpu"], bool) and isinstance(row["software_renderer"], bool)
        if name != "auto":
            assert (row["device"] != "") == row["available"], row
        assert not (row["gpu"] and row["software_renderer"]), row
    for name in ("cpu", "reference"):
        assert not rows[name]["gpu"] and not rows[name]["software_renderer"]
        assert "CPU" in rows[name]["device"]
    assert rows["cuda"]["gpu"] == rows["cuda"]["available"]
    if not gpu_device_nodes():
        for name in ("compute", "raster"):
            if rows[name]["available"]:
                assert rows[name]["software_renderer"] and not rows[name]["gpu"], rows[name]
                assert "software renderer" in rows[name]["note"] and "slower" in rows[name]["note"]
    if not any(row["gpu"] for row in rows.values()):
        assert "cpu backend" in rows["auto"]["note"], rows["auto"]


def test_auto_takes_the_cpu_engine_over_a_software_renderer():
    # Where the GL engines run only in software, auto labels even a large
    # noisy image, the GPU route's best case, with the cpu engine.
    rows = {row["name"]: row for row in glccl.backends()}
    if rows["cuda"]["available"] or not (rows["compute"]["software_renderer"] or rows["raster"]["software_renderer"]):
        pytest.skip("a GPU engine runs here")
    image = random_binary(np.random.default_rng(11), 2048, 2048, p=0.5)
    labeler = glccl.Labeler(8, backend="auto")
    labels, n = labeler.label(image)
    assert labeler.last_backend == "cpu"
    want, want_n = skimage_labels(image, 8)
    assert n == want_n and np.array_equal(labels, want)
