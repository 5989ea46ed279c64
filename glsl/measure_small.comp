// measure_small: every term the request asks for of a region whose box
// holds at most kSmallBox elements (engine/src/measure_terms.hpp), by one
// invocation that walks the box, into the region's record with plain
// stores: the invocation owns the record, so it takes no atomics, and the
// passes over the image skip the region (measuredAlone). A noisy image's
// many small regions would otherwise each take a run of atomics for every
// row segment they touch.
//
// The same terms as the passes over the image, from the same classes
// (measure_classes.glsl): moments, perimeter classes, Crofton classes and
// Euler shares of the windows whose far corner lies in the box grown by one
// at its far end (every window that holds an element of the region), and
// of an intensity the sum, the sum of squares, the extrema with their
// first positions and the weighted moments. An image's region is read once:
// its box's elements become 64 bits in registers, which its elements'
// perimeter windows and its 2x2 windows read (a volume's windows read the
// labels).
//
// Within a box of w x h x d <= kSmallBox <= 64 elements a moment's term
// lx^a ly^b lz^c is below (w h d)^3, so the region's moment sums are below
// (w h d)^4 < 2^32, its weighted sums below 2^64, its sum below 2^40 and
// its sum of squares below 2^72; a row's sums are parts of them. They are
// added up in registers in 32, 64 and 96 bits and stored once, in the
// limbs of the record's wide sums (as wide as the largest region's) that
// are not 0 (storeWide).

#include "measure_classes.glsl"

layout(local_size_x = MEASURE_GROUP) in;

// The regions of the batch measured here, each its index in the batch
// (label - firstLabel), smallRegions of them.
layout(std430, binding = MEASURE_SMALL_BUFFER) readonly buffer SmallRegions { uint smallRegion[]; };
uniform uint smallRegions;

// v as the wide sum of `limbs` at totals[at], its limbs past v's 0 (the
// record's bounds leave v's limbs past `limbs` 0). The records are zeroed
// before the passes (TermGatherer), so a limb that is 0 is not stored: a
// small region's record is mostly zeros (a one-element region's moments
// but its count, every sum's high limbs), and the stores, each invocation
// into its own record, are most of what the pass costs.
void storeWide(uint at, int limbs, uvec3 v) {
    for (int k = 0; k < LIMBS; ++k) {
        const uint limb = k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : 0u;
        if (k < limbs && limb != 0u) totals[at + uint(k)] = limb;
    }
}

#if DIMENSIONS == 2 && (defined(GATHER_PERIMETER) || defined(GATHER_CROFTON) || defined(GATHER_EULER))
// The box's elements in the region, a bit each: element (c, r) of the box
// (column, row from its least corner) at bit r w + c of the 64 bits
// (inBox.y above inBox.x); a box holds at most kSmallBox <= 64 elements.
// Nothing outside the box is in the region, so the elements' windows read
// these bits rather than the labels again.
#define BOX_BITS
uvec2 inBox = uvec2(0u);
int boxWidth = 0, boxHeight = 0;

// Bits i .. i + 31 of the 64 (0 below bit 0 and past bit 63).
uint boxBitsFrom(int i) {
    if (i <= -32 || i >= 64) return 0u;
    if (i < 0) return inBox.x << uint(-i);
    if (i == 0) return inBox.x;
    if (i < 32) return (inBox.x >> uint(i)) | (inBox.y << uint(32 - i));
    return inBox.y >> uint(i - 32);
}

// Whether element (c, r) of the box is in the region (outside the box: not).
uint inRegion(int c, int r) {
    if (c < 0 || r < 0 || c >= boxWidth || r >= boxHeight) return 0u;
    return boxBitsFrom(r * boxWidth + c) & 1u;
}

#ifdef GATHER_PERIMETER
// Columns c - 2 .. c + 2 of row r (bits 0..4), those outside the box 0.
uint fiveAt(int c, int r) {
    if (r < 0 || r >= boxHeight) return 0u;
    const int lowest = max(0, 2 - c), highest = min(4, boxWidth + 1 - c);
    if (lowest > highest) return 0u;
    const uint columns = ((2u << uint(highest)) - 1u) & ~((1u << uint(lowest)) - 1u);
    return boxBitsFrom(r * boxWidth + c - 2) & columns;
}
#endif
#endif

