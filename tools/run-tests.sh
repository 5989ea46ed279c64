#!/usr/bin/env bash
# Builds build/ (configuring it the first time, incrementally after that) and
# runs the whole test suite: host_* tests, gl_* tests on whatever EGL offers
# (Mesa llvmpipe on a machine without a GPU) and, when CUDA is built, cuda_*
# tests, which skip with a printed reason where there is no device.
# Then the host code under AddressSanitizer and UBSan (build-asan/): the
# host tests, every command-line test (glccl and glccl-mpi built with the
# sanitizers: tools:, host: outputs, and the tiles: and gl: ones that run
# the commands), the replay
# of the fuzz seeds and regressions, and a short run of each libFuzzer
# harness (FUZZ_SECONDS each, 5 by default; 0 skips it). And the cpu
# engine's tests under ThreadSanitizer (build-tsan/), a CPU-only build
# (GLCCL_WITH_GL=OFF) whose libraries up to the Session build there too.
# The sanitizers' trees build beside the tests of the trees before them.
# Installs missing packages first: CI machines start fresh.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase's wall time, printed as it ends: where the suite's minutes go.
phase_start=$SECONDS
phase() {
  echo "run-tests: $1 took $((SECONDS - phase_start)) s (total $SECONDS s)"
  phase_start=$SECONDS
}

# Every package, the tests' too (tools/build.sh installs the build's alone).
# Installing the tests' packages while the build runs gains nothing on two
# cores: unpacking them is CPU work too, and the build slows by as much.
bash tools/install-deps.sh
bash tools/build.sh
phase "the build"

# Mesa's llvmpipe, the GL tests' driver where there is no GPU, compiles each
# shader program with LLVM's optimizations. On a fresh machine its shader
# cache is empty, and compiling the engines' program variants (criterion,
# connectivity, input format, tuning) is most of what the GL tests take, on
# images that are small. Unoptimized, the programs compile faster and run
# slower, and the suite takes less time; they compute the same labels.
export GALLIVM_PERF=${GALLIVM_PERF:-nopt}
# And with vectors of 4 lanes rather than the host's widest (8 with AVX2):
# each program's code is about half as wide, so it compiles in less time
# and runs slower. A suite that starts with an empty shader cache (a CI
# machine, every time) compiles each program once and runs it on small
# images, and the compiles weigh more (docs/testing.md). From a full cache
# the suite runs slower with them.
export LP_NATIVE_VECTOR_WIDTH=${LP_NATIVE_VECTOR_WIDTH:-128}
# llvmpipe keeps its threads (LP_NUM_THREADS unset): with one a process the
# tests' CPU time was the same, ctest's two processes sharing the cores
# anyway, and the compute shaders' work groups would no longer run at once.

# The sanitizers' trees build at the lowest priority while the tests before
# them run: the tests leave cores idle (processes starting, sleeping on
# signals and timeouts, waiting on a browser), which the builds take, and
# they yield to the tests otherwise. Each build's output goes to a log,
# printed if it fails.
logs=$(mktemp -d "${TMPDIR:-/tmp}/glccl-run-tests.XXXXXX")
builds=()
stop_builds() {
  for pid in "${builds[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
  rm -rf "$logs"
}
trap stop_builds EXIT
# Job control for the start only: the build gets a process group of its own
# (killed whole on exit) in this session. Not a session of its own: the
# kernel's autogroups share the cores between sessions evenly, whatever
# their nice values.
start_build() {
  set -m
  nice -n 19 bash tools/build.sh "$1" >"$logs/$1.log" 2>&1 &
  set +m
  builds+=($!)
  declare -g "build_$1=$!"
}
finish_build() {
  local pid_name=build_$1
  if ! wait "${!pid_name}"; then
    tail -n 100 "$logs/$1.log"
    echo "run-tests: tools/build.sh $1 failed (the end of its output above)" >&2
    exit 1
  fi
}
start_build sanitize

# The command-line tests run once: against glccl and glccl-mpi built with the
# sanitizers (below: the same sources, every memory error and undefined
# behaviour failing them), but those run here, in the optimized build, only:
# the three that run lighter there, here at full strength (the list below
# the sanitizers' build), the tiled runs on the compute backend, whose
# tiling code runs under the sanitizers on the cpu backend and whose engine
# under them in the other GL commands' tests (there, Mesa's allocations
# through the sanitizers' allocator in every process and context are most
# of their time), three whose code the sanitizers see elsewhere: the
# .npy header's parser (fuzz_npy and the host tests), the stage times'
# printing, and measuring (the host tests' [measure] cases), and the peak
# memory of TIFF inputs (peaks the sanitizers' shadow and quarantine would
# swell; the TIFF reader runs under them in the tiled TIFF labelings and
# fuzz_tiff). Here every other test, of the optimized build.
# --no-tests=error: a suite that registered nothing is a failure, not a pass.
cli_tests='^(host: outputs|tools:|tiles:(glccl|mpirun)|gl: (every input format|glccl label on volumes))'
optimized_only='^(tiles:glccl label --memory-limit|tiles:glccl label peaks|gl: every input format|tools: glccl label shows a progress line|tiles:.*[(]compute[)]|tools: glccl label reads a .npy header|tools: stage times|tools: glccl measure and label --properties)'
ctest --test-dir build --output-on-failure -j2 --timeout 600 --no-tests=error -E "$cli_tests"
ctest --test-dir build --output-on-failure -j2 --timeout 600 --no-tests=error -R "$optimized_only"
phase "the tests"

