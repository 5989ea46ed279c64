#!/usr/bin/env bash
# A self-contained Debian 12 Python 3.11 with Dask, distributed, Zarr, numcodecs,
# numpy and the parts of scipy that bench/dask_volume.py uses, plus glccl's
# Python package built for 3.11 with CUDA, for the GPU machine (Python 3.12,
# numpy 2, no Dask, no network). bench/dask-device.sh unpacks and runs it.
#
#     bench/py311-bundle.sh [OUT_DIR] [--test]      (OUT_DIR default: dask-carry)
#
# Writes into OUT_DIR (git-ignored; carried with run's carry):
#   py311.tar.xz  a relocatable root, unpacked anywhere (bench/dask-device.sh:
#                 /tmp/py311):
#                   usr/bin/python3.11              Debian's interpreter (libpython linked in)
#                   usr/lib/python3.11/             the stdlib with lib-dynload, less tests,
#                                                   idlelib, tkinter, ensurepip, lib2to3,
#                                                   pydoc_data, config-*
#                   usr/lib/python3/dist-packages/  the packages below (Debian's site.py
#                                                   adds PREFIX/lib/python3/dist-packages)
#                   glccl-py/glccl/                 glccl for 3.11 (--module-dir glccl-py)
#                   lib/                            the shared libraries those modules need
#                                                   that are not glibc, libgcc_s, libstdc++, zlib
#                   env.sh                          `source env.sh ROOT CARRY` sets the variables
#   glccl         build-h200/tools/glccl, stripped (the CUDA sm_90 command line)
#   lib/          the libraries glccl and the glccl module need that the GPU machine
#                 lacks (those of h200/lib that ldd names), beside the prelude's GL ones
#
# The packages are the closure of `import numpy, scipy.ndimage, scipy.sparse.csgraph,
# dask, dask.array, distributed, zarr, numcodecs, ...` and of a run of
# bench/dask_volume.py on a two-process LocalCluster, read from sys.modules of the
# main process and of the workers (top-level packages; see DIST_PACKAGES). scipy is cut
# to the subpackages that loaded; tests/ go everywhere.
#
# glccl's package: build-h200/python/glccl as it is (less __pycache__). A build older
# than glccl.dask (no dask.py) gets the Python files of python/glccl/ over its own:
# CMake copies them as they are (COPYONLY), so that is what a reconfigure would give
# without recompiling the module.
#
# --test unpacks the tarball into a temporary folder and imports everything there
# under `env -i`, with nothing of this machine's Python on sys.path.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=""
TEST=0
for arg in "$@"; do
    case $arg in
        --test) TEST=1 ;;
        -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0"; exit 0 ;;
        *) OUT=$arg ;;
    esac
done
OUT=$(mkdir -p "${OUT:-$REPO/dask-carry}" && cd "${OUT:-$REPO/dask-carry}" && pwd)

PY=/usr/bin/python3.11
STDLIB=/usr/lib/python3.11
DIST=/usr/lib/python3/dist-packages
BUILD=${GLCCL_BUILD:-$REPO/build-h200}
MISSING_LIBS=${GLCCL_DEVICE_LIBS:-$REPO/h200/lib}   # libraries known to be missing on the GPU machine

# Top-level entries of dist-packages (packages and modules), each with its
# .dist-info/.egg-info. The first line is what was asked for, the rest what
# those import (sys.modules after dask_volume.py's run, workers included).
DIST_PACKAGES=(
    numpy scipy dask distributed zarr numcodecs psutil tornado msgpack yaml _yaml toolz cloudpickle partd fsspec
    tblib zict sortedcontainers jinja2 click packaging
    tlz locket heapdict.py markupsafe colorama asciitree fasteners lz4 certifi entrypoints.py typing_extensions.py
)
# scipy: only what dask_volume.py's scipy.ndimage.label and
# scipy.sparse.csgraph.connected_components pull in.
SCIPY_KEEP=(__init__.py __config__.py _distributor_init.py version.py _lib fft fftpack linalg ndimage sparse special)
# numpy: all but its build and test tools.
NUMPY_DROP=(tests distutils f2py doc _pyinstaller conftest.py setup.py)

for need in "$PY" "$STDLIB" "$DIST/dask" "$DIST/distributed" "$DIST/zarr" "$BUILD/tools/glccl" "$MISSING_LIBS"; do
    [[ -e $need ]] || { echo "py311-bundle: $need is missing (Debian 12: apt-get install python3-dask python3-distributed python3-zarr python3-scipy)" >&2; exit 1; }
