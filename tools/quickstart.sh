#!/usr/bin/env bash
# From a fresh Debian 12 machine to a labeled sample image: installs the
# missing packages the build needs, builds build/ (Release) with every core,
# and labels the bundled sample into out/.
#
#   sudo bash tools/quickstart.sh      (or, as root: bash tools/quickstart.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

sample=samples/blobs_and_text.png

# Under sudo, hand build/ and out/ back to the calling user on the way out so
# that later builds and test runs without sudo can write there.
give_back_to_caller() {
  if [[ -n "${SUDO_UID:-}" && "${SUDO_UID}" != 0 ]]; then
    chown -R "${SUDO_UID}:${SUDO_GID:-${SUDO_UID}}" build out 2>/dev/null || true
  fi
}
trap give_back_to_caller EXIT

bash tools/build.sh

mkdir -p out
echo
./build/tools/glccl label "$sample" \
  --color out/sample_labels.png --stats out/sample_stats.csv --labels out/sample_labels.npy --force

# The Python package, built with the rest into build/python/glccl/, for
# Debian's python3 (the interpreter CMake built it for).
if [[ -d build/python/glccl ]]; then
  echo
  PYTHONPATH=build/python /usr/bin/python3 -c \
    "import glccl; print('import glccl:', glccl.__version__, 'from', glccl.__file__)"
  echo "python: PYTHONPATH=build/python /usr/bin/python3, or into a venv:" \
    "python3 -m venv --system-site-packages build-venv &&" \
    "GLCCL_BUILD_DIR=build build-venv/bin/python -m pip install --no-build-isolation --no-index ."
fi
