// measure_extrema: the first raster position (flat element index) of each
// region's least and greatest intensity, once measure_terms has found
// them: every element that holds its region's extremum offers its index,
// and atomicMax over the complemented index keeps the smallest
// (measure_common.glsl's record). An invocation walks MEASURE_SEGMENT
// elements of one row in order, as measure_terms does (staged: from shared
// memory, measure_classes.glsl), so a run's first offer is its first
// element of the extremum. Regions measured alone (measure_small.comp)
// have theirs already and are skipped.

#ifdef MEASURE_STAGED
#define STAGE_LEAD 0
#define STAGE_TRAIL 0
#define STAGE_BANDS 1
#define STAGE_SAMPLES 1
#endif

#include "measure_classes.glsl"

layout(local_size_x = MEASURE_GROUP) in;

// The invocation's run: its label and record, the region's extrema, and
// whether the run has offered its first element of each (the run's first
// offer is its best); the region measured alone met last (no box read for
// it again).
uint label = 0u, least = 0u, most = 0u, record = 0u;
bool leastFound = false, mostFound = false;
uint skipped = 0u;

// The element of label `here` and sample `value` at flat index `element`.
void walkElement(uint here, uint value, uint element) {
    if (!inBatch(here) || here == skipped) return;
    if (here != label) {
        if (measuredAlone(here)) {
            skipped = here;
            return;
        }
        label = here;
        record = recordOf(label);
        least = ~totals[record + uint(EXTREMA_AT)];
        most = totals[record + uint(EXTREMA_AT + 1)];
        leastFound = mostFound = false;
    }
    if (!leastFound && value == least) {
        atomicMax(totals[record + uint(POSITIONS_AT)], ~element);
        leastFound = true;
    }
    if (!mostFound && value == most) {
        atomicMax(totals[record + uint(POSITIONS_AT + 1)], ~element);
        mostFound = true;
    }
}

#ifdef MEASURE_STAGED
void main() {
    placeGroup();
    const int rowIndex = rowOfGroup + int(gl_LocalInvocationIndex);
    const bool walking = rowIndex < passRows();
    // Rows are numbered as the elements are: the row's first element.
    const uint rowStart = uint(rowIndex) * uint(imageSize.x);
    for (int start = segmentStart; start < segmentEnd; start += MEASURE_TILE) {
        barrier();  // the group is done with the sub-tile before
        stageTile(start);
        barrier();
        if (walking) {
            const int end = min(start + MEASURE_TILE, segmentEnd);
            for (int x = start; x < end; ++x) walkElement(stagedLabels[stagedIndex(x)], stagedSample(x), rowStart + uint(x));
        }
    }
}
#else
void main() {
    const int x0 = int(gl_GlobalInvocationID.x) * MEASURE_SEGMENT;
    if (x0 >= imageSize.x) return;
    const int x1 = min(x0 + MEASURE_SEGMENT, imageSize.x);
#if DIMENSIONS == 3
    const ivec3 row = ivec3(0, gl_GlobalInvocationID.y, gl_GlobalInvocationID.z);
    const uint rowStart = (uint(row.z) * uint(imageSize.y) + uint(row.y)) * uint(imageSize.x);
#else
    const ivec2 row = ivec2(0, gl_GlobalInvocationID.y);
    const uint rowStart = uint(row.y) * uint(imageSize.x);
#endif
    for (int x = x0; x < x1; ++x) {
        PixelCoord p = row;
        p.x = x;
        const uint here = imageLoad(labelImage, p).r;
        // The sample only for an element of a region of the batch.
        if (!inBatch(here) || here == skipped) continue;
        walkElement(here, sampleAt(p), rowStart + uint(x));
    }
}
#endif
