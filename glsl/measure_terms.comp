// measure_terms: the element terms of every region, its moments (sums of
// powers of coordinates local to its box), its perimeter's border elements
// by class, and of an integer intensity its sum, sum of squares, extrema
// and weighted moments, added into `totals` (measure_common.glsl).
// measure_extrema finds the extrema's first positions after it.
//
// An invocation walks MEASURE_SEGMENT elements of one row (y, z) and sums
// the run of each label it meets on the way (background, and labels of
// other batches, between elements of one label do not end a run), so that a region's totals take one
// atomic add per run and term, not one per element:
//
//   row y:  . . 3 3 . 3 3 5 5 | 5 5 . .     one invocation's segment, runs 3 and 5
//               <-- run -->   <- run ->
//
// Regions measured alone (measure_small.comp) are skipped as background
// is: a large region's run goes on past the small regions it surrounds.
// A hot region's runs go into one of its replicas, chosen by segment and
// row, so that the invocations flushing it at once add to different words.
//
// With the perimeter, an element's class needs the labels of rows
// y-2 .. y+2 around it (measure_classes.glsl's windowPerimeterClass),
// which the walk keeps in registers as columns x-2 .. x+2, shifted a
// column a step: each step loads column x+2 alone, its row y's label
// (read a step ahead) and its other 4 where one of elements x+1 .. x+3 of
// row y is labeled (1 label a step through the background, 5 elsewhere),
// rather than each border element its neighbours' neighbours from the
// image (about 45 loads).

#include "measure_classes.glsl"

layout(local_size_x = MEASURE_GROUP) in;

#ifdef GATHER_PERIMETER
// The labels of rows y-2 .. y+2 of one column, 0 outside the image as
// labelAt reads them.
struct Column {
    uint r0, r1, r2, r3, r4;
};

// The label at (x, y) of a column x inside the image, 0 on rows outside.
uint rowLabel(int x, int y) { return y >= 0 && y < imageSize.y ? imageLoad(labelImage, ivec2(x, y)).r : 0u; }

// The label at (x, y) of row y (inside the image), 0 on columns outside.
uint centreLabel(int x, int y) { return x >= 0 && x < imageSize.x ? imageLoad(labelImage, ivec2(x, y)).r : 0u; }

Column columnAt(int x, int y) {
    if (x < 0 || x >= imageSize.x) return Column(0u, 0u, 0u, 0u, 0u);
    return Column(rowLabel(x, y - 2), rowLabel(x, y - 1), rowLabel(x, y), rowLabel(x, y + 1), rowLabel(x, y + 2));
}

// The column's rows in `label`, a bit each at 5 apart (windowPerimeterClass's
// bits of column dx = -2).
uint insideBits(Column c, uint label) {
    return uint(c.r0 == label) | uint(c.r1 == label) << 5u | uint(c.r2 == label) << 10u |
           uint(c.r3 == label) << 15u | uint(c.r4 == label) << 20u;
}
#endif

// One run's sums: of lx^e (e = 0..3) as 64-bit (low, high) pairs, its
// border elements of each perimeter class; of the intensity I, the sums of
// I, I^2 and I lx^e (64 and 96 bits: a run is at most MEASURE_SEGMENT
// elements) and the extrema.
struct Run {
    uint label;
    uint record;  // where its sums go: the region's record or a replica of it
    PixelCoord origin;  // the region's box's least corner
    uvec2 powers[4];
    uvec3 perimeter;
    uvec2 sum;
    uvec3 squares;
    uvec3 weighted[4];
    uint least, most;
};

// A run's power sum, times ly^ey lz^ez, into the wide sum at totals[at].
void addScaled(uint at, uvec3 powerSum, uint ly, int ey, uint lz, int ez) {
    uint sum[LIMBS];
    for (int k = 0; k < LIMBS; ++k) sum[k] = k < 3 ? powerSum[k] : 0u;
    for (int i = 0; i < ey; ++i) multiplyWide(sum, ly);
    for (int i = 0; i < ez; ++i) multiplyWide(sum, lz);
    addWide(at, sum);
}

// A run of `label` (0: none), whose box's least corner is box.xyz, of
// the invocation that takes replica `slot` of hot regions.
Run startRun(uint label, ivec4 box, uint slot) {
    Run run;
    run.label = label;
    run.record = box.w < 0 ? replicaOf(uint(-1 - box.w), slot) : recordOf(label);
#if DIMENSIONS == 3
    run.origin = box.xyz;
#else
    run.origin = box.xy;
#endif
    for (int e = 0; e < 4; ++e) {
        run.powers[e] = uvec2(0u);
        run.weighted[e] = uvec3(0u);
    }
    run.perimeter = uvec3(0u);
    run.sum = uvec2(0u);
    run.squares = uvec3(0u);
    run.least = 0xffffffffu;
    run.most = 0u;
    return run;
}

// The run's sums into its region's totals.
void flush(Run run, PixelCoord row) {
    if (run.label == 0u) return;
    const uint record = run.record;
    const uint ly = uint(row.y - run.origin.y);
#if DIMENSIONS == 3
    const uint lz = uint(row.z - run.origin.z);
    const int zMax = 3;
#else
    const uint lz = 0u;
    const int zMax = 0;
#endif
    // TermRequest::exponents' order: z slowest, then y, then x.
#ifdef GATHER_MOMENTS
    uint term = 0u;
    for (int ez = 0; ez <= zMax; ++ez)
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex) {
                if (MOMENT_LEVEL != 4 && ex + ey + ez > MOMENT_LEVEL) continue;
                addScaled(record + uint(MOMENTS_AT) + term * uint(LIMBS), uvec3(run.powers[ex], 0u), ly, ey, lz, ez);
                ++term;
            }
