"""pytest with the given arguments, as `python -m pytest` runs it; or a skip
(exit 77, ctest's SKIP_RETURN_CODE here) that names the modules this
interpreter lacks. The check is made when the tests run, not when the build
is configured: tools/build.sh installs only the build's packages, and the
tests' may come after.
"""

import importlib.util
import os
import sys

NEEDED = ("pytest", "numpy", "scipy", "skimage")

# Guarded: the processes a test spawns (Dask's cluster) import this file
# again as their main module, and must not run the tests themselves.
if __name__ == "__main__":
    missing = [name for name in NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        print(f"skipped: {sys.executable} lacks {', '.join(missing)} (tools/install-deps.sh installs them)")
        sys.exit(77)

    import pytest

    sys.path[0] = os.getcwd()  # as `python -m pytest` has it
    sys.exit(pytest.main(sys.argv[1:]))
