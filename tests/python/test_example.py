"""The Python example (python/examples/label_coins.py) runs, writes its
PNG, and labels as scikit-image does, so that it cannot rot."""

import importlib.util
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from references import skimage_labels

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "python" / "examples" / "label_coins.py"

try:
    import matplotlib  # noqa: F401
    WHY_NO_MATPLOTLIB = ""
except ImportError as error:
    WHY_NO_MATPLOTLIB = f"matplotlib cannot be imported ({error}); tools/install-deps.sh installs python3-matplotlib"

pytestmark = pytest.mark.skipif(bool(WHY_NO_MATPLOTLIB), reason=WHY_NO_MATPLOTLIB or "-")


def load_example():
    spec = importlib.util.spec_from_file_location("label_coins", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_labels_like_skimage(tmp_path):
    out = tmp_path / "coins.png"
    mask, labels, n = load_example().main(str(out))
    want, want_n = skimage_labels(mask, 8)
    assert n == want_n and n > 20  # about 23 coins, whole or cut by the crop, and specks
    np.testing.assert_array_equal(labels, want)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_example_as_a_script(tmp_path):
    out = tmp_path / "script.png"
    result = subprocess.run([sys.executable, str(EXAMPLE), str(out)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "components; wrote" in result.stdout
    assert out.stat().st_size > 10000
