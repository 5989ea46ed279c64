// scan_rows: rowOffsets[y] = the roots whose first pixel is in a row above
// y; rowOffsets[height] = the component count. One work group; each thread
// sums SCAN_ROWS_PER_THREAD consecutive rows, the work group scans those
// sums, and each thread writes its rows' offsets.
layout(local_size_x = SCAN_THREADS) in;

layout(binding = ROW_COUNTS_BUFFER, std430) readonly buffer RowCounts { uint rowCounts[]; };
layout(binding = ROW_OFFSETS_BUFFER, std430) writeonly buffer RowOffsets { uint rowOffsets[]; };

shared uint sums[SCAN_THREADS];

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int first = t * SCAN_ROWS_PER_THREAD;
    const int end = min(first + SCAN_ROWS_PER_THREAD, imageSize.y);
    uint own = 0u;
    for (int row = first; row < end; ++row) own += rowCounts[row];
    sums[t] = own;
    barrier();
    for (int step = 1; step < SCAN_THREADS; step <<= 1) {
        uint add = t >= step ? sums[t - step] : 0u;
        barrier();
        sums[t] += add;
        barrier();
    }
    uint offset = sums[t] - own;
    for (int row = first; row < end; ++row) {
        rowOffsets[row] = offset;
        offset += rowCounts[row];
    }
    if (t == SCAN_THREADS - 1) rowOffsets[imageSize.y] = sums[t];
}
