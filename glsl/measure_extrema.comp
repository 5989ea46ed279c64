// measure_extrema: the first raster position (flat element index) of each
// region's least and greatest intensity, once measure_terms has found
// them: every element that holds its region's extremum offers its index,
// and atomicMax over the complemented index keeps the smallest
// (measure_common.glsl's record).
//
// An invocation walks one segment of a row, as measure_terms does, with the
// extrema of two regions at hand: the first region it meets, kept for the
// whole segment, and a passing one, read again when a third comes. A
// region's first offer in the segment is its best there: later elements of
// it read no sample.

layout(local_size_x = MEASURE_GROUP) in;

// A region's extrema (from its record) and whether the segment has offered
// a position for each.
struct Extrema {
    uint label, record, least, most;
    bool leastFound, mostFound;
};

Extrema extremaOf(uint label) {
    Extrema e;
    e.label = label;
    e.record = recordOf(label);
    e.least = ~totals[e.record + uint(EXTREMA_AT)];
    e.most = totals[e.record + uint(EXTREMA_AT + 1)];
    e.leastFound = false;
    e.mostFound = false;
    return e;
}

void offer(inout Extrema e, PixelCoord p, uint element) {
    if (e.leastFound && e.mostFound) return;
    const uint value = sampleAt(p);
    if (!e.leastFound && value == e.least) {
        atomicMax(totals[e.record + uint(POSITIONS_AT)], ~element);
        e.leastFound = true;
    }
    if (!e.mostFound && value == e.most) {
        atomicMax(totals[e.record + uint(POSITIONS_AT + 1)], ~element);
        e.mostFound = true;
    }
}

void main() {
    const uint segment = segmentIndex();
    if (segment >= segmentCount) return;
    const uint rowIndex = segment / segmentsPerRow;
    const int x0 = int(segment % segmentsPerRow) * MEASURE_SEGMENT;
    const int x1 = min(x0 + MEASURE_SEGMENT, imageSize.x);
#if DIMENSIONS == 3
    const ivec3 row = ivec3(0, int(rowIndex % uint(imageSize.y)), int(rowIndex / uint(imageSize.y)));
#else
    const ivec2 row = ivec2(0, int(rowIndex));
#endif
    const uint rowStart = rowIndex * uint(imageSize.x);
    Extrema kept, passing;
    kept.label = 0u;
    passing.label = 0u;
    for (int x = x0; x < x1; ++x) {
        PixelCoord p = row;
        p.x = x;
        const uint here = imageLoad(labelImage, p).r;
        if (!inBatch(here)) continue;
        const uint element = rowStart + uint(x);
        if (kept.label == 0u) kept = extremaOf(here);
        if (here == kept.label) {
            offer(kept, p, element);
            continue;
        }
        if (here != passing.label) passing = extremaOf(here);
        offer(passing, p, element);
    }
}
