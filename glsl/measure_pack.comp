// measure_pack: the batch's records, once every pass has added into them,
// copied into the buffer the host reads, a tier of regions at a time (by
// their boxes: at most kSmallBox elements; at most kPackTierBox elements
// under 256 a side; the rest), each region's record in its tier's: the
// sums of a tier's regions are bounded by its boxes, so their high limbs
// are zero and left behind (engine/src/measure_terms.cpp's packMap). A
// region's record in `totals` is RECORD_WORDS words, in its tier's
// packWords. An invocation copies one word.

layout(local_size_x = MEASURE_GROUP) in;

// The tiers' regions (their batch indices) one tier after another, and
// their records' words: word k of a tier's record is word
// packWord[packWordFirst + k] of the region's.
layout(std430, binding = MEASURE_PACK_REGIONS_BUFFER) readonly buffer PackRegions { uint packRegion[]; };
layout(std430, binding = MEASURE_PACK_WORDS_BUFFER) readonly buffer PackWords { uint packWord[]; };
layout(std430, binding = MEASURE_PACKED_BUFFER) writeonly buffer Packed { uint packedRecords[]; };
uniform uint packRegions;      // of this tier, from packRegion[packRegionFirst]
uniform uint packRegionFirst;
uniform uint packWords;        // of its record, from packWord[packWordFirst]
uniform uint packWordFirst;
uniform uint packFirst;        // the tier's first word in packedRecords

void main() {
    const uint index = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(MEASURE_GROUP) +
                       gl_LocalInvocationID.x;
    if (index >= packRegions * packWords) return;
    const uint region = index / packWords, k = index - region * packWords;
    packedRecords[packFirst + index] =
        totals[packRegion[packRegionFirst + region] * uint(RECORD_WORDS) + packWord[packWordFirst + k]];
}
