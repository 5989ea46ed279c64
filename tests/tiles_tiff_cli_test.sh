#!/bin/sh
# TIFF input of tiled labeling from the command line (docs/huge-images.md):
# tiled and striped TIFF and BigTIFF files written by tifffile, labeled with
# small tiles, against the one-piece CPU labeling of the same array saved as
# .npy, byte for byte; a truncated TIFF refused with nothing written; and
# the peak memory of a striped TIFF read strip by strip, and of a TIFF stack
# read in bricks under --memory-limit, against the memory-mapped .npy of the
# same pixels.
#
#   tiles_tiff_cli_test.sh GLCCL PYTHON SCRATCH BACKEND [labels|memory]
#
# `labels` (the default): the tiled labelings and the truncated file;
# `memory` (cpu only): the peaks, and a stack past half the memory labeled
# in bricks. Prints one line per failure, then "N identical, 0 different"
# (and, for `memory`, the memory line); exits 1 on any difference or
# failure.
glccl=$1 python=$2 scratch=$3 backend=$4 part=${5:-labels}
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
cd "$scratch" || exit 1
"$python" -c "
import sys
import numpy as np, tifffile
r = np.random.default_rng(11)
noise = ((r.random((797, 1031)) < 0.55) * 255).astype(np.uint8)
np.save('noise.npy', noise)
tifffile.imwrite('noise_tiled.tif', noise, tile=(64, 128))
tifffile.imwrite('noise_strips.tif', noise, rowsperstrip=13)
tifffile.imwrite('noise_one_strip.tif', noise)
tifffile.imwrite('noise_deflate.tif', noise, compression='zlib')
tifffile.imwrite('noise_big.tif', noise, tile=(32, 32), bigtiff=True, compression='zlib')
segments = (r.integers(0, 4, (433, 509)) * 300 * (r.random((433, 509)) < 0.8)).astype(np.uint16)
np.save('segments.npy', segments)
tifffile.imwrite('segments_big.tif', segments, tile=(48, 16), bigtiff=True)
tifffile.imwrite('segments_strips.tif', segments, rowsperstrip=5, compression='zlib')
# Cut inside its tiles' data.
data = open('noise_tiled.tif', 'rb').read()
open('cut.tif', 'wb').write(data[:len(data) // 2])
if sys.argv[1] != 'memory':
    sys.exit(0)  # the files of the peak memory checks, below
# Smooth blobs 40000 wide: strips of 16 rows, and its .npy.
y, x = (side.astype(np.float32) for side in np.ogrid[0:1500, 0:40000])
wide = ((np.sin(x / 97.0) * np.sin(y / 131.0) + 0.6 * np.sin((x + y) / 53.0)) > 0.35).astype(np.uint8) * 255
np.save('wide.npy', wide)
tifffile.imwrite('wide.tif', wide, rowsperstrip=16)
# A stack of 192 pages of 256x256 blobs, zlib strips of 64 rows, and its .npy.
z, y, x = np.ogrid[0:192, 0:256, 0:256]
blobs = ((np.sin(x / 37.0) * np.sin(y / 53.0) * np.cos(z / 5.0)) > 0.3).astype(np.uint8)
np.save('blobs.npy', blobs)
tifffile.imwrite('blobs_stack.tif', blobs, compression='zlib', rowsperstrip=64, photometric='minisblack')
" "$part" || exit 1

same=0 different=0
if [ "$part" = labels ]; then
while read -r input criterion connectivity tile; do
    # The GPU backends skip the thinnest tiles: thousands of calls on llvmpipe.
    if [ "$backend" != cpu ] && [ "${tile%%x*}" -lt 13 -o "${tile##*x}" -lt 13 ]; then continue; fi
    reference=${input%%_*}.npy
    "$glccl" label "$reference" --backend cpu --criterion "$criterion" --connectivity "$connectivity" \
        --labels r.npy --stats r.csv --force > /dev/null || { echo "reference failed: $reference"; exit 1; }
    if ! "$glccl" label "$input" --backend "$backend" --criterion "$criterion" --connectivity "$connectivity" \
            --tile "$tile" --labels t.npy --stats t.csv --force > run.txt 2>&1; then
        echo "FAILED: $input $criterion $connectivity $tile"; cat run.txt; different=$((different + 1))
    elif grep -q "TIFF" run.txt && cmp -s t.npy r.npy && cmp -s t.csv r.csv; then
        same=$((same + 1))
    else
        echo "DIFFERENT: $input $criterion $connectivity $tile"; cat run.txt; different=$((different + 1))
    fi
done <<EOF
noise_tiled.tif binary 8 100x70
noise_tiled.tif binary 4 64x128
noise_strips.tif binary 8 97x13
noise_one_strip.tif binary 8 200x1
noise_deflate.tif binary 4 1x300
noise_big.tif binary 8 333x333
segments_big.tif segments 8 50x31
segments_strips.tif segments 4 17x200
EOF

# A truncated file: the reason, exit status 1, and no output left behind.
rm -f cut.npy
"$glccl" label cut.tif --backend "$backend" --tile 64x64 --labels cut.npy > run.txt 2>&1
status=$?
if [ "$status" -ne 1 ] || ! grep -q "^glccl: 'cut.tif': TIFF: truncated" run.txt || [ -e cut.npy ]; then
    echo "FAILED: truncated TIFF (exit $status)"; cat run.txt; different=$((different + 1))
fi

echo "$same identical, $different different"
[ "$different" -eq 0 ]
exit
fi

# Peak memory: strips are decoded a band at a time, so reading the TIFF
# costs about a band more than the memory-mapped .npy (the image is 57 MiB).
peak() {  # prints the peak resident KiB of the command
    "$python" -c "
import resource, subprocess, sys
status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if status == 0 else -1)
" "$@"
}
# Under AddressSanitizer a peak counts its shadow and its quarantine of
# freed blocks (a TIFF's strips and a stack's pages are many small ones):
# the peaks are compared in the plain build only.
sanitized=0
grep -q __asan_init "$glccl" && sanitized=1
npyPeak=$(peak "$glccl" label wide.npy --backend cpu --tile 512x512 --labels w1.npy --force)
tiffPeak=$(peak "$glccl" label wide.tif --backend cpu --tile 512x512 --labels w2.npy --force)
if [ "$npyPeak" -lt 0 ] || [ "$tiffPeak" -lt 0 ] || ! cmp -s w1.npy w2.npy; then
    echo "FAILED: the 40000x1500 labelings"; different=$((different + 1))
elif [ "$sanitized" = 0 ] && [ $((tiffPeak - npyPeak)) -gt $((24 * 1024)) ]; then
    echo "TOO MUCH MEMORY: the TIFF run peaked at $tiffPeak KiB, the .npy run at $npyPeak KiB"
    different=$((different + 1))
fi
# A TIFF stack under --memory-limit is labeled in bricks that read page
# ranges, as the memory-mapped .npy volume is: the same labels, and about
# the same peak (labeled whole, the volume takes about 250 MiB).
npyPeak3=$(peak "$glccl" label blobs.npy --backend cpu --memory-limit 200M --labels b1.npy --force)
tiffPeak3=$(peak "$glccl" label blobs_stack.tif --backend cpu --memory-limit 200M --labels b2.npy --force)
if [ "$npyPeak3" -lt 0 ] || [ "$tiffPeak3" -lt 0 ] || ! cmp -s b1.npy b2.npy; then
    echo "FAILED: the 256x256x192 labelings in bricks"; different=$((different + 1))
elif [ "$sanitized" = 0 ] && [ $((tiffPeak3 - npyPeak3)) -gt $((24 * 1024)) ]; then
    echo "TOO MUCH MEMORY: the TIFF stack run peaked at $tiffPeak3 KiB, the .npy run at $npyPeak3 KiB"
    different=$((different + 1))
else
    same=$((same + 1))
fi
# Without the option, a stack whose one-piece labeling would take more
# than half the machine's memory is labeled in bricks within that half, by
# itself: a machine of 400 MiB (the tools' test hook) for a volume that
# takes about 290 MiB in one piece by the command's reckoning.
GLCCL_TEST_PHYSICAL_MEMORY=400M "$glccl" label blobs_stack.tif --backend cpu --json --labels b3.npy --force \
    > auto.json 2> run.txt
planned=$("$python" -c "import json; t = json.load(open('auto.json'))[0]['tiled']; print(t['automatic'], t['memory_planned_mib'])")
if ! cmp -s b1.npy b3.npy || [ "${planned% *}" != 1 ] || ! "$python" -c "import sys; sys.exit(float('${planned#* }') > 200)"; then
    echo "FAILED: the stack past half the memory was not labeled in bricks within it ($planned)"
    cat auto.json run.txt; different=$((different + 1))
else
    same=$((same + 1))
fi
echo "$same identical, $different different"
echo "peak memory: striped TIFF $((tiffPeak / 1024)) MiB, memory-mapped .npy $((npyPeak / 1024)) MiB, image 57 MiB;" \
     "TIFF stack $((tiffPeak3 / 1024)) MiB, .npy volume $((npyPeak3 / 1024)) MiB in bricks under --memory-limit 200M"
[ "$different" -eq 0 ]
