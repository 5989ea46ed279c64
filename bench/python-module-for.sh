#!/usr/bin/env bash
# The Python package of a build, its module compiled again for another
# interpreter: the GPU machine's, whose Python version (and numpy 2, which
# needs pybind11 2.12 or later) this machine's Debian packages may not
# match. The build's own compile and link lines are reused, with the other
# interpreter's headers and another pybind11's in place of this machine's.
#
#   bench/python-module-for.sh BUILD_DIR PYTHON_INCLUDE PYBIND11_INCLUDE OUT_DIR
#
# BUILD_DIR         a configured and built tree with the module (build/python)
# PYTHON_INCLUDE    the other interpreter's headers: the folder of its
#                   Python.h (python3 -c "import sysconfig;
#                   print(sysconfig.get_paths()['include'])" there). On
#                   Debian and Ubuntu its pyconfig.h includes
#                   <x86_64-linux-gnu/python3.X/pyconfig.h>: copy that folder
#                   too, beside it, as `tar -C /usr/include -czf py.tgz
#                   python3.X x86_64-linux-gnu/python3.X` does.
# PYBIND11_INCLUDE  a folder holding pybind11/ (pybind11's include folder;
#                   PyTorch ships one under torch/include)
# OUT_DIR           gets glccl/, the package: PYTHONPATH=OUT_DIR imports it
#
# Only for Linux on x86-64 (the extension's name says so).
set -euo pipefail
if [ $# -ne 4 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
fi
build=$(cd "$1" && pwd)
pyinclude=$(cd "$2" && pwd)
pybind=$(cd "$3" && pwd)
out=$4
target=$build/python/CMakeFiles/glccl_python.dir
for file in "$target/flags.make" "$target/link.txt" "$pyinclude/Python.h" "$pyinclude/patchlevel.h" \
            "$pybind/pybind11/detail/common.h"; do
    [ -f "$file" ] || { echo "python-module-for.sh: $file is missing" >&2; exit 1; }
done
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")

version=$(sed -n 's/^#define PY_VERSION *"\(.*\)".*/\1/p' "$pyinclude/patchlevel.h")
major=$(sed -n 's/^#define PY_MAJOR_VERSION *\([0-9]*\).*/\1/p' "$pyinclude/patchlevel.h")
minor=$(sed -n 's/^#define PY_MINOR_VERSION *\([0-9]*\).*/\1/p' "$pyinclude/patchlevel.h")
suffix=".cpython-$major$minor-x86_64-linux-gnu.so"
pybind_version=$(for part in MAJOR MINOR 'MICRO\|PATCH'; do
    sed -n "s/^#define PYBIND11_VERSION_\($part\) *\([0-9a-z.]*\).*/\2/p" "$pybind/pybind11/detail/common.h" | head -1
done | paste -sd.)

flag() { sed -n "s/^$1 = //p" "$target/flags.make"; }
# This machine's Python headers out, the other interpreter's and pybind11's
# in (first, ahead of any pybind11 in the system's include folder).
includes=$(flag CXX_INCLUDES | sed 's#-isystem [^ ]*/python3[.0-9]*##')
# The headers' parent folder (for <x86_64-linux-gnu/python3.X/pyconfig.h>)
# comes after every other; where it is pybind11's folder too, -I has it
# already: named again with -idirafter, gcc would drop the -I and take the
# system's pybind11 first.
parent=$(dirname "$pyinclude")
after=""
[ "$parent" = "$pybind" ] || after="-idirafter $parent"
read -r -a compile <<< "$(flag CXX_DEFINES) -I$pybind -isystem $pyinclude $after $includes $(flag CXX_FLAGS)"

mkdir -p "$out/glccl"
out=$(cd "$out" && pwd)
objects=$(mktemp -d)
trap 'rm -rf "$objects"' EXIT
read -r -a link <<< "$(cat "$target/link.txt")"
command=()
for word in "${link[@]}"; do
    case $word in
        CMakeFiles/glccl_python.dir/*.cpp.o)
            name=$(basename "$word" .cpp.o)
            c++ "${compile[@]}" -c "$source_dir/python/$name.cpp" -o "$objects/$name.o"
            command+=("$objects/$name.o") ;;
        CMakeFiles/glccl_python.dir/Unity/*.cxx.o)
            # A unity build's batch: the generated source that includes
            # several of the module's sources.
            name=$(basename "$word" .cxx.o)
            c++ "${compile[@]}" -c "$target/Unity/$name.cxx" -o "$objects/$name.o"
            command+=("$objects/$name.o") ;;
        glccl/_glccl*.so) command+=("$out/glccl/_glccl$suffix") ;;
        *) command+=("$word") ;;
    esac
done
(cd "$build/python" && "${command[@]}")

for file in "$build"/python/glccl/*.py "$build"/python/glccl/*.pyi "$build"/python/glccl/py.typed; do
    [ "$(basename "$file")" = _build.py ] || cp "$file" "$out/glccl/"
done
sed -e "s#^INTERPRETER = .*#INTERPRETER = \"python$major.$minor\"#" \
    -e "s#^PYTHON_VERSION = .*#PYTHON_VERSION = \"$version\"#" \
    -e "s#^EXTENSION_SUFFIX = .*#EXTENSION_SUFFIX = \"$suffix\"#" \
    -e "s#^PYBIND11_VERSION = .*#PYBIND11_VERSION = \"$pybind_version\"#" \
    "$build/python/glccl/_build.py" > "$out/glccl/_build.py"
echo "wrote $out/glccl (Python $version, $suffix, pybind11 $pybind_version)"
