#!/usr/bin/env bash
# Installs a glccl build into a fresh prefix and builds tests/consumer/
# against it as docs/renderer.md tells an application to: with its CMake
# lines (find_package(glccl), glccl::glccl; checked to be the consumer's own)
# and with its pkg-config command line, run as the page gives it. Runs both
# programs (they label on whatever GL the machine has, llvmpipe in CI) and
# fails on any mismatch. The C++ examples of README.md and docs/ are
# compiled against the install too.
#
# usage: install_consumer.sh BUILD_DIR SOURCE_DIR CMAKE CXX WORK_DIR
set -euo pipefail

build=$1 source=$2 cmake=$3 cxx=$4 work=$5

step() { echo "install_consumer: $*"; }
fail() { echo "install_consumer: FAILED: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "install"; }

for file in include/glccl/glccl.hpp include/glccl/labeler.hpp include/glccl/session.hpp include/glccl/version.hpp \
            include/glccl/types.hpp include/glccl/image_io.hpp bin/glccl; do
  [[ -e "$prefix/$file" ]] || fail "the install has no $file"
done
config=$(find "$prefix" -name glcclConfig.cmake -print -quit)
pcfile=$(find "$prefix" -name glccl.pc -print -quit)
[[ -n "$config" ]] || fail "the install has no glcclConfig.cmake"
[[ -n "$pcfile" ]] || fail "the install has no glccl.pc"
"$prefix/bin/glccl" --version

# The fenced block of language $2 in the section "## $1" of docs/renderer.md.
doc_block() {
  awk -v section="## $1" -v lang="$2" '
    /^## / { inside = ($0 == section) }
    inside && $0 == "```" lang { block = 1; next }
    block && /^```/ { exit }
    block { print }' "$source/docs/renderer.md"
}

step "the CMake lines of docs/renderer.md are the consumer's"
cmake_lines=$(doc_block "Building against glccl" cmake)
[[ -n "$cmake_lines" ]] || fail "docs/renderer.md has no cmake block under \"Building against glccl\""
while IFS= read -r line; do
  line=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' <<<"$line")
  [[ -z "$line" ]] && continue
  grep -qxF "$line" "$source/tests/consumer/CMakeLists.txt" \
    || fail "docs/renderer.md gives \"$line\"; tests/consumer/CMakeLists.txt does not use it"
  echo "  $line"
done <<<"$cmake_lines"

step "find_package(glccl) with CMAKE_PREFIX_PATH=$prefix"
"$cmake" -S "$source/tests/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
         -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" \
  || { cat "$work/configure.log"; fail "configuring the consumer with find_package(glccl)"; }
grep "glccl .* from" "$work/configure.log"
"$cmake" --build "$work/cmake-build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "building the consumer with find_package(glccl)"; }
run_consumer() {
  local output
  output=$("$1" "$work") || { echo "$output"; fail "$2: the labels differ from the reference"; }
  echo "$output"
  # The library reports the version the package was installed as.
  [[ "$output" == "glccl $version: "* ]] || fail "$2: glccl::versionString() is not the package version $version"
}
version=$(sed -n 's/^Version: //p' "$pcfile")
run_consumer "$work/cmake-build/app" "find_package consumer"

# The page's command, run as written in a folder holding app.cpp, with the
# page's prefix /opt/glccl replaced by this install's.
step "pkg-config as docs/renderer.md gives it, with /opt/glccl=$prefix"
pc_command=$(doc_block "Building against glccl" sh)
[[ -n "$pc_command" ]] || fail "docs/renderer.md has no sh block under \"Building against glccl\""
mkdir -p "$work/pkg-config"
cp "$source/tests/consumer/main.cpp" "$work/pkg-config/app.cpp"
echo "${pc_command//\/opt\/glccl/$prefix}"
(cd "$work/pkg-config" && env -u PKG_CONFIG_PATH bash -euo pipefail -c "${pc_command//\/opt\/glccl/$prefix}") \
  || fail "building the consumer with the pkg-config command of docs/renderer.md"
[[ -x "$work/pkg-config/app" ]] || fail "the pkg-config command of docs/renderer.md made no ./app"
run_consumer "$work/pkg-config/app" "pkg-config consumer"

# Each C++ example of README.md and docs/ in a function of its own (its
# #include lines above it, after the application's GL loader), given the
# names the examples leave to the application: the texture `mask` and its
# `width` and `height`.
step "the C++ examples of README.md and docs/ compile against the install"
export PKG_CONFIG_PATH=$(dirname "$pcfile")
cflags=$(pkg-config --cflags glccl) || fail "pkg-config --cflags glccl"
mkdir -p "$work/examples"
examples=0
for page in "$source/README.md" "$source"/docs/*.md; do
  awk -v out="$work/examples/$(basename "$page" .md)" '
    $0 == "```cpp" { n++; file = out "_" n ".cpp"; body = ""; includes = ""; block = 1; next }
    block && /^```/ {
      print "#include <GL/glew.h>\n" includes "\nvoid example(GLuint mask, int width, int height) {\n" body "}" > file
      close(file); block = 0; next }
    block && /^#include/ { includes = includes $0 "\n"; next }
    block { body = body $0 "\n" }' "$page"
done
for example in "$work"/examples/*.cpp; do
  [[ -e "$example" ]] || continue
  # shellcheck disable=SC2086  # the flags are a word list
  "$cxx" -std=c++17 -fsyntax-only -Wno-unused $cflags "$example" \
    || { cat -n "$example"; fail "the example $(basename "$example") does not compile"; }
  examples=$((examples + 1))
done
echo "  $examples examples compiled"
(( examples > 0 )) || fail "no C++ example found in README.md and docs/"

step "both consumers built and labeled correctly"
