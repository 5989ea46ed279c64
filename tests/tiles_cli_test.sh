#!/bin/sh
# Tiled labeling from the command line against the one-piece CPU reference,
# byte for byte (labels .npy and stats CSV):
#
#   tiles_cli_test.sh GLCCL GLCCL_MPI|- PYTHON SCRATCH RANKS BACKEND
#
# RANKS: "0" runs glccl label --tile (one process); "2 3" runs
# mpirun -n 2 and -n 3 glccl-mpi (oversubscribed; as root too). Prints one
# line per comparison and "N identical, 0 different" at the end; exits 1 on
# any difference or failure.
glccl=$1 mpi=$2 python=$3 scratch=$4 ranks=$5 backend=$6
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
cd "$scratch" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Inputs: generated families (binary) and random segment, 16-bit segment
# and color images, all with prime sides.
"$glccl" generate spiral 211x97 spiral.npy >/dev/null || exit 1
"$glccl" generate noise50 131x61 noise.npy >/dev/null || exit 1
"$python" -c "
import numpy as np
r = np.random.default_rng(5)
np.save('segments.npy', (r.integers(0, 4, (97, 131)) * (r.random((97, 131)) < 0.8)).astype(np.uint8))
np.save('segments16.npy', (r.integers(0, 3, (53, 71)) * 300).astype(np.uint16))
np.save('color.npy', r.integers(0, 60, (61, 83, 3)).astype(np.uint8))
" || exit 1
same=0 different=0
compare() {  # name, then the command that writes t.npy and t.csv
    name=$1; shift
    rm -f t.npy t.csv
    # (stdin closed: mpirun would read the list of cases)
    if ! "$@" --labels t.npy --stats t.csv < /dev/null > run.txt 2>&1; then
        echo "FAILED: $name"; cat run.txt; different=$((different + 1)); return
    fi
    if cmp -s t.npy r.npy && cmp -s t.csv r.csv; then
        same=$((same + 1))
    else
        echo "DIFFERENT: $name"; different=$((different + 1))
    fi
}
# One process: every input, both connectivities, four tile shapes. MPI:
# fewer cases, since every mpirun costs half a second; tiles of 64x200 leave
# some ranks without a band.
if [ "$ranks" = 0 ]; then
    cases=""
    for input in "spiral.npy binary" "noise.npy binary" "segments.npy segments" "segments16.npy segments" \
                 "color.npy threshold:20"; do
        for connectivity in 4 8; do
            for tile in 7x5 1x13 40x1 64x200; do cases="$cases $input $connectivity $tile;"; done
        done
    done
else
    cases="spiral.npy binary 8 7x5; spiral.npy binary 4 64x200; segments.npy segments 4 1x13;
           segments16.npy segments 8 7x5; color.npy threshold:20 8 13x7; noise.npy binary 8 40x1;"
fi
reference=""
echo "$cases" | tr ';' '\n' | while read -r input criterion connectivity tile; do
    [ -n "$input" ] || continue
    echo "$input $criterion $connectivity $tile"
done > cases.txt
while read -r input criterion connectivity tile; do
    if [ "$reference" != "$input $criterion $connectivity" ]; then
        channels=""
        [ "$input" = color.npy ] && channels="--channel-axis -1"
        "$glccl" label "$input" --backend cpu --criterion "$criterion" --connectivity "$connectivity" $channels \
            --labels r.npy --stats r.csv --force >/dev/null || { echo "reference failed: $input"; exit 1; }
        reference="$input $criterion $connectivity"
    fi
    # A 3-D .npy is a volume unless its channel axis is named.
    channels=""
    [ "$input" = color.npy ] && channels="--channel-axis -1"
    options="--backend $backend --criterion $criterion --connectivity $connectivity --tile $tile $channels"
    if [ "$ranks" = 0 ]; then
        compare "$input $criterion $connectivity $tile" "$glccl" label "$input" $options
    else
        for n in $ranks; do
            compare "$input $criterion $connectivity $tile n=$n" \
                mpirun -n "$n" --oversubscribe "$mpi" label "$input" $options
        done
    fi
done < cases.txt
echo "$same identical, $different different"
[ "$different" -eq 0 ]
