// measure_narrow: measure_medium's regions whose boxes are at most 28
// elements wide (kNarrowWidth), by one subgroup of 32 invocations each (a
// work group of MEASURE_GROUP holds MEASURE_GROUP / 32 of them), where the
// context has ballots in subgroups of 32 (TermGatherer chooses). Lane l
// takes column l - 2 of the box, the two columns on each side of it
// included, and the subgroup walks the box a row a step: each lane reads
// its element's label, and one ballot gives every lane the row's bits, an
// element a bit, as measure_medium's ring holds them in shared memory. The
// five rows around the step's stay in registers, so the walk has no
// barrier and no shared memory but the subgroup's record.
//
// The terms are measure_medium.comp's, from the same classes
// (measure_classes.glsl), with the same bounds: a lane's sums of ly^e over
// the at most 255 rows of its column are below 2^32 and its moment sums
// below 2^56.

#include "measure_classes.glsl"

#if DIMENSIONS != 2
#error measure_narrow measures the regions of images
#endif

layout(local_size_x = MEASURE_GROUP) in;

// measure_medium's list; this pass's regions from mediumFirst on.
layout(std430, binding = MEASURE_MEDIUM_BUFFER) readonly buffer MediumRegions { uint mediumRegion[]; };
uniform uint mediumFirst, narrowRegions;

const int SUBGROUPS = MEASURE_GROUP / 32;
// Each subgroup's record, as `totals` holds it, summed by its lanes.
shared uint groupRecord[SUBGROUPS * RECORD_WORDS];
uint recordAt = 0u;  // this subgroup's

// v's low `limbs` limbs added to the wide sum at groupRecord[recordAt +
// at], carries as measure_common.glsl's addWide takes them.
void addGroupWide(uint at, uvec3 v, int limbs) {
    uint carry = 0u;
    for (int k = 0; k < 8; ++k) {
        if (k >= limbs) break;
        const uint addend = (k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : 0u) + carry;
        carry = addend < carry ? 1u : 0u;
        if (addend != 0u) {
            const uint before = atomicAdd(groupRecord[recordAt + at + uint(k)], addend);
            carry += before + addend < before ? 1u : 0u;
        }
    }
}

