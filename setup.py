"""Builds the compiled module glccl._glccl with CMake for pip and build (see
pyproject.toml, which holds the package's metadata).

The CMake build directory is build-python/cmake, or GLCCL_BUILD_DIR where set
(an existing build of this checkout: then only the module's target is
brought up to date there). The module is built for the interpreter that runs
this file. CMake options can be added through GLCCL_CMAKE_ARGS (split on
spaces), e.g. GLCCL_CMAKE_ARGS="-DGLCCL_WITH_CUDA=OFF"."""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
# setuptools' own build and egg-info go beside CMake's build/, not into it.
STAGING = ROOT / "build-python"


def project_version():
    """The version in CMakeLists.txt's project(), the one place it is set."""
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(glccl VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    """build_ext that runs CMake for the target glccl_python and copies
    _glccl and _build.py into the package."""

    def build_extension(self, extension):
        build_dir = pathlib.Path(os.environ.get("GLCCL_BUILD_DIR") or STAGING / "cmake").resolve()
        if not (build_dir / "CMakeCache.txt").exists():
            configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                         f"-DPython3_EXECUTABLE={sys.executable}", "-DGLCCL_BUILD_PYTHON=ON",
                         "-DGLCCL_BUILD_TESTS=OFF", "-DGLCCL_BUILD_TOOLS=OFF"]
            if os.path.exists("/usr/local/cuda/bin/nvcc"):
                configure.append("-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc")
            configure += os.environ.get("GLCCL_CMAKE_ARGS", "").split()
            subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "glccl_python", "-j", jobs], check=True)

        package = build_dir / "python" / "glccl"
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        compiled = package / f"_glccl{suffix}"
        if not compiled.exists():
            built = sorted(p.name for p in package.glob("_glccl*"))
            sys.exit(f"setup.py: {build_dir} holds {built or 'no _glccl module'}, not _glccl{suffix} for "
                     f"{sys.executable}: it was configured for another interpreter; unset GLCCL_BUILD_DIR "
                     f"or point it at a build of this one")
        target = pathlib.Path(self.get_ext_fullpath(extension.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(compiled, target)
        shutil.copy2(package / "_build.py", target.parent / "_build.py")


STAGING.mkdir(exist_ok=True)
setup(
    version=project_version(),
    ext_modules=[Extension("glccl._glccl", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(STAGING / "setuptools")}, "egg_info": {"egg_base": str(STAGING)}},
)
