// measure_fold: each hot region's replicas (measure_common.glsl's boxes)
// added into its record once measure_terms has filled them, an invocation
// a replica: the wide sums by addWide, the perimeter's counts by
// atomicAdd, the extrema by atomicMax as measure_terms adds them. A
// replica no run went into is zero and adds nothing.

layout(local_size_x = MEASURE_GROUP) in;

// The hot regions' batch indices, in the order of their replicas.
layout(std430, binding = MEASURE_HOT_BUFFER) readonly buffer HotRegions { uint hotRegion[]; };
uniform uint hotCount;

// The wide sum of `limbs` at totals[from] into the one at totals[to].
void foldWide(uint from, uint to, int limbs) {
    uint v[LIMBS];
    for (int k = 0; k < LIMBS; ++k) v[k] = k < limbs ? totals[from + uint(k)] : 0u;
    addWide(to, v, limbs);
}

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= hotCount * uint(REPLICAS)) return;
    const uint h = i / uint(REPLICAS);
    const uint from = replicaOf(h, i % uint(REPLICAS));
    const uint to = hotRegion[h] * uint(RECORD_WORDS);
#ifdef GATHER_MOMENTS
    for (int t = 0; t < MOMENT_TERMS; ++t) {
        const uint at = uint(MOMENTS_AT + kMomentOffset[t]);
        foldWide(from + at, to + at, kMomentLimbs[t]);
    }
#endif
#ifdef GATHER_WEIGHTED
    for (int t = 0; t < WEIGHTED_TERMS; ++t) {
        const uint at = uint(WEIGHTED_AT + kWeightedOffset[t]);
        foldWide(from + at, to + at, kWeightedLimbs[t]);
    }
#endif
#ifdef GATHER_SUMS
    foldWide(from + uint(SUM_AT), to + uint(SUM_AT), SUM_LIMBS);
    foldWide(from + uint(SQUARES_AT), to + uint(SQUARES_AT), SQUARES_LIMBS);
#endif
#ifdef GATHER_EXTREMA
    for (int k = 0; k < 2; ++k) atomicMax(totals[to + uint(EXTREMA_AT + k)], totals[from + uint(EXTREMA_AT + k)]);
#endif
#ifdef GATHER_PERIMETER
    for (int c = 0; c < 3; ++c) {
        const uint n = totals[from + uint(PERIMETER_AT + c)];
        if (n != 0u) atomicAdd(totals[to + uint(PERIMETER_AT + c)], n);
    }
#endif
}
