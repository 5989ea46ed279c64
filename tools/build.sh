#!/usr/bin/env bash
# Installs the packages the build needs that are missing, then configures
# build/ (Release; the first time from scratch, afterwards a quick check)
# and builds it with every core.
# Shared by quickstart.sh and run-tests.sh.
#
#   bash tools/build.sh           build/ as above
#   bash tools/build.sh sanitize  build-asan/ instead: clang with AddressSanitizer
#                                 and UBSan, the host code (host tests), the
#                                 libFuzzer harnesses (which replay the fuzz
#                                 seeds too) and the command-line tools
#                                 (glccl, glccl-mpi) for their tests; nothing
#                                 of CUDA
#   bash tools/build.sh tsan      build-tsan/ instead: clang with ThreadSanitizer,
#                                 the cpu engine's tests (cpu_tsan_tests: the
#                                 engine, the host library), in the CPU-only
#                                 configuration (GLCCL_WITH_GL=OFF: nothing
#                                 of GL or CUDA found), whose library stack
#                                 up to the Session it builds too
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/install-deps.sh build

# A tree configured here for the first time uses Ninja: it schedules every
# target's sources on the cores at once, where make finishes a target
# before the next one's sources start. A tree configured earlier keeps its
# generator (CMake refuses to change it).
generator() {
  if [[ ! -f $1/CMakeCache.txt ]] && command -v ninja >/dev/null 2>&1; then
    echo -G Ninja
  fi
}

if [[ "${1:-}" == sanitize ]]; then
  # UBSan's object-size check is left out: AddressSanitizer checks every
  # access against its object's bounds already (shadow memory, not the
  # compiler's view of the object's size), so the check finds nothing more
  # here and only adds to the tree's compile time.
  sanitizers="-fsanitize=address,undefined -fno-sanitize=object-size -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  # -O1 and line tables, as for TSan below: what ASan's reports need (the
  # function and line of every frame), at a little more than half the
  # compile time of -O2 -g.
  cmake -S . -B build-asan $(generator build-asan) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_FLAGS="$sanitizers" -DCMAKE_CXX_FLAGS="$sanitizers" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DGLCCL_WITH_CUDA=OFF -DGLCCL_BUILD_TOOLS=ON -DGLCCL_BUILD_PYTHON=OFF -DGLCCL_FUZZ=ON
  targets=(host_tests glccl_cli)
  # glccl-mpi where Open MPI is found. (The list is read whole first: grep -q
  # would close the pipe early, and under pipefail the test would fail.)
  buildable=$(cmake --build build-asan --target help)
  if grep -qw glccl_mpi <<<"$buildable"; then
    targets+=(glccl_mpi)
  fi
  for kind in png jpeg tiff npy pnm options cpu; do
    targets+=("fuzz_$kind")
  done
  cmake --build build-asan -j "$(nproc)" --target "${targets[@]}"
  exit 0
fi

if [[ "${1:-}" == tsan ]]; then
  # -O1 and line tables: what TSan's reports need, at two thirds of the
  # compile time of -O2 -g.
  cmake -S . -B build-tsan $(generator build-tsan) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_CXX_FLAGS=-fsanitize=thread \
    -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
    -DGLCCL_WITH_GL=OFF -DGLCCL_WITH_CUDA=OFF -DGLCCL_BUILD_TOOLS=OFF -DGLCCL_BUILD_PYTHON=OFF
  cmake --build build-tsan -j "$(nproc)" --target cpu_tsan_tests glccl_session
  exit 0
fi

# nvcc is not on PATH in Debian's CUDA packages: point CMake at it when it is
# there, so the CUDA path is built too.
# The device probes of bench/ too (the interop probe where CUDA is): the GPU
# machine runs them, and a probe no build compiles drifts from the library
# unseen.
cmake_args=(-S . -B build $(generator build) -DCMAKE_BUILD_TYPE=Release -DGLCCL_BUILD_PROBES=ON)
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  cmake_args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
  # A tree configured where no GPU answers (CI) is a check that the CUDA
  # code compiles: every kernel is compiled, as PTX only and without NVVM's
  # optimizations (GLCCL_CUDA_OPTIMIZE_KERNELS=OFF), in about half the
  # time. Give -DCMAKE_CUDA_ARCHITECTURES yourself (and leave the option
  # on) for a GPU's own code.
  if [[ ! -f build/CMakeCache.txt ]] && ! nvidia-smi -L >/dev/null 2>&1; then
    cmake_args+=(-DCMAKE_CUDA_ARCHITECTURES=75-virtual -DGLCCL_CUDA_OPTIMIZE_KERNELS=OFF)
  fi
fi
cmake "${cmake_args[@]}"
cmake --build build -j "$(nproc)"
