// measure_medium's walk by strips (measure_medium.comp with MEDIUM_STRIPS,
// where the context has ballots in subgroups of 32: TermGatherer chooses).
// A subgroup walks a strip of NARROW_WIDTH columns of a region's box a row
// a step, lane l at column x0 + l - 2 of the strip at x0, the two columns on
// each side of the strip included: each lane reads its element's label, and
// one ballot gives every lane the row's bits, an element a bit, as
// measure_medium's band holds them in shared memory. The five rows around
// the step's stay in registers, so the walk has no barrier and no shared
// memory but the record it adds into (groupRecord from recordAt).
//
//   box 60 wide: strips at x0 = 0, 28, 56; the window past the box's last
//   column (x = 60) is the last strip's, at lane 6
//
// A narrow region (at most NARROW_WIDTH wide, listed after the others) is
// one strip, walked by a subgroup of its own (a work group of
// MEASURE_GROUP holds GROUP_RECORDS of them). A wider one is walked by its
// work group, the subgroups taking alternate strips and adding into one
// record: a subgroup a strip keeps every lane at work (a group a row at a
// time leaves the lanes past the box's width idle) and costs no band in
// shared memory, no barrier between bands. A lane's column changes from
// strip to strip, so its elements come in raster order within a strip
// only: addSample keeps an extremum's least index by comparing indices.
//
// The terms are measure_medium's (ElementSums), with the same bounds: a
// lane's sums of ly^e over the at most 255 rows of its column in a strip
// are below 2^32, and its moment sums below 2^56; they are added into the
// record a strip at a time.

uniform uint narrowRegions;

// kNarrowWidth (measure_terms.hpp): the columns of a strip, 32 lanes less
// the two on each side.
const int NARROW_WIDTH = 28;

// Strips first, first + step, ... of the w x h box at `least` of region
// `label`, walked by this subgroup, into `e` and (the moments) groupRecord
// from recordAt. Every lane of the subgroup calls it.
void walkStrips(uint label, ivec2 least, int w, int h, int first, int step, inout ElementSums e) {
    const int lane = int(gl_SubgroupInvocationID), c = lane - 2;
    for (int x0 = first * NARROW_WIDTH; x0 < w; x0 += step * NARROW_WIDTH) {
        const int x = x0 + c;  // the lane's column of the box
        const bool inBox = x >= 0 && x < w;
        // The columns the strip measures: its own, and in the last strip
        // the window past the box's last column (x = w, at c <= NARROW_WIDTH).
        const bool measures = c >= 0 && (c < NARROW_WIDTH ? x <= w : c == NARROW_WIDTH && x == w);
#ifdef GATHER_MOMENTS
        // The lane's column is lx = x: its moment sums are lx^a times its
        // sums of ly^b, multiplied once a strip.
        uvec4 rowPowers = uvec4(0u);
#endif
        // Row s of the box as bits (bit l: column x0 + l - 2; none past the
        // box's rows), by a ballot of every lane.
#define ROW_BITS(s) subgroupBallot(inBox && (s) < h && labelAt(ivec2(least.x + x, least.y + (s))) == label).x
        // Rows s - 2 .. s + 2, rows before the box empty.
        uint above2 = 0u, above = 0u, here = 0u, below = ROW_BITS(0), below2 = ROW_BITS(1);
        for (int s = 0; s <= h; ++s) {
            above2 = above;
            above = here;
            here = below;
            below = below2;
            below2 = ROW_BITS(s + 2);
            // Column x: the window whose far corner is (least.x + x,
            // least.y + s), and the element there (x < w, s < h). Bits
            // 0..4: columns x - 2 .. x + 2, the element's bit 2. No lane
            // leaves the step early (no continue): every lane reaches the
            // next ballot together.
            if (measures) {
                const uint middle = here >> uint(c) & 31u;
                const uint up = above >> uint(c) & 31u;
#if defined(GATHER_CROFTON) || defined(GATHER_EULER)
                addWindow(e, (middle >> 2u & 1u) | (up >> 2u & 1u) << 1u | (middle >> 1u & 1u) << 2u |
                                 (up >> 1u & 1u) << 3u);
#endif
                if (x < w && s < h && (middle & 4u) != 0u) {
#ifdef GATHER_MOMENTS
                    const uint ly = uint(s);
                    rowPowers += uvec4(1u, ly, ly * ly, ly * ly * ly);
#endif
#ifdef GATHER_PERIMETER
                    const uint down = below >> uint(c) & 31u;
                    if ((up & down & 4u) == 0u || (middle & 10u) != 10u)
                        addBorder(e, (above2 >> uint(c) & 31u) | up << 5u | middle << 10u | down << 15u |
                                         (below2 >> uint(c) & 31u) << 20u);
#endif
                    addSample(e, ivec2(least.x + x, least.y + s));
                }
            }
        }
#undef ROW_BITS
#ifdef GATHER_MOMENTS
        if (rowPowers.x != 0u) {
            const uint lx = uint(x);
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
    }
}

// A listed region's work group (i < mediumRegions), its subgroups walking
// alternate strips into the group's record.
void measureByStrips(uint i) {
    const int lane = int(gl_LocalInvocationID.x);
    const uint r = mediumRegion[i];
    const ivec4 box = boxMin[r];
    const int w = box.w & 0xff, h = (box.w >> 8) & 0xff;  // TermGatherer's packedExtent
    recordAt = 0u;
    for (int k = lane; k < RECORD_WORDS; k += MEASURE_GROUP) groupRecord[k] = 0u;
    memoryBarrierShared();
    barrier();  // the record zeroed
    ElementSums e = noElements();
    walkStrips(firstLabel + r, box.xy, w, h, int(gl_SubgroupID), int(gl_NumSubgroups), e);
    storeElements(e);
#ifdef GATHER_POSITIONS
    memoryBarrierShared();
    barrier();  // the extrema, complete
    storePositions(e);
#endif
    memoryBarrierShared();
    barrier();  // the group's record, complete
    const uint record = r * uint(RECORD_WORDS);
    for (int k = lane; k < RECORD_WORDS; k += MEASURE_GROUP) totals[record + uint(k)] = groupRecord[k];
}

// The work group `group` of the narrow regions' (0 the first), a subgroup
// a region.
void measureNarrow(uint group) {
    const uint sub = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    recordAt = sub * uint(RECORD_WORDS);
    const uint i = group * uint(GROUP_RECORDS) + sub;
    const bool listed = i < narrowRegions;
    const uint r = listed ? mediumRegion[mediumRegions + i] : 0u;
    const ivec4 box = listed ? boxMin[r] : ivec4(0);
    for (uint k = lane; k < uint(RECORD_WORDS); k += 32u) groupRecord[recordAt + k] = 0u;
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    ElementSums e = noElements();
    // An unlisted subgroup walks no strip (w = 0).
    walkStrips(firstLabel + r, box.xy, box.w & 0xff, (box.w >> 8) & 0xff, 0, 1, e);
    storeElements(e);
#ifdef GATHER_POSITIONS
    subgroupMemoryBarrierShared();
    subgroupBarrier();  // the extrema, complete
    storePositions(e);
#endif
    subgroupMemoryBarrierShared();
    subgroupBarrier();  // the subgroup's record, complete
    const uint record = r * uint(RECORD_WORDS);
    if (listed)
        for (uint k = lane; k < uint(RECORD_WORDS); k += 32u) totals[record + k] = groupRecord[recordAt + k];
}
