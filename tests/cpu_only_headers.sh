#!/bin/sh
# A CPU-only build includes nothing of OpenGL, EGL or CUDA: every object's
# dependencies, as the build recorded them (Ninja's log of them, or the
# compiler's .o.d files beside the objects under make), name no header of
# theirs. Run after the build.
#
#   tests/cpu_only_headers.sh BUILD_DIR
set -eu
build=$1
list=$(mktemp)
trap 'rm -f "$list"' EXIT
if [ -f "$build/build.ninja" ]; then
  ninja -C "$build" -t deps >"$list"
  objects=$(grep -cE '^[^ ].*: #deps' "$list" || true)
else
  find "$build" -name '*.o.d' -exec cat {} + >"$list"
  objects=$(find "$build" -name '*.o.d' | wc -l)
fi
if [ "$objects" -eq 0 ]; then
  echo "no object's dependencies recorded in $build: build it first"
  exit 1
fi
found=$(grep -E '/(GL|EGL|KHR)/[A-Za-z0-9_]+[.]h|/(cuda_runtime|cuda_gl_interop)[A-Za-z0-9_]*[.]h' "$list" | sort -u || true)
if [ -n "$found" ]; then
  echo "OpenGL, EGL or CUDA headers in a CPU-only build:"
  echo "$found"
  exit 1
fi
echo "$objects objects, none includes an OpenGL, EGL or CUDA header"