void main() {
    const uint sub = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    recordAt = sub * uint(RECORD_WORDS);
    // Work groups are numbered over x, then y.
    const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(SUBGROUPS) + sub;
    const bool listed = i < narrowRegions;
    const uint r = listed ? mediumRegion[mediumFirst + i] : 0u;
    const uint label = firstLabel + r;
    const ivec4 box = listed ? boxMin[r] : ivec4(0);
    const int w = box.w & 0xff, h = listed ? (box.w >> 8) & 0xff : -1;
    const ivec2 least = box.xy;
    // The lane's column, and whether it holds elements of the box.
    const int c = int(lane) - 2;
    const bool inBox = c >= 0 && c < w;
    for (uint k = lane; k < uint(RECORD_WORDS); k += 32u) groupRecord[recordAt + k] = 0u;
    subgroupMemoryBarrierShared();
    subgroupBarrier();

#ifdef GATHER_MOMENTS
    // A lane's column is lx = c: its moment sums are lx^a times its sums of
    // ly^b, multiplied once at the end.
    uvec4 rowPowers = uvec4(0u);
#endif
#ifdef GATHER_PERIMETER
    uvec3 perimeter = uvec3(0u);
#endif
#ifdef GATHER_SUMS
    uvec2 sum = uvec2(0u);
    uvec3 squares = uvec3(0u);
#endif
#ifdef GATHER_EXTREMA
    uint leastSample = 0xffffffffu, mostSample = 0u, leastAt = 0u, mostAt = 0u;
    bool first = true;
#endif
#if defined(GATHER_CROFTON) || defined(GATHER_EULER)
    uint crofton[5] = uint[5](0u, 0u, 0u, 0u, 0u);
    int euler = 0;
#endif
    // Row s of the box as bits (bit l: column l - 2; none past the box's
    // rows), by a ballot of every lane.
#define ROW_BITS(s) subgroupBallot(inBox && (s) < h && labelAt(ivec2(least.x + c, least.y + (s))) == label).x
    // Rows s - 2 .. s + 2, rows before the box empty.
    uint above2 = 0u, above = 0u, here = 0u, below = ROW_BITS(0), below2 = ROW_BITS(1);
    for (int s = 0; s <= h; ++s) {
        const int y = least.y + s;
        above2 = above;
        above = here;
        here = below;
        below = below2;
        below2 = ROW_BITS(s + 2);
        // Column c: the window whose far corner is (least.x + c, y), c = 0
        // .. w, and the element there (c < w, s < h). Bits 0..4: columns
        // c - 2 .. c + 2, the element's bit 2. No lane leaves the step
        // early (no continue): every lane reaches the next ballot together.
        if (c >= 0 && c <= w) {
            const uint middle = here >> uint(c) & 31u;
            const uint up = above >> uint(c) & 31u;
#if defined(GATHER_CROFTON) || defined(GATHER_EULER)
            const uint config = (middle >> 2u & 1u) | (up >> 2u & 1u) << 1u | (middle >> 1u & 1u) << 2u |
                                (up >> 1u & 1u) << 3u;
            if (config != 0u && config != FULL_WINDOW) {
#ifdef GATHER_CROFTON
                const int k = croftonClass(config);
                for (int n = 0; n < 5; ++n) crofton[n] += k == n ? 1u : 0u;  // not crofton[k]: indexed at run time
#endif
#ifdef GATHER_EULER
                euler += eulerTimes(config);
#endif
            }
#endif
            if (c < w && s < h && (middle & 4u) != 0u) {
                const ivec2 p = ivec2(least.x + c, y);
#ifdef GATHER_MOMENTS
                const uint ly = uint(s);
                rowPowers += uvec4(1u, ly, ly * ly, ly * ly * ly);
#endif
#ifdef GATHER_PERIMETER
                const uint down = below >> uint(c) & 31u;
                if ((up & down & 4u) == 0u || (middle & 10u) != 10u) {
                    const uint inside = (above2 >> uint(c) & 31u) | up << 5u | middle << 10u | down << 15u |
                                        (below2 >> uint(c) & 31u) << 20u;
                    const int k = windowPerimeterClass(inside);
                    perimeter += uvec3(equal(ivec3(k), ivec3(0, 1, 2)));  // not perimeter[k]: indexed at run time
                }
#endif
#ifdef GATHER_INTENSITY
                const uint value = sampleAt(p);
#endif
#ifdef GATHER_SUMS
                sum = add64(sum, uvec2(value, 0u));
                squares = add96(squares, multiply64(uvec2(value, 0u), value));
#endif
#ifdef GATHER_EXTREMA
                // A lane's elements in raster order: its first element of a
                // value holds its least index.
                const uint element = uint(y) * uint(imageSize.x) + uint(p.x);
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
            }
        }
    }

#ifdef GATHER_MOMENTS
    if (inBox) {
        const uint lx = uint(c);
        const uint lxPower[4] = uint[4](1u, lx, lx * lx, lx * lx * lx);
        uint at = uint(MOMENTS_AT);
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex) {
                if (MOMENT_LEVEL != 4 && ex + ey > MOMENT_LEVEL) continue;
                const int limbs = termLimbs(ex + ey, false);
                addGroupWide(at, uvec3(product64(lxPower[ex], rowPowers[ey]), 0u), limbs);
                at += uint(limbs);
            }
    }
#endif
#ifdef GATHER_PERIMETER
    for (int k = 0; k < 3; ++k)
        if (perimeter[k] != 0u) atomicAdd(groupRecord[recordAt + uint(PERIMETER_AT + k)], perimeter[k]);
#endif
#ifdef GATHER_SUMS
    addGroupWide(uint(SUM_AT), uvec3(sum, 0u), SUM_LIMBS);
    addGroupWide(uint(SQUARES_AT), squares, SQUARES_LIMBS);
#endif
#ifdef GATHER_EXTREMA
    // Complemented, as measure_terms and measure_extrema keep them.
    if (!first) {
        atomicMax(groupRecord[recordAt + uint(EXTREMA_AT)], ~leastSample);
        atomicMax(groupRecord[recordAt + uint(EXTREMA_AT + 1)], mostSample);
    }
#endif
#ifdef GATHER_CROFTON
    for (int k = 0; k < 5; ++k)
        if (crofton[k] != 0u) atomicAdd(groupRecord[recordAt + uint(CROFTON_AT + k)], crofton[k]);
#endif
#ifdef GATHER_EULER
    if (euler != 0) addGroupWide(uint(EULER_AT), uvec3(uint(euler), euler < 0 ? 0xffffffffu : 0u, 0u), 2);
#endif
#ifdef GATHER_POSITIONS
    subgroupMemoryBarrierShared();
    subgroupBarrier();  // the extrema, complete
    if (!first && leastSample == ~groupRecord[recordAt + uint(EXTREMA_AT)])
        atomicMax(groupRecord[recordAt + uint(POSITIONS_AT)], ~leastAt);
    if (!first && mostSample == groupRecord[recordAt + uint(EXTREMA_AT + 1)])
        atomicMax(groupRecord[recordAt + uint(POSITIONS_AT + 1)], ~mostAt);
#endif
    subgroupMemoryBarrierShared();
    subgroupBarrier();  // the subgroup's record, complete
    const uint record = r * uint(RECORD_WORDS);
    if (listed)
        for (uint k = lane; k < uint(RECORD_WORDS); k += 32u) totals[record + k] = groupRecord[recordAt + k];
}