done
shopt -s nullglob
module=("$BUILD"/python/glccl/_glccl.cpython-311-*.so)
[[ ${#module[@]} == 1 ]] || { echo "py311-bundle: no glccl module for 3.11 in $BUILD/python/glccl" >&2; exit 1; }

STAGE=$(mktemp -d /tmp/py311-bundle.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
ROOT=$STAGE/root
mkdir -p "$ROOT/usr/bin" "$ROOT/usr/lib/python3/dist-packages" "$ROOT/lib" "$ROOT/glccl-py/glccl"

# ---- the interpreter and the stdlib --------------------------------------------------------------
cp -L "$PY" "$ROOT/usr/bin/python3.11"
ln -s python3.11 "$ROOT/usr/bin/python3"
# -L: Debian links sitecustomize.py and _sysconfigdata into /etc and elsewhere.
tar -C /usr/lib --dereference \
    --exclude='python3.11/test' --exclude='python3.11/idlelib' --exclude='python3.11/tkinter' \
    --exclude='python3.11/ensurepip' --exclude='python3.11/turtledemo' --exclude='python3.11/turtle.py' \
    --exclude='python3.11/config-3.11-*' --exclude='python3.11/lib2to3' --exclude='python3.11/pydoc_data' \
    --exclude='python3.11/site-packages' --exclude='python3.11/dist-packages' \
    --exclude='__pycache__' --exclude='*/lib-dynload/_test*' --exclude='*/lib-dynload/_tkinter*' \
    --exclude='*/lib-dynload/xxlimited*' --exclude='*/lib-dynload/_xx*' --exclude='*/lib-dynload/_ctypes_test*' \
    -cf - python3.11 | tar -C "$ROOT/usr/lib" -xf -

# ---- dist-packages ------------------------------------------------------------------------------
dist=$ROOT/usr/lib/python3/dist-packages
for entry in "${DIST_PACKAGES[@]}"; do
    [[ -e $DIST/$entry ]] || { echo "py311-bundle: $DIST/$entry is missing" >&2; exit 1; }
    name=${entry%.py}
    meta=("$DIST/$name"-*.dist-info "$DIST/$name"-*.egg-info)
    case $name in   # distributions named otherwise than their package
        yaml) meta=("$DIST"/PyYAML-*.dist-info) ;; _yaml|tlz) meta=() ;;
        jinja2) meta=("$DIST"/Jinja2-*.egg-info) ;; markupsafe) meta=("$DIST"/MarkupSafe-*.egg-info) ;;
        heapdict) meta=("$DIST"/HeapDict-*.egg-info) ;;
    esac
    if [[ $entry == scipy ]]; then
        mkdir -p "$dist/scipy"
        for part in "${SCIPY_KEEP[@]}"; do cp -a "$DIST/scipy/$part" "$dist/scipy/"; done
    else
        cp -a "$DIST/$entry" "$dist/"
    fi
    for m in "${meta[@]}"; do cp -a "$m" "$dist/"; done
done
for drop in "${NUMPY_DROP[@]}"; do rm -rf "${dist:?}/numpy/$drop"; done
# Nothing here imports dask.dataframe (it needs pandas, absent) or serves the dashboard
# (dask_volume.py starts its clusters with dashboard_address=None; bokeh is absent).
rm -rf "$dist/dask/dataframe" "$dist/distributed/http/static" "$dist/distributed/dashboard"
rm -rf "$dist/numpy/core/include"
find "$dist" \( -name __pycache__ -o -name tests \) -prune -exec rm -rf {} +
find "$dist" \( -name '*.pyx' -o -name '*.pxd' -o -name '*.pxi' \) -delete
# A symbolic link inside (none in Debian 12's today) becomes the file it names.
find "$dist" -type l | while read -r link; do
    [[ -f $link ]] && cp --remove-destination -L "$(readlink -f "$link")" "$link" || rm -f "$link"
done

