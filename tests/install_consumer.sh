#!/usr/bin/env bash
# Installs a glccl build into a fresh prefix and builds tests/consumer/
# against it twice, as an application would: with find_package(glccl) and
# with a plain compiler line from pkg-config. Runs both programs (they label
# on whatever GL the machine has, llvmpipe in CI) and fails on any mismatch.
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

for file in include/glccl/glccl.hpp include/glccl/labeler.hpp include/glccl/version.hpp \
            include/glccl/types.hpp include/glccl/image_io.hpp bin/glccl; do
  [[ -e "$prefix/$file" ]] || fail "the install has no $file"
done
config=$(find "$prefix" -name glcclConfig.cmake -print -quit)
pcfile=$(find "$prefix" -name glccl.pc -print -quit)
[[ -n "$config" ]] || fail "the install has no glcclConfig.cmake"
[[ -n "$pcfile" ]] || fail "the install has no glccl.pc"
"$prefix/bin/glccl" --version

step "find_package(glccl) with CMAKE_PREFIX_PATH=$prefix"
"$cmake" -S "$source/tests/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
         -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" \
  || { cat "$work/configure.log"; fail "configuring the consumer with find_package(glccl)"; }
grep "glccl .* from" "$work/configure.log"
"$cmake" --build "$work/cmake-build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "building the consumer with find_package(glccl)"; }
run_consumer() {
  local output
  output=$("$1") || { echo "$output"; fail "$2: the labels differ from the reference"; }
  echo "$output"
  # The library reports the version the package was installed as.
  [[ "$output" == "glccl $version "* ]] || fail "$2: glccl::versionString() is not the package version $version"
}
version=$(sed -n 's/^Version: //p' "$pcfile")
run_consumer "$work/cmake-build/glccl_consumer" "find_package consumer"

step "pkg-config with PKG_CONFIG_PATH=$(dirname "$pcfile")"
export PKG_CONFIG_PATH=$(dirname "$pcfile")
flags=$(pkg-config --cflags --libs glccl) || fail "pkg-config --cflags --libs glccl"
echo "pkg-config glccl $(pkg-config --modversion glccl): $flags"
# shellcheck disable=SC2086  # the flags are a word list
"$cxx" -std=c++17 -O1 "$source/tests/consumer/main.cpp" -o "$work/glccl_consumer_pc" $flags \
  || fail "building the consumer from pkg-config's flags"
run_consumer "$work/glccl_consumer_pc" "pkg-config consumer"

step "both consumers built and labeled correctly"
