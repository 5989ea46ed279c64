// measure_fold: each hot region's replicas (measure_common.glsl's boxes)
// added into its record once measure_terms and measure_windows have filled
// them, an invocation a replica: the wide sums by addWide, the Euler
// number's int64 modulo 2^64, the perimeter's and Crofton counts by
// atomicAdd, the extrema by atomicMax, as the passes add them. A
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
#if DIMENSIONS == 3
    const int zMax = 3;
#else
    const int zMax = 0;
#endif
#ifdef GATHER_MOMENTS
    uint at = uint(MOMENTS_AT);
    for (int ez = 0; ez <= zMax; ++ez)
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex) {
                if (MOMENT_LEVEL != 4 && ex + ey + ez > MOMENT_LEVEL) continue;
                const int limbs = termLimbs(ex + ey + ez, false);
                foldWide(from + at, to + at, limbs);
                at += uint(limbs);
            }
#endif
#ifdef GATHER_WEIGHTED
    uint weightedAt = uint(WEIGHTED_AT);
    for (int ez = 0; ez <= zMax; ++ez)
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex) {
                if (WEIGHTED_LEVEL != 4 && ex + ey + ez > WEIGHTED_LEVEL) continue;
                const int limbs = termLimbs(ex + ey + ez, true);
                foldWide(from + weightedAt, to + weightedAt, limbs);
                weightedAt += uint(limbs);
            }
#endif
#ifdef GATHER_SUMS
    foldWide(from + uint(SUM_AT), to + uint(SUM_AT), SUM_LIMBS);
    foldWide(from + uint(SQUARES_AT), to + uint(SQUARES_AT), SQUARES_LIMBS);
#endif
#ifdef GATHER_EXTREMA
    for (int k = 0; k < 2; ++k) atomicMax(totals[to + uint(EXTREMA_AT + k)], totals[from + uint(EXTREMA_AT + k)]);
#endif
#ifdef GATHER_EULER
    {  // a two's-complement int64, added modulo 2^64 as addSigned64 adds
        const uint low = totals[from + uint(EULER_AT)], high = totals[from + uint(EULER_AT + 1)];
        const uint before = low != 0u ? atomicAdd(totals[to + uint(EULER_AT)], low) : 0u;
        const uint carried = high + (before + low < before ? 1u : 0u);
        if (carried != 0u) atomicAdd(totals[to + uint(EULER_AT + 1)], carried);
    }
#endif
#ifdef GATHER_CROFTON
    for (int c = 0; c < 5; ++c) {
        const uint n = totals[from + uint(CROFTON_AT + c)];
        if (n != 0u) atomicAdd(totals[to + uint(CROFTON_AT + c)], n);
    }
#endif
#ifdef GATHER_PERIMETER
    for (int c = 0; c < 3; ++c) {
        const uint n = totals[from + uint(PERIMETER_AT + c)];
        if (n != 0u) atomicAdd(totals[to + uint(PERIMETER_AT + c)], n);
    }
#endif
}