# ---- glccl's package ----------------------------------------------------------------------------
tar -C "$BUILD/python" --exclude=__pycache__ -cf - glccl | tar -C "$ROOT/glccl-py" -xf -
if [[ ! -e $BUILD/python/glccl/dask.py ]]; then
    echo "py311-bundle: $BUILD/python/glccl has no dask.py: python/glccl's Python files go over the build's"
    cp -a "$REPO"/python/glccl/*.py "$REPO"/python/glccl/*.pyi "$REPO"/python/glccl/py.typed "$ROOT/glccl-py/glccl/"
fi

# ---- shared libraries ---------------------------------------------------------------------------
# Everything ldd resolves for the interpreter and every extension module (recursively,
# as ldd does), less the C and C++ runtimes, zlib and libtinfo (bash's), which every
# Ubuntu 24.04 has, newer than Debian 12's: carrying ours would shadow them for every
# program started under env.sh. Not the GL libraries
# (the prelude's) and not those of lib-dynload modules nothing here imports
# (_dbm, _sqlite3, nis, readline, _curses_panel): those would fail only when imported.
system='^(linux-vdso|ld-linux|libc|libm|libmvec|libdl|libpthread|librt|libresolv|libutil|libcrypt|libgcc_s|libstdc\+\+|libz|libtinfo)\.so'
gl='^(libEGL|libGL|libGLX|libGLdispatch|libOpenGL|libGLEW|libGLESv2)\.so'
skip_dynload='/(_dbm|_sqlite3|nis|readline|_curses_panel)\.'
objects() {
    echo "$ROOT/usr/bin/python3.11"
    find "$ROOT/usr/lib/python3.11/lib-dynload" "$dist" -name '*.so' | grep -Ev "$skip_dynload"
}
objects | xargs ldd 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
    while read -r soname path; do
        [[ $soname =~ $system || $soname =~ $gl ]] && continue
        cp -L "$path" "$ROOT/lib/$soname"
    done
# The module's own libraries (libpng, libtiff, ...) travel in OUT_DIR/lib with the command's.
unresolved=$(objects | xargs ldd 2>/dev/null | grep 'not found' || true)
[[ -z $unresolved ]] || { echo "py311-bundle: unresolved libraries: $unresolved" >&2; exit 1; }

# ---- the environment ----------------------------------------------------------------------------
cat > "$ROOT/env.sh" <<'EOF'
# source ROOT/env.sh [CARRY]: the variables that make ROOT/usr/bin/python3.11 the bundle's
# Python alone (the machine's own Python, its PYTHONPATH and user site are left out), for
# it and every process it starts: Dask's workers (spawned with sys.executable) and glccl.
_py311_root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_py311_carry=${1:+$(cd "$1" && pwd)}
export PYTHONHOME=$_py311_root/usr
export PYTHONPATH=$_py311_root/usr/lib/python3/dist-packages:$_py311_root/glccl-py
export PYTHONNOUSERSITE=1
export LD_LIBRARY_PATH=$_py311_root/lib${_py311_carry:+:$_py311_carry/lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PY311=$_py311_root/usr/bin/python3.11
export GLCCL_MODULE_DIR=$_py311_root/glccl-py
unset PYTHONSTARTUP PYTHONSAFEPATH PYTHONEXECUTABLE VIRTUAL_ENV _py311_root _py311_carry
EOF

/usr/bin/python3 - "$dist" > "$ROOT/VERSIONS" <<'EOF'
import os, sys
names = sorted(n for n in os.listdir(sys.argv[1]) if n.endswith((".dist-info", ".egg-info")))
print("python", sys.version.split()[0])
print("\n".join(names))
EOF

# ---- OUT_DIR: the tarball, the command and its libraries ----------------------------------------
rm -f "$OUT/py311.tar.xz"
tar -C "$ROOT" --owner=0 --group=0 -cf - . | xz -T0 -9 > "$OUT/py311.tar.xz"
strip -o "$OUT/glccl" "$BUILD/tools/glccl"
mkdir -p "$OUT/lib"
rm -f "$OUT"/lib/*
{ ldd "$BUILD/tools/glccl"; ldd "${module[0]}"; } | awk '$2 == "=>" {print $1}' | sort -u | while read -r soname; do
    [[ -e $MISSING_LIBS/$soname ]] && cp -L "$MISSING_LIBS/$soname" "$OUT/lib/"
done

raw=$(du -sb "$ROOT" | cut -f1)
echo "py311-bundle: $OUT"
echo "  root unpacked: $((raw / 1024 / 1024)) MiB ($(find "$ROOT" -type f | wc -l) files); bundle lib/: $(ls "$ROOT/lib" | tr '\n' ' ')"
echo "  py311.tar.xz $(du -h "$OUT/py311.tar.xz" | cut -f1), glccl $(du -h "$OUT/glccl" | cut -f1), lib/ $(du -sh "$OUT/lib" | cut -f1) ($(ls "$OUT/lib" | tr '\n' ' '))"
echo "  OUT_DIR in all: $(du -sh "$OUT" | cut -f1)"

if [[ $TEST == 1 ]]; then
    T=$(mktemp -d /tmp/py311-test.XXXXXX)
    mkdir -p "$T/py311"
    tar -xJf "$OUT/py311.tar.xz" -C "$T/py311"
    env -i PATH=/usr/bin:/bin HOME=/tmp bash -c "source '$T/py311/env.sh' '$OUT' && cd /tmp && \"\$PY311\" -c '
import sys, os
import numpy, scipy.ndimage, scipy.sparse.csgraph, dask, dask.array, distributed, zarr, numcodecs, psutil, tornado
import msgpack, yaml, toolz, cloudpickle, partd, fsspec, tblib, zict, sortedcontainers, jinja2, click, packaging
import glccl, glccl.dask, ssl, lz4.frame, numcodecs.blosc
leaks = [p for p in sys.path if p.startswith((\"/usr/lib/python3\", \"/usr/local/lib/python3\"))]
print(\"executable\", sys.executable)
print(\"sys.path\", sys.path)
for m in (numpy, scipy, dask, distributed, zarr, numcodecs, glccl):
    print(m.__name__, getattr(m, \"__version__\", \"\"), m.__file__)
print(\"backends\", [b[\"name\"] for b in glccl.backends() if b[\"available\"]])
sys.exit(1 if leaks or not numpy.__file__.startswith(\"$T\") else 0)
'"
    rc=$?
    rm -rf "$T"
    exit $rc
fi
