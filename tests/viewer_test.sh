#!/usr/bin/env bash
# Runs glccl_viewer under Xvfb for a few frames of its deterministic scene
# and checks the screenshot against the labels with viewer_check (which
# recomputes them with the CPU reference from the dumped input).
#
# usage: viewer_test.sh VIEWER VIEWER_CHECK WORK_DIR
set -euo pipefail

viewer=$1 check=$2 work=$3

fail() { echo "viewer_test: FAILED: $*" >&2; exit 1; }

# Not a skip: without Xvfb the example is untested, so say how to get it.
for program in xvfb-run Xvfb xauth; do
  command -v "$program" >/dev/null 2>&1 \
    || fail "$program not found; install the Debian packages xvfb and xauth (bash tools/install-deps.sh does)"
done

rm -rf "$work"
mkdir -p "$work"

run_case() {
  local name=$1 connectivity=$2 criterion=$3; shift 3
  local log=$work/$name.log
  echo "viewer_test: $name: glccl_viewer --connectivity $connectivity --criterion $criterion $*"
  # GLX on llvmpipe inside a private X server (-a picks a free display).
  xvfb-run -a -s "-screen 0 1024x768x24" \
    "$viewer" --frames 3 --screenshot "$work/$name.png" --dump "$work/$name" \
    --connectivity "$connectivity" --criterion "$criterion" "$@" >"$log" 2>&1 \
    || { cat "$log"; fail "$name: glccl_viewer exited with an error"; }
  cat "$log"
  local count
  count=$(sed -n 's/^frame 3: \([0-9]*\) components.*/\1/p' "$log")
  [[ -n "$count" ]] || fail "$name: no 'frame 3: N components' line"
  "$check" "$work/$name.png" "$work/$name.mask.png" "$work/$name.labels.npy" "$count" "$connectivity" "$criterion" \
    || fail "$name: the screenshot does not match the labels"
}

run_case blobs_8_binary 8 binary --size 320x200
run_case bands_4_threshold 4 threshold:20 --size 256x160

# A volume shown at slice 5: the labels of the whole volume against the
# reference, and the picture against that slice: at 6 on the default
# backend, at 26 labeled as a 3-D texture by the compute backend.
/usr/bin/python3 -c "import numpy as np; r = np.random.default_rng(7); np.save('$work/volume.npy', ((r.random((9, 60, 80)) < 0.3) * 255).astype(np.uint8))" \
  || fail "numpy (Debian's python3-numpy) is needed to write the test volume"
for connectivity in 6 26; do
  name=volume_$connectivity backend=auto
  [[ $connectivity == 26 ]] && backend=compute
  log=$work/$name.log
  echo "viewer_test: $name: glccl_viewer --image volume.npy --slice 5 --connectivity $connectivity --backend $backend"
  xvfb-run -a -s "-screen 0 1024x768x24" \
    "$viewer" --image "$work/volume.npy" --slice 5 --frames 2 --screenshot "$work/$name.png" --dump "$work/$name" \
    --connectivity $connectivity --backend $backend >"$log" 2>&1 || { cat "$log"; fail "$name: glccl_viewer exited with an error"; }
  cat "$log"
  count=$(sed -n 's/^frame 2: \([0-9]*\) components.*, slice 5$/\1/p' "$log")
  [[ -n "$count" ]] || fail "$name: no 'frame 2: N components ..., slice 5' line"
  "$check" "$work/$name.png" "$work/volume.npy" "$work/$name.labels.npy" "$count" $connectivity binary 5 \
    || fail "$name: the screenshot does not match the labels"
done

# An existing screenshot is kept without --force, and no window is opened.
echo keep >"$work/existing.png"
if output=$(DISPLAY= "$viewer" --frames 1 --screenshot "$work/existing.png" 2>&1); then
  fail "glccl_viewer overwrote an existing screenshot without --force"
fi
[[ "$output" == *"exists; use --force to overwrite it"* ]] || fail "unexpected refusal message: $output"
[[ "$(cat "$work/existing.png")" == keep ]] || fail "the existing screenshot was changed"
echo "viewer_test: passed"
