#!/usr/bin/env bash
# What the volume engines' correctness and speed rest on, in one run on the
# GPU machine, from a build with CUDA:
#
#   cd BUILD && source ../.gl/prelude.sh && bash ../bench/volume-check.sh OUT_DIR [STEP...]
#
# Steps (all of them, in this order, when none is named):
#   tests      cuda_tests "[volume]": every entry and shape against the CPU
#              reference, the node functions on the host
#   repeat     glccl validate --random-volumes 300@96 --connectivity all3d
#              --repeat 10: every repeat of every volume identical to the
#              first and to the reference (the atomics)
#   families   glccl validate on the four benchmark families at 256^3 and
#              noise30 at 600x500x300, at 6, 18 and 26
#   bench512   glccl bench --sizes 512x512x512 --steps at 6, 18 and 26
#   bench1024  the four families at 1024^3 written by glccl generate, then
#              glccl bench FILE --steps at 6, 18 and 26
#   peers      bench/volume_peers.py: cupyx.scipy.ndimage.label on the same
#              volumes at 512^3 and 1024^3, at 6, 18 and 26
# BACKENDS (default cuda,compute) names the backends of validate and bench;
# REPS the repetitions of bench (default 5). Logs and CSVs go to OUT_DIR;
# a summary of the bench CSVs is printed last. Exits 1 when a correctness
# step (tests, repeat, families) failed; the benchmarks assert nothing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(pwd)
out=${1:?usage: volume-check.sh OUT_DIR [STEP...]}
shift
steps=("$@")
((${#steps[@]})) || steps=(tests repeat families bench512 bench1024 peers)
mkdir -p "$out"
glccl=$build/tools/glccl/glccl
[ -x "$glccl" ] || glccl=$build/tools/glccl
tests=$build/tests/cuda_tests
backends=${BACKENDS:-cuda,compute}
reps=${REPS:-5}
volumes=${VOLUME_DIR:-/tmp/glccl-volumes}
status=0
source "$here/check-steps.sh"

for s in "${steps[@]}"; do
  case $s in
    tests) step tests "$tests" "[volume]" || status=1 ;;
    repeat)
      step repeat "$glccl" validate --random-volumes 300@96 --connectivity all3d --repeat 10 \
        --backends "$backends" || status=1 ;;
    families)
      step families "$glccl" validate \
        --generate noise30@256x256x256,blobs@256x256x256,balls@256x256x256,hilbert@256x256x256 \
        --generate noise30@600x500x300 --connectivity all3d --backends "$backends" || status=1 ;;
    bench512)
      for c in 6 18 26; do
        step "bench512_$c" "$glccl" bench --backends "$backends" --sizes 512x512x512 --connectivity $c \
          --reps "$reps" --steps --csv "$out/bench512_$c.csv"
      done ;;
    bench1024)
      mkdir -p "$volumes"
      for f in noise30 blobs balls hilbert; do
        [ -f "$volumes/${f}_1024.npy" ] || "$glccl" generate "$f" 1024x1024x1024 "$volumes/${f}_1024.npy" > /dev/null
      done
      for c in 6 18 26; do
        step "bench1024_$c" "$glccl" bench "$volumes"/{noise30,blobs,balls,hilbert}_1024.npy --backends "$backends" \
          --connectivity $c --reps "$reps" --steps --csv "$out/bench1024_$c.csv"
      done ;;
    peers)
      step peers python3 "$here/volume_peers.py" "$glccl" --sizes 512,1024 --connectivity 6,18,26 --reps 3 \
        --volume-dir "$volumes" --csv "$out/peers.csv" ;;
    *) echo "volume-check: no step '$s'" >&2; exit 2 ;;
  esac
done

echo "== summary"
for name in "${!result[@]}"; do echo "$name: exit ${result[$name]}"; done | sort
for csv in "$out"/bench*.csv; do
  [ -f "$csv" ] || continue
  echo "-- $(basename "$csv")"
  python3 - "$csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["backend"] == "transfer":
        continue
    voxels = int(r["width"]) * int(r["height"]) * int(r["family"].partition("depth=")[2] or 1)
    stage = r["stage"]
    gvox = voxels / float(r["median_ms"]) / 1e6 if stage == "total" and float(r["median_ms"]) > 0 else 0
    print(f'{r["backend"]:8} {r["family"]:28} c{r["connectivity"]:3} {stage:16} {float(r["median_ms"]):9.3f} ms'
          + (f'  {gvox:6.1f} Gvox/s  {r["components"]} components' if stage == "total" else ""))
PY
done
exit $status
