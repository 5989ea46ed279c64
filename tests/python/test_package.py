"""The package around the compiled module: installing it with pip into a
venv, its metadata and uninstall; the sentence an interpreter it was not
built for gets; label()'s signature, keywords, dtypes, out=, table, progress
and Ctrl-C; sides past a texture."""

import importlib.util
import inspect
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from skimage import measure

import glccl
from interrupt_support import interrupt_call
from references import random_binary, skimage_labels

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = pathlib.Path(glccl.__file__).resolve().parent


def run_python(code, env=None, timeout=120, executable=sys.executable):
    # From the root directory: `python -c` puts the working directory first on
    # sys.path, and ctest's is the build tree's python/, which holds glccl.
    return subprocess.run([executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd="/")


# ---- the native API's additions -------------------------------------------------------------

def test_signature_in_help():
    parameters = inspect.signature(glccl.label).parameters
    assert list(parameters)[:6] == ["image", "connectivity", "criterion", "backend", "return_table", "channel_axis"]
    assert parameters["connectivity"].default is None and parameters["criterion"].default == "binary"
    for keyword in ("out", "dtype", "progress"):
        assert parameters[keyword].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(inspect.signature(glccl.skimage.label).parameters) == ["label_image", "background", "return_num",
                                                                       "connectivity"]
    assert list(inspect.signature(glccl.ndimage.label).parameters) == ["input", "structure", "output"]
    assert list(inspect.signature(glccl.cc3d.connected_components).parameters) == [
        "data", "max_labels", "connectivity", "return_N", "delta", "out_dtype", "out_file", "periodic_boundary",
        "binary_image"]


@pytest.mark.parametrize("keyword,hint", [("background", "glccl.skimage.label"), ("return_num", "always returns"),
                                          ("structure", "connectivity=4 or 8"), ("output", "out="),
                                          ("out_dtype", "dtype="), ("delta", "('delta', D)"),
                                          ("colour", "unexpected keyword argument 'colour'")])
def test_unknown_keywords_name_the_glccl_way(keyword, hint):
    with pytest.raises(TypeError, match=r"^glccl.label\(\) ") as error:
        glccl.label(np.eye(3), **{keyword: 1})
    assert hint in str(error.value)
    with pytest.raises(TypeError, match=r"^glccl.Labeler.label\(\) "):
        glccl.Labeler().label(np.eye(3), **{keyword: 1})


def test_numpy_integers_wherever_an_int_is_taken():
    image = np.array([[1, 0], [0, 1]], np.uint8)
    for connectivity, n in ((np.int64(4), 2), (np.uint8(8), 1), (np.int32(1), 2), (np.int16(2), 1)):
        assert glccl.label(image, connectivity=connectivity)[1] == n
        assert glccl.Labeler(connectivity=connectivity).label(image)[1] == n
    assert glccl.label(image, criterion=("binary", np.int64(0)))[1] == 1
    assert glccl.label(np.ones((2, 2, 2), bool), connectivity=np.int64(6))[1] == 1


def test_label_dtype_and_out():
    image = random_binary(np.random.default_rng(1), 30, 40)
    want, want_n = skimage_labels(image, 8)
    for dtype, expected in ((None, np.uint32), ("auto", np.uint32), ("uint32", np.uint32), (np.uint64, np.uint64),
                            ("uint64", np.uint64)):
        labels, n = glccl.label(image, dtype=dtype)
        assert labels.dtype == expected and n == want_n
        np.testing.assert_array_equal(labels, want)
    with pytest.raises(ValueError, match=r"^glccl.label\(\): dtype must be None or 'auto', 'uint32' or 'uint64'"):
        glccl.label(image, dtype=np.int8)
    for out in (np.zeros(image.shape, np.uint32), np.zeros(image.shape, np.int64),
                np.zeros((40, 30), np.uint64).T):
        labels, n = glccl.label(image, out=out)
        assert labels is out
        np.testing.assert_array_equal(out, want)
    with pytest.raises(ValueError, match=r"^glccl.label\(\): out must have the labels' shape"):
        glccl.label(image, out=np.zeros((3, 3), np.uint32))
    dots = np.zeros((30, 40), bool)
    dots[::2, ::2] = True  # 300 components
    with pytest.raises(TypeError, match=r"^glccl.label\(\): out must have an integer dtype that holds 300"):
        glccl.label(dots, out=np.zeros(dots.shape, np.int8))


def test_table_label_column_against_the_labels():
    rng = np.random.default_rng(2)
    for image in (random_binary(rng, 37, 29), rng.random((7, 8, 9)) < 0.3):
        labels, n, table = glccl.label(image, return_table=True)
        assert isinstance(table, glccl.ComponentTable) and isinstance(table, dict)
        assert list(table)[0] == "label"
        np.testing.assert_array_equal(table["label"], np.arange(1, n + 1))
        # Row i describes the label in table["label"][i]: its area and box.
        np.testing.assert_array_equal(table["area"], np.bincount(labels.ravel(), minlength=n + 1)[table["label"]])
        first = [np.argwhere(labels == value).min(axis=0) for value in table["label"]]
        np.testing.assert_array_equal(table["left"], [f[-1] for f in first])
        records = table.to_records()
        assert records.dtype.names == tuple(table)
        np.testing.assert_array_equal(records["label"], table["label"])
        np.testing.assert_array_equal(records["area"], table["area"])
    labeler_table = glccl.Labeler().label(image[0], return_table=True)[2]
    assert isinstance(labeler_table, glccl.ComponentTable)


def test_table_to_pandas():
    pandas = pytest.importorskip("pandas", reason="pandas is not installed here (python3-pandas)")
    labels, n, table = glccl.label(np.eye(4, dtype=bool), connectivity=4, return_table=True)
    frame = table.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and frame.index.name == "label"
    assert list(frame.index) == [1, 2, 3, 4]
    assert frame.loc[3, "left"] == 2


def test_to_pandas_without_pandas_says_so():
    if importlib.util.find_spec("pandas") is not None:
        pytest.skip("pandas is installed here")
    table = glccl.label(np.eye(3, dtype=bool), return_table=True)[2]
    with pytest.raises(ImportError, match="to_pandas\\(\\) needs pandas"):
        table.to_pandas()


def test_no_side_limit():
    labels, n = glccl.label(np.zeros((8, 40000), bool))
    assert labels.shape == (8, 40000) and n == 0 and not labels.any()
    image = np.zeros((3, 40000), np.uint8)
    image[1, ::4] = 1
    image[:, 39990:] = 1
    labels, n = glccl.label(image, connectivity=4)
    want, want_n = measure.label(image, connectivity=1, return_num=True)
    assert n == want_n
    np.testing.assert_array_equal(labels, want)


def test_progress_callback():
    image = random_binary(np.random.default_rng(3), 64, 64)
    calls = []
    labels, n = glccl.label(image, progress=lambda stage, seconds: calls.append((stage, seconds)))
    np.testing.assert_array_equal(labels, skimage_labels(image, 8)[0])
    assert calls and calls[-1][0] == "done"
    assert all(stage in ("read", "label", "done") for stage, _ in calls)
    assert [s for _, s in calls] == sorted(s for _, s in calls)
    with pytest.raises(TypeError, match=r"^glccl.label\(\): progress must be None or a callable"):
        glccl.label(image, progress=3)


def test_progress_callback_that_raises_ends_the_call():
    image = np.zeros((3000, 3000), bool)
    image[::2] = True

    def stop(stage, seconds):
        raise RuntimeError(f"stopped at {stage}")

    # A call of this size takes longer than one step of the callback on
    # every machine this runs on, or ends first: both are fine.
    try:
        glccl.label(image, backend="cpu", progress=stop)
    except RuntimeError as error:
        assert str(error).startswith("stopped at")


SIGINT_SETUP = """
import numpy as np
import glccl
image = np.random.default_rng(0).random((8000, 8000)) < 0.5
glccl.label(image[:64, :64], backend="{backend}")
"""


def test_ctrl_c_interrupts_a_long_call():
    # The compute engine on llvmpipe (the cpu engine without GL) labels
    # 8000 x 8000 in seconds: SIGINT sent while it runs must end the call
    # within one.
    available = {b["name"]: b["available"] for b in glccl.backends()}
    backend = "compute" if available["compute"] else "cpu"
    seconds = interrupt_call(SIGINT_SETUP.format(backend=backend), f'glccl.label(image, backend="{backend}")')
    assert seconds < 1.0, f"KeyboardInterrupt came {seconds:.2f} s after SIGINT"


FORK_CHILD = """
import os, time
import numpy as np
from scipy import ndimage
import glccl
# Large enough for a worker thread (the calls Ctrl-C can reach).
image = (np.random.default_rng(3).random((1100, 1000)) < 0.45).astype(np.uint8)
want = ndimage.label(image, structure=np.ones((3, 3)))[1]
parent = {b["name"]: b for b in glccl.backends()}  # the parent makes its GL context (where EGL has one)
# The child's reason is the fork; in a glccl built without OpenGL it is the
# build's, as it is the parent's.
why = "GLCCL_WITH_GL=OFF" if "GLCCL_WITH_GL=OFF" in parent["compute"]["reason"] else "forked"
assert glccl.label(image, backend="cpu")[1] == want
pid = os.fork()
if pid == 0:
    ok = glccl.label(image)[1] == want and glccl.label(image, backend="cpu")[1] == want
    compute = {b["name"]: b for b in glccl.backends()}["compute"]
    try:
        glccl.label(image, backend="compute")
        refused = ""
    except RuntimeError as error:
        refused = str(error)
    ok = ok and not compute["available"] and why in compute["reason"] and why in refused
    os._exit(0 if ok else 3)
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        print("child", os.waitstatus_to_exitcode(status), flush=True)
        break
    time.sleep(0.05)
else:
    os.kill(pid, 9)
    print("hung", flush=True)
"""


def test_a_forked_child_labels_on_the_host():
    # multiprocessing's fork, a DataLoader's workers: the child has none of
    # its parent's worker threads, nor the driver threads of its GL context.
    # It must not wait for them: it labels on the host, and refuses the GL
    # backends in a sentence.
    result = run_python(FORK_CHILD, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["child", "0"], result.stdout


# ---- another interpreter ---------------------------------------------------------------------

def test_numpy_missing_names_the_interpreters():
    code = """
    import sys
    class NoNumpy:
        def find_spec(self, name, path=None, target=None):
            if name == "numpy" or name.startswith("numpy."):
                raise ImportError("No module named 'numpy'")
    sys.meta_path.insert(0, NoNumpy())
    import glccl
    """
    env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent))
    result = run_python(code, env=env)
    assert result.returncode != 0
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith("ImportError: glccl needs numpy, which ")
    assert glccl._build.INTERPRETER in message