void main() {
    // Work groups are numbered over x, then y: the regions may outnumber
    // what one axis of a dispatch holds.
    const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(MEASURE_GROUP) +
                   gl_LocalInvocationID.x;
    if (i >= smallRegions) return;
    const uint r = smallRegion[i];
    const uint label = firstLabel + r;
    const uint record = r * uint(RECORD_WORDS);
    const ivec4 box = boxMin[r];
    // TermGatherer's packedExtent: width, height, depth a byte each.
    const ivec3 extent = ivec3(box.w & 0xff, (box.w >> 8) & 0xff, (box.w >> 16) & 0xff);
    const ivec3 least = box.xyz, past = box.xyz + extent;
#ifdef BOX_BITS
    boxWidth = extent.x;
    boxHeight = extent.y;
#endif
#if DIMENSIONS == 3
    const int zMax = 3;
#else
    const int zMax = 0;
#endif

    // Indexed by terms that unrolled loops make constants: registers.
#ifdef GATHER_MOMENTS
    uint moments[MOMENT_TERMS];
    for (int t = 0; t < MOMENT_TERMS; ++t) moments[t] = 0u;
#endif
#ifdef GATHER_WEIGHTED
    uvec2 weightedMoments[WEIGHTED_TERMS];
    for (int t = 0; t < WEIGHTED_TERMS; ++t) weightedMoments[t] = uvec2(0u);
#endif
#ifdef GATHER_SUMS
    uvec2 sum = uvec2(0u);
    uvec3 squares = uvec3(0u);
#endif
#ifdef GATHER_EXTREMA
    uint leastSample = 0xffffffffu, mostSample = 0u, leastAt = 0u, mostAt = 0u;
    bool first = true;
#endif
    for (int z = least.z; z < past.z; ++z)
        for (int y = least.y; y < past.y; ++y) {
            const uint rowStart = (uint(z) * uint(imageSize.y) + uint(y)) * uint(imageSize.x);
            // The row's sums of lx^e and I lx^e, then into the terms times
            // ly^ey lz^ez.
            uint powers[4] = uint[4](0u, 0u, 0u, 0u);
            uvec2 weighted[4] = uvec2[4](uvec2(0u), uvec2(0u), uvec2(0u), uvec2(0u));
            for (int x = least.x; x < past.x; ++x) {
#if DIMENSIONS == 3
                const ivec3 p = ivec3(x, y, z);
#else
                const ivec2 p = ivec2(x, y);
#endif
                if (imageLoad(labelImage, p).r != label) continue;
                const uint lx = uint(x - least.x);
#ifdef BOX_BITS
                const int bit = (y - least.y) * boxWidth + int(lx);
                if (bit < 32) inBox.x |= 1u << uint(bit);
                else inBox.y |= 1u << uint(bit - 32);
#endif
                const uint power[4] = uint[4](1u, lx, lx * lx, lx * lx * lx);
                for (int e = 0; e < 4; ++e) powers[e] += power[e];
#ifdef GATHER_INTENSITY
                const uint value = sampleAt(p);
#endif
#ifdef GATHER_SUMS
                sum = add64(sum, uvec2(value, 0u));
                squares = add96(squares, multiply64(uvec2(value, 0u), value));
#endif
#ifdef GATHER_EXTREMA
                // Raster order: the first element of a value holds its least index.
                const uint element = rowStart + uint(x);
                if (first || value < leastSample) {
                    leastSample = value;
                    leastAt = element;
                }
                if (first || value > mostSample) {
                    mostSample = value;
                    mostAt = element;
                }
                first = false;
#endif
#ifdef GATHER_WEIGHTED
                for (int e = 0; e < 4; ++e) weighted[e] = add64(weighted[e], product64(value, power[e]));
#endif
            }
            if (powers[0] == 0u) continue;
            const uint ly = uint(y - least.y), lz = uint(z - least.z);
            const uint lyPower[4] = uint[4](1u, ly, ly * ly, ly * ly * ly);
            const uint lzPower[4] = uint[4](1u, lz, lz * lz, lz * lz * lz);
            // TermRequest::exponents' order: z slowest, then y, then x.
#ifdef GATHER_MOMENTS
            int term = 0;
            for (int ez = 0; ez <= zMax; ++ez)
                for (int ey = 0; ey <= 3; ++ey)
                    for (int ex = 0; ex <= 3; ++ex) {
                        if (MOMENT_LEVEL != 4 && ex + ey + ez > MOMENT_LEVEL) continue;
                        moments[term] += powers[ex] * lyPower[ey] * lzPower[ez];
                        ++term;
                    }
#endif
#ifdef GATHER_WEIGHTED
            int weightedTerm = 0;
            for (int ez = 0; ez <= zMax; ++ez)
                for (int ey = 0; ey <= 3; ++ey)
                    for (int ex = 0; ex <= 3; ++ex) {
                        if (WEIGHTED_LEVEL != 4 && ex + ey + ez > WEIGHTED_LEVEL) continue;
                        // The product is below 2^64: its low 64 bits are it.
                        const uvec3 scaled = multiply64(weighted[ex], lyPower[ey] * lzPower[ez]);
                        weightedMoments[weightedTerm] = add64(weightedMoments[weightedTerm], scaled.xy);
                        ++weightedTerm;
                    }
#endif
        }
#ifdef GATHER_MOMENTS
    uint at = record + uint(MOMENTS_AT);
    int term = 0;
    for (int ez = 0; ez <= zMax; ++ez)
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex) {
                if (MOMENT_LEVEL != 4 && ex + ey + ez > MOMENT_LEVEL) continue;
                const int limbs = termLimbs(ex + ey + ez, false);
                storeWide(at, limbs, uvec3(moments[term], 0u, 0u));
                at += uint(limbs);
                ++term;
            }
