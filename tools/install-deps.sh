#!/usr/bin/env bash
# Installs the Debian 12 packages glccl needs to build and test, and only
# those that are missing: with everything present it does not touch apt.
# Runs as root, or through sudo when sudo is there.
#
#   bash tools/install-deps.sh         every package below
#   bash tools/install-deps.sh build   those the builds need (tools/build.sh)
#   bash tools/install-deps.sh tests   those only the tests need
set -euo pipefail

# What the builds need (build/, and the sanitizers' trees: tools/build.sh),
# and what running glccl needs (Mesa's EGL and llvmpipe where there is no GPU).
build_packages=(
  build-essential cmake pkg-config ninja-build  # ninja: the build's generator (tools/build.sh)
  libegl-dev libgl-dev libopengl-dev libglew-dev
  libegl-mesa0 libgl1-mesa-dri        # Mesa EGL + llvmpipe: headless GL without a GPU
  libglfw3-dev libglm-dev             # the viewer example
  catch2 libstb-dev
  libpng-dev libjpeg-dev libtiff-dev  # image decoders and encoders (host/)
  clang libclang-rt-14-dev            # the libFuzzer harnesses and the ASan/UBSan build (fuzz/)
  valgrind                            # the readers on the fuzz seeds and regressions, under memcheck (where configuring finds it)
  pybind11-dev python3-dev python3-numpy          # the Python module (python/)
  libopenmpi-dev openmpi-bin                      # glccl-mpi: tiled labeling across MPI ranks (tiles/mpi/)
)
# What only the tests need (tools/run-tests.sh installs both lists).
test_packages=(
  xvfb xauth                          # the viewer example's test (Xvfb)
  python3-pil python3-tifffile        # outside readers and writers for the image format tests
  python3-pytest python3-skimage                  # the Python module's tests (tests/python/, against scikit-image)
  python3-opencv                                  # OpenCV, the second reference: labels and tables (tests/python/), luma (tests/gl_image_formats.py)
  python3-matplotlib                              # the Python example (python/examples/) and bench/plot_bench.py
  python3-dask python3-distributed python3-zarr   # glccl.dask: Dask arrays, a dask.distributed cluster, Zarr stores (tests/python/test_dask.py, bench/dask_volume.py)
  python3-venv python3-pip python3-setuptools python3-wheel python3-build  # pip install . into a venv, and a wheel (pyproject.toml, setup.py)
  procps                                          # ps and pgrep: the output tests report and end a run that outlives its signal
  util-linux mount                                # unshare and mount: the test that hides the GL libraries (tests/no_gl_test.sh)
  emscripten chromium                             # the WebGL2 build and its page's test in headless Chromium (web/)
)

case "${1:-all}" in
  build) packages=("${build_packages[@]}") ;;
  tests) packages=("${test_packages[@]}") ;;
  all) packages=("${build_packages[@]}" "${test_packages[@]}") ;;
  *)
    echo "usage: install-deps.sh [build|tests|all]   (default all)" >&2
    exit 2
    ;;
esac

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null || true)
  if [[ "$status" != ii* ]]; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

as_root=()
if ((EUID != 0)); then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "install-deps: missing ${missing[*]}; run as root or install sudo" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has empty package lists; any machine may have stale ones.
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