def test_another_interpreter_gets_one_sentence(tmp_path):
    # A copy of the package whose compiled module is named for another
    # Python: what an interpreter of another version finds.
    copy = tmp_path / "glccl"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for compiled in copy.glob("_glccl*"):
        compiled.rename(copy / "_glccl.cpython-39-x86_64-linux-gnu.so")
    build = copy / "_build.py"
    build.write_text(build.read_text().replace(glccl._build.EXTENSION_SUFFIX, ".cpython-39-x86_64-linux-gnu.so")
                     .replace(f'PYTHON_VERSION = "{glccl._build.PYTHON_VERSION}"', 'PYTHON_VERSION = "3.9.2"'))
    result = run_python("import glccl", env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith(f"ImportError: glccl was built for {glccl._build.INTERPRETER} (Python 3.9.2) and "
                              f"cannot be imported by {sys.executable}")
    assert "its compiled module is .cpython-39-x86_64-linux-gnu.so" in message


# ---- pip -------------------------------------------------------------------------------------

def why_no_venv():
    for module in ("venv", "pip", "setuptools", "wheel"):
        if importlib.util.find_spec(module) is None:
            return f"{sys.executable} lacks {module} (python3-venv, python3-pip, python3-setuptools, python3-wheel)"
    if not os.environ.get("GLCCL_BUILD_DIR"):
        return "GLCCL_BUILD_DIR is not set: pip would build glccl from scratch (ctest sets it to the build tree)"
    return ""


@pytest.mark.skipif(bool(why_no_venv()), reason=why_no_venv() or "venv present")
def test_pip_install_into_a_venv_and_uninstall(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    # Into a copy of the sources: pip's and setuptools' files stay out of the checkout.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns("build*", ".git", "__pycache__", "out"))
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    install = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index", str(source)],
                             capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert install.returncode == 0, install.stdout + install.stderr
    code = """
    import importlib.metadata, numpy as np, glccl, glccl.skimage
    print(importlib.metadata.version("glccl"), glccl.__version__, glccl.__file__)
    print(glccl.label(np.eye(4, dtype=bool), connectivity=4)[1], glccl.skimage.label(np.eye(3, dtype=int)).dtype)
    """
    result = run_python(code, env=env, executable=python)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split("\n")
    version, module_version, where = lines[0].split()
    assert version == module_version == glccl.__version__
    assert where.startswith(str(venv))
    assert lines[1] == "4 int64"
    listed = subprocess.run([python, "-m", "pip", "list"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert "glccl" in listed.stdout
    removed = subprocess.run([python, "-m", "pip", "uninstall", "-y", "glccl"], capture_output=True, text=True,
                             env=env, cwd=tmp_path)
    assert removed.returncode == 0, removed.stderr
    gone = run_python("import glccl; print(glccl.__file__)", env=env, executable=python)
    assert gone.returncode != 0 or not gone.stdout.startswith(str(venv))


def test_a_module_whose_pybind11_cannot_read_numpy_2_arrays_is_refused():
    # pybind11 reads numpy 2's dtypes from 2.12 on; an older build would give
    # wrong tables rather than an error, so such an import is refused.
    reads = glccl._pybind11_reads
    assert reads("1.26.4", "2.10.3") and reads("1.24.2", "2.12.0") and reads("2.1.0", "2.12.0")
    assert reads("2.0.0", "2.13.1") and reads("2.1.0", "")  # unknown pybind11: not refused
    assert not reads("2.0.0", "2.10.3") and not reads("2.1.3", "2.11.1")
    assert glccl._build.PYBIND11_VERSION  # the build records it
