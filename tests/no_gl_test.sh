#!/usr/bin/env bash
# Runs a command on this machine as it would run on one with no OpenGL at
# all: in a private mount namespace, /dev/null is mounted over every file
# the loader would open for libEGL, libOpenGL, libGL, libGLX, libGLdispatch,
# libGLESv2, libGLEW and CUDA's driver (libcuda), so none of them loads.
#
#   no_gl_test.sh COMMAND [ARG...]
#
# Exits 77 (a skip for ctest) where no mount namespace can be made here.
set -euo pipefail

if [[ "${GLCCL_GL_HIDDEN:-}" != 1 ]]; then
  namespace=(unshare --mount)
  [[ $(id -u) == 0 ]] || namespace=(unshare --map-root-user --mount)
  if ! "${namespace[@]}" true 2>/dev/null; then
    echo "skip: no private mount namespace can be made here (${namespace[*]})"
    exit 77
  fi
  GLCCL_GL_HIDDEN=1 exec "${namespace[@]}" bash "$0" "$@"
fi

# Inside the namespace: hide each library file, then run the command.
hidden=0
while read -r path; do
  real=$(readlink -f "$path")
  [[ -f "$real" ]] || continue
  mount --bind /dev/null "$real"
  hidden=$((hidden + 1))
done < <(ldconfig -p | awk '/(libEGL|libOpenGL|libGL|libGLX|libGLdispatch|libGLESv2|libGLEW|libcuda)\.so/ { print $NF }' | sort -u)
echo "hid $hidden GL and CUDA driver library files"
exec "$@"
