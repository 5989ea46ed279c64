// measure_extrema: the first raster position (flat element index) of each
// region's least and greatest intensity, once measure_terms has found
// them: every element that holds its region's extremum offers its index,
// and atomicMax over the complemented index keeps the smallest
// (measure_common.glsl's record). Regions measured alone
// (measure_small.comp) have theirs already and are skipped.

layout(local_size_x = MEASURE_GROUP) in;

void main() {
    PixelCoord row;
    uint index;
    if (!thisSegment(row, index)) return;
    const int x0 = row.x;
    row.x = 0;
    const int x1 = min(x0 + MEASURE_SEGMENT, imageSize.x);
#if DIMENSIONS == 3
    const uint rowStart = (uint(row.z) * uint(imageSize.y) + uint(row.y)) * uint(imageSize.x);
#else
    const uint rowStart = uint(row.y) * uint(imageSize.x);
#endif
    uint label = 0u, least = 0u, most = 0u, record = 0u;
    bool leastFound = false, mostFound = false;  // the run's first offer is its best
    uint skipped = 0u;  // the region measured alone met last: no box read for it again
    for (int x = x0; x < x1; ++x) {
        PixelCoord p = row;
        p.x = x;
        const uint here = imageLoad(labelImage, p).r;
        if (!inBatch(here) || here == skipped) continue;
        if (here != label) {
            if (measuredAlone(here)) {
                skipped = here;
                continue;
            }
            label = here;
            record = recordOf(label);
            least = ~totals[record + uint(EXTREMA_AT)];
            most = totals[record + uint(EXTREMA_AT + 1)];
            leastFound = mostFound = false;
        }
        const uint value = sampleAt(p);
        const uint element = rowStart + uint(x);
        if (!leastFound && value == least) {
            atomicMax(totals[record + uint(POSITIONS_AT)], ~element);
            leastFound = true;
        }
        if (!mostFound && value == most) {
            atomicMax(totals[record + uint(POSITIONS_AT + 1)], ~element);
            mostFound = true;
        }
    }
}