finish_build sanitize
phase "the sanitizers' build, after the tests"
start_build tsan
# Sweeps that prove nothing more under the sanitizers at full size run lighter
# in this build, each test deciding so itself: the label filters' layout sweep
# pairwise (every layout with every shape and labeling, not every triple:
# tests/host_label_filters.cpp). Three command-line tests would run lighter
# here too (each colour file's luma at one level instead of all,
# gl_image_formats.py; --memory-limit at each input's smallest limit with its
# peaks unchecked, tiles_memory_limit_test.py; the progress line's noise
# sized for the sanitized speed, cli_progress_test.py): they ran above at
# full strength instead ($optimized_only).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j2 --timeout 600 --no-tests=error -R '^host:' -E "$cli_tests"
# The command-line tests, glccl and glccl-mpi built with the sanitizers. They
# load Mesa's EGL drivers and Open MPI, which are unloaded at exit with
# allocations LeakSanitizer can no longer attribute to a library, so leaks
# are checked by the host tests above only; every memory error and undefined
# behaviour still fails these.
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j2 --timeout 600 --no-tests=error -R "$cli_tests" -E "$optimized_only"
phase "the tests under the sanitizers"

# The cpu engine's threads under ThreadSanitizer: its tests, at every thread
# count they take, but the sweep of criteria and sample widths (the same
# threads as the rest, ten times slower under TSan). libgomp is not
# instrumented, so the engine uses plain std::thread, which TSan sees whole;
# any report fails the run.
# Two processes at once, one a core, of about equal length: the engine's
# cases with the measuring's longest (their output printed after), and the
# rest of the measuring's.
finish_build tsan
# (The longest case by the end of its name: the name holds a comma, which a
# test spec reads as "or".)
longest_measure='*floating-point intensities included'
TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/cpu_tsan_tests "[cpu]~[sweep]~[measure],$longest_measure" \
  >"$logs/tsan-engine.log" 2>&1 &
engine_run=$!
tsan_status=0
TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/cpu_tsan_tests "[measure]~$longest_measure" || tsan_status=$?
wait "$engine_run" || tsan_status=$?
cat "$logs/tsan-engine.log"
((tsan_status == 0)) || exit "$tsan_status"
phase "ThreadSanitizer's run"

# A short fuzz run per reader (and for the cpu engine against the reference),
# from the seeds, in a scratch corpus. A finding
# fails the run; its input is left in the scratch folder: add it to
# tests/data/fuzz-regressions/<reader>/ with the fix.
fuzz_seconds=${FUZZ_SECONDS:-5}
if ((fuzz_seconds > 0)); then
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/glccl-fuzz.XXXXXX")
  fuzz() {
    local kind=$1
    mkdir -p "$scratch/$kind"
    build-asan/fuzz/fuzz_$kind -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 -timeout=10 -max_len=16384 \
      -print_final_stats=1 -artifact_prefix="$scratch/$kind/" "$scratch/$kind" "fuzz/corpus/$kind" \
      >"$scratch/$kind.log" 2>&1
  }
  # As many harnesses at once as there are cores: each is one process on
  # one core, for the same seconds as alone.
  kinds=(png jpeg tiff npy pnm options cpu)
  parallel=$(nproc)
  failed=()
  for ((i = 0; i < ${#kinds[@]}; i += parallel)); do
    batch=("${kinds[@]:i:parallel}")
    pids=()
    for kind in "${batch[@]}"; do
      echo "fuzz_$kind: ${fuzz_seconds} s"
      fuzz "$kind" &
      pids+=($!)
    done
    for j in "${!batch[@]}"; do
      if ! wait "${pids[$j]}"; then failed+=("${batch[$j]}"); fi
      grep -E 'number_of_executed_units' "$scratch/${batch[$j]}.log" || true
    done
  done
  for kind in "${failed[@]}"; do
    tail -n 60 "$scratch/$kind.log"
    echo "fuzz_$kind found a problem; its input is in $scratch/$kind/ (crash-*, leak-*, timeout-*, oom-*)" >&2
  done
  ((${#failed[@]} == 0)) || exit 1
  rm -rf "$scratch"
  phase "the fuzz runs"
fi