#endif
#ifdef GATHER_WEIGHTED
    uint weightedAt = record + uint(WEIGHTED_AT);
    int weightedTerm = 0;
    for (int ez = 0; ez <= zMax; ++ez)
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex) {
                if (WEIGHTED_LEVEL != 4 && ex + ey + ez > WEIGHTED_LEVEL) continue;
                const int limbs = termLimbs(ex + ey + ez, true);
                storeWide(weightedAt, limbs, uvec3(weightedMoments[weightedTerm], 0u));
                weightedAt += uint(limbs);
                ++weightedTerm;
            }
#endif
#ifdef GATHER_SUMS
    storeWide(record + uint(SUM_AT), SUM_LIMBS, uvec3(sum, 0u));
    storeWide(record + uint(SQUARES_AT), SQUARES_LIMBS, squares);
#endif
#ifdef GATHER_EXTREMA
    // Complemented, as measure_terms and measure_extrema keep them.
    totals[record + uint(EXTREMA_AT)] = ~leastSample;
    totals[record + uint(EXTREMA_AT + 1)] = mostSample;
#ifdef GATHER_POSITIONS
    totals[record + uint(POSITIONS_AT)] = ~leastAt;
    totals[record + uint(POSITIONS_AT + 1)] = ~mostAt;
#endif
#endif

#ifdef GATHER_PERIMETER
    // Each element's 5x5 window (bit 5 (dy + 2) + (dx + 2): element
    // (c + dx, r + dy) in the region) from the box's bits.
    uvec3 perimeter = uvec3(0u);
    for (int r = 0; r < boxHeight; ++r)
        for (int c = 0; c < boxWidth; ++c) {
            const uint middle = fiveAt(c, r);
            if ((middle & 4u) == 0u) continue;
            const uint up = fiveAt(c, r - 1), down = fiveAt(c, r + 1);
            if ((up & down & 4u) != 0u && (middle & 10u) == 10u) continue;  // not on the border
            const uint inside = fiveAt(c, r - 2) | up << 5u | middle << 10u | down << 15u | fiveAt(c, r + 2) << 20u;
            const int k = windowPerimeterClass(inside);
            perimeter += uvec3(equal(ivec3(k), ivec3(0, 1, 2)));  // not perimeter[k]: indexed at run time
        }
    for (int k = 0; k < 3; ++k) totals[record + uint(PERIMETER_AT + k)] = perimeter[k];
#endif

#if defined(GATHER_CROFTON) || defined(GATHER_EULER)
    // The windows whose far corner lies in the box grown by one at its far
    // end (a volume's along z too).
#if DIMENSIONS == 3
    const int zPast = past.z + 1;
#else
    const int zPast = least.z + 1;
#endif
    uint crofton[5] = uint[5](0u, 0u, 0u, 0u, 0u);
    int euler = 0;
    for (int z = least.z; z < zPast; ++z)
        for (int y = least.y; y <= past.y; ++y)
            for (int x = least.x; x <= past.x; ++x) {
#ifdef BOX_BITS
                // Bits (x, y) 1, (x, y-1) 2, (x-1, y) 4, (x-1, y-1) 8.
                const int bx = x - least.x, by = y - least.y;
                const uint config = inRegion(bx, by) | inRegion(bx, by - 1) << 1u | inRegion(bx - 1, by) << 2u |
                                    inRegion(bx - 1, by - 1) << 3u;
#else
                // A volume's window, from the labels.
                uint v[WINDOW];
                windowLabels(ivec3(x, y, z), v);
                uint config = 0u;
                for (int j = 0; j < WINDOW; ++j) config |= v[j] == label ? 1u << uint(j) : 0u;
#endif
                if (config == 0u || config == FULL_WINDOW) continue;
#ifdef GATHER_CROFTON
                const int c = croftonClass(config);
                for (int k = 0; k < 5; ++k) crofton[k] += c == k ? 1u : 0u;  // not crofton[c]: indexed at run time
#endif
#ifdef GATHER_EULER
                euler += eulerTimes(config);
#endif
            }
#ifdef GATHER_CROFTON
    for (int c = 0; c < 5; ++c) totals[record + uint(CROFTON_AT + c)] = crofton[c];
#endif
#ifdef GATHER_EULER
    // A 64-bit two's-complement sum, as addSigned64 keeps it.
    totals[record + uint(EULER_AT)] = uint(euler);
    totals[record + uint(EULER_AT + 1)] = euler < 0 ? 0xffffffffu : 0u;
#endif
#endif
}
