"""The type stub (python/glccl/__init__.pyi) names what the module has, no more, no
less, and help() shows the docstrings."""

import ast
import pathlib
import pydoc

import glccl

STUB = pathlib.Path(__file__).resolve().parents[2] / "python" / "glccl" / "__init__.pyi"
# Names the stub defines for typing only.
TYPING_ONLY = {"Connectivity", "ChannelAxis", "Criterion", "BackendName", "HostImage", "Labels", "CudaArray",
               "BackendInfo", "LabelDtype", "Progress", "LabelArray"}


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
        elif isinstance(node, ast.Assign):
            top.update(t.id for t in node.targets)
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            top.update(alias.asname for alias in node.names if alias.asname)  # the submodules
        if isinstance(node, ast.ClassDef):
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return top, members


def test_stub_matches_module():
    top, members = stub_names()
    public = {name for name in dir(glccl) if not name.startswith("_")} | {"__version__"}
    # glccl.dask is imported on its own (it needs Dask), and is an attribute once it is.
    assert top - TYPING_ONLY == public - {"dask"}
    labeler = {name for name in dir(glccl.Labeler) if not name.startswith("_")} | {"__init__"}
    assert members["Labeler"] == labeler


def test_help_shows_the_docs():
    text = pydoc.render_doc(glccl.label, renderer=pydoc.plaintext)
    for words in ("uint16", "float32", "segments", "Thread-safety", "CuPy"):
        assert words in text
    text = pydoc.render_doc(glccl.Labeler, renderer=pydoc.plaintext)
    for words in ("out=", "Thread-safety", "last_backend", "return_table"):
        assert words in text