#endif
#ifdef GATHER_WEIGHTED
    uint weightedTerm = 0u;
    for (int ez = 0; ez <= zMax; ++ez)
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex) {
                if (WEIGHTED_LEVEL != 4 && ex + ey + ez > WEIGHTED_LEVEL) continue;
                addScaled(record + uint(WEIGHTED_AT) + weightedTerm * uint(LIMBS), run.weighted[ex], ly, ey, lz, ez);
                ++weightedTerm;
            }
#endif
#ifdef GATHER_SUMS
    addScaled(record + uint(SUM_AT), uvec3(run.sum, 0u), 0u, 0, 0u, 0);
    addScaled(record + uint(SQUARES_AT), run.squares, 0u, 0, 0u, 0);
#endif
#ifdef GATHER_EXTREMA
    atomicMax(totals[record + uint(EXTREMA_AT)], ~run.least);
    atomicMax(totals[record + uint(EXTREMA_AT + 1)], run.most);
#endif
#ifdef GATHER_PERIMETER
    for (int c = 0; c < 3; ++c)
        if (run.perimeter[c] != 0u) atomicAdd(totals[record + uint(PERIMETER_AT + c)], run.perimeter[c]);
#endif
}

void main() {
    PixelCoord row;
    uint slot;  // neighbouring segments, in a row and across rows, take different replicas
    if (!thisSegment(row, slot)) return;
    const int x0 = row.x;
    row.x = 0;
    const int x1 = min(x0 + MEASURE_SEGMENT, imageSize.x);
    Run run = startRun(0u, ivec4(0), slot);
    uint skipped = 0u;  // the region measured alone met last: no box read for it again
#ifdef GATHER_PERIMETER
    // Columns x-2 .. x+2 once the step at x has shifted them in, and the
    // label of row y at x+3.
    Column c0, c1 = columnAt(x0 - 2, row.y), c2 = columnAt(x0 - 1, row.y), c3 = columnAt(x0, row.y),
               c4 = columnAt(x0 + 1, row.y);
    uint ahead = centreLabel(x0 + 2, row.y);
#endif
    for (int x = x0; x < x1; ++x) {
        PixelCoord p = row;
        p.x = x;
#ifdef GATHER_PERIMETER
        c0 = c1;
        c1 = c2;
        c2 = c3;
        c3 = c4;
        c4 = Column(0u, 0u, ahead, 0u, 0u);
        ahead = centreLabel(x + 3, row.y);
        // Column x+2's rows other than y are in the windows of elements
        // x .. x+4. Elements x and x+4 read them only to tell whether
        // (x+1, y-1), (x+1, y+1), (x+3, y-1) and (x+3, y+1) are border
        // elements, which those of their region are anyway where (x+1, y)
        // and (x+3, y) are background. So where elements x+1 .. x+3 are
        // background, no element measured reads them: they stay 0.
        if (x + 2 < imageSize.x && (c3.r2 | c4.r2 | ahead) != 0u) {
            c4.r0 = rowLabel(x + 2, row.y - 2);
            c4.r1 = rowLabel(x + 2, row.y - 1);
            c4.r3 = rowLabel(x + 2, row.y + 1);
            c4.r4 = rowLabel(x + 2, row.y + 2);
        }
        const uint label = c2.r2;
#else
        const uint label = imageLoad(labelImage, p).r;
#endif
        if (!inBatch(label) || label == skipped) continue;
        if (label != run.label) {
            const ivec4 box = boxOf(label);
            if (box.w > 0) {  // measured alone
                skipped = label;
                continue;
            }
            flush(run, row);
            run = startRun(label, box, slot);
        }
        // lx < 2^15: lx^2 fits 32 bits, lx^3 takes a (low, high) pair.
        const uint lx = uint(x - run.origin.x);
        uint high, low;
        umulExtended(lx * lx, lx, high, low);
        const uvec2 power[4] = uvec2[4](uvec2(1u, 0u), uvec2(lx, 0u), uvec2(lx * lx, 0u), uvec2(low, high));
#ifdef GATHER_MOMENTS
        for (int e = 0; e < 4; ++e) run.powers[e] = add64(run.powers[e], power[e]);
#endif
#ifdef GATHER_INTENSITY
        const uint value = sampleAt(p);
#endif
#ifdef GATHER_SUMS
        run.sum = add64(run.sum, uvec2(value, 0u));
        run.squares = add96(run.squares, multiply64(uvec2(value, 0u), value));
#endif
#ifdef GATHER_EXTREMA
        run.least = min(run.least, value);
        run.most = max(run.most, value);
#endif
#ifdef GATHER_WEIGHTED
        for (int e = 0; e < 4; ++e) run.weighted[e] = add96(run.weighted[e], multiply64(power[e], value));
#endif
#ifdef GATHER_PERIMETER
        if (c1.r2 != label || c3.r2 != label || c2.r1 != label || c2.r3 != label) {
            const uint inside = insideBits(c0, label) | insideBits(c1, label) << 1u | insideBits(c2, label) << 2u |
                                insideBits(c3, label) << 3u | insideBits(c4, label) << 4u;
            const int c = windowPerimeterClass(inside);
            if (c >= 0) run.perimeter[c] += 1u;
        }
#endif
    }
    flush(run, row);
}
