// measure_medium's narrow regions (measure_medium.comp with MEDIUM_NARROW):
// those whose boxes are at most 28 elements wide (kNarrowWidth), by one
// subgroup of 32 invocations each (a work group of MEASURE_GROUP holds
// GROUP_RECORDS of them), where the context has ballots in subgroups of
// 32 (TermGatherer chooses). Lane l takes column l - 2 of the box, the two
// columns on each side of it included, and the subgroup walks the box a row
// a step: each lane reads its element's label, and one ballot gives every
// lane the row's bits, an element a bit, as measure_medium's band holds
// them in shared memory. The five rows around the step's stay in
// registers, so the walk has no barrier and no shared memory but the
// subgroup's record (groupRecord from recordAt).
//
// The terms are measure_medium's (ElementSums), with the same bounds: a
// lane's sums of ly^e over the at most 255 rows of its column are below
// 2^32 and its moment sums below 2^56.

uniform uint narrowRegions;

// The work group `group` of the narrow regions' (0 the first).
void measureNarrow(uint group) {
    const uint sub = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    recordAt = sub * uint(RECORD_WORDS);
    const uint i = group * uint(GROUP_RECORDS) + sub;
    const bool listed = i < narrowRegions;
    const uint r = listed ? mediumRegion[mediumRegions + i] : 0u;
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
    ElementSums e = noElements();
    // Row s of the box as bits (bit l: column l - 2; none past the box's
    // rows), by a ballot of every lane.
#define ROW_BITS(s) subgroupBallot(inBox && (s) < h && labelAt(ivec2(least.x + c, least.y + (s))) == label).x
    // Rows s - 2 .. s + 2, rows before the box empty.
    uint above2 = 0u, above = 0u, here = 0u, below = ROW_BITS(0), below2 = ROW_BITS(1);
    for (int s = 0; s <= h; ++s) {
        above2 = above;
        above = here;
        here = below;
        below = below2;
        below2 = ROW_BITS(s + 2);
        // Column c: the window whose far corner is (least.x + c, least.y +
        // s), c = 0 .. w, and the element there (c < w, s < h). Bits 0..4:
        // columns c - 2 .. c + 2, the element's bit 2. No lane leaves the
        // step early (no continue): every lane reaches the next ballot
        // together.
        if (c >= 0 && c <= w) {
            const uint middle = here >> uint(c) & 31u;
            const uint up = above >> uint(c) & 31u;
#if defined(GATHER_CROFTON) || defined(GATHER_EULER)
            addWindow(e, (middle >> 2u & 1u) | (up >> 2u & 1u) << 1u | (middle >> 1u & 1u) << 2u |
                             (up >> 1u & 1u) << 3u);
#endif
            if (c < w && s < h && (middle & 4u) != 0u) {
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
                addSample(e, ivec2(least.x + c, least.y + s));
            }
        }
    }
#undef ROW_BITS

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
