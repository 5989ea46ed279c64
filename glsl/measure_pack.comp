// measure_pack: the batch's records, once every pass has added into them,
// copied into the buffer the host reads, each region's record in its
// tier's (by its box: at most kSmallBox elements, by the axes it is one
// element across; at most kPackTierBox elements under 256 a side; the
// rest): the sums of a tier's regions are bounded by its boxes, so their
// high limbs are zero and left behind (engine/src/measure_terms.cpp's
// packMap), and of the small tiers' and the box tier's words only the
// bits their bounds can set come down, one field after another
// (fieldWidths: a noisy image's small regions' moments take about half
// of their words' bits). A region's record in `totals` is RECORD_WORDS
// words, in its tier's fewer.
//
// PACK_LANES invocations copy a region's record, the regions in the
// order of the batch, so `totals` is read in one sweep: a tier's regions
// lie all over it, and copying a tier at a time would sweep it once a
// tier.
//
// The tier of points (regions of one element) is not in `totals`: no pass
// measures a point, whose shape's terms are any element's (the host's), and
// its record is its sample alone, loaded here from the intensity at its
// box's corner (a record of no word without intensity terms).

layout(local_size_x = MEASURE_GROUP) in;

// packTarget[i]: the first word of region i's record in packedRecords
// (kNoPackTarget: its tier's record has no word).
layout(std430, binding = MEASURE_PACK_TARGETS_BUFFER) readonly buffer PackTargets { uint packTarget[]; };
// The tiers (packTiers of them) as three words each: the first word of
// the tier's records in packedRecords, the words of its packed record,
// where its map starts; then the maps, each its count of fields F, a pair
// of words a field (the word of the region's record it is the low bits
// of; its first bit in the packed record, and its bits times 2^24), and
// a word per packed word: the first field that reaches it.
layout(std430, binding = MEASURE_PACK_WORDS_BUFFER) readonly buffer PackWords { uint packWord[]; };
layout(std430, binding = MEASURE_PACKED_BUFFER) writeonly buffer Packed { uint packedRecords[]; };
uniform uint packRegions;  // the batch's
uniform uint packTiers;
uniform uint pointTier;  // the tier of points (packTiers: none)

void main() {
    const uint index = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(MEASURE_GROUP) +
                       gl_LocalInvocationID.x;
    const uint region = index / uint(PACK_LANES), lane = index % uint(PACK_LANES);
    if (region >= packRegions) return;
    const uint target = packTarget[region];
    if (target == uint(NO_PACK_TARGET)) return;
    // Its tier: the last whose records start at or before its own (an
    // empty tier starts where the next does).
    uint tier = 0u;
    for (uint t = 1u; t < packTiers; ++t)
        if (packWord[t * 3u] <= target) tier = t;
#ifdef GATHER_INTENSITY
    if (tier == pointTier) {
#if DIMENSIONS == 3
        if (lane == 0u) packedRecords[target] = sampleAt(boxMin[region].xyz);
#else
        if (lane == 0u) packedRecords[target] = sampleAt(boxMin[region].xy);
#endif
        return;
    }
#endif
    // The tier's fields, each the low `width` bits of a word of the
    // region's record, one after another; a lane's packed word takes those
    // that reach it, from the first (listed per packed word).
    const uint words = packWord[tier * 3u + 1u], map = packWord[tier * 3u + 2u];
    const uint fields = packWord[map], source = region * uint(RECORD_WORDS);
    for (uint k = lane; k < words; k += uint(PACK_LANES)) {
        const uint low = 32u * k;
        uint word = 0u;
        for (uint f = packWord[map + 1u + 2u * fields + k]; f < fields; ++f) {
            const uint placed = packWord[map + 2u + 2u * f], at = placed & 0xffffffu, width = placed >> 24u;
            if (at >= low + 32u) break;
            const uint value = totals[source + packWord[map + 1u + 2u * f]] &
                               (width == 32u ? 0xffffffffu : (1u << width) - 1u);
            word |= at >= low ? value << (at - low) : value >> (low - at);
        }
        packedRecords[target + k] = word;
    }
}
