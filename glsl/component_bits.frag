// The 31 counts of one label's pixels in one row segment: the area, and per
// bit of x - left and of y - top, how many of the pixels have it set.
// Additive blending sums them per large component; a band holds at most 2^24
// pixels, so every count is exact in R32F; fold_bits then adds the band's
// counts into 32-bit integer totals. sum(x - left) = sum over bits b of
// 2^b * count_b. Counter 4t + c goes to channel c of target t (GLSL 3.30
// allows only constant indices into output arrays: unrolled writes).
uniform usampler2D labels;
flat in ivec4 scatterSegment;
flat in uint scatterLabel;
out vec4 counters[8];

// How many integers in [0, n) have bit b set.
int withBitBelow(int n, int b) {
    int period = 1 << (b + 1), halfPeriod = 1 << b;
    return (n / period) * halfPeriod + max(0, n % period - halfPeriod);
}

void main() {
    ivec2 p = scatterSegment.xy;
    ivec2 corner = scatterSegment.zw;
    float count[32];
    for (int i = 0; i < 32; ++i) count[i] = 0.0;
    // Runs of the label in the segment: [runStart, x) in x - left units.
    int end = segmentEnd(p), runStart = -1;
    for (int x = p.x; x <= end; ++x) {
        bool inside = x < end && texelFetch(labels, ivec2(x, p.y), 0).r == scatterLabel;
        if (inside && runStart < 0) runStart = x - corner.x;
        if (inside || runStart < 0) continue;
        int runEnd = x - corner.x;
        count[0] += float(runEnd - runStart);
        for (int b = 0; b < 15; ++b) count[1 + b] += float(withBitBelow(runEnd, b) - withBitBelow(runStart, b));
        runStart = -1;
    }
    int dy = p.y - corner.y;
    for (int b = 0; b < 15; ++b) count[16 + b] = ((dy >> b) & 1) != 0 ? count[0] : 0.0;
    counters[0] = vec4(count[0], count[1], count[2], count[3]);
    counters[1] = vec4(count[4], count[5], count[6], count[7]);
    counters[2] = vec4(count[8], count[9], count[10], count[11]);
    counters[3] = vec4(count[12], count[13], count[14], count[15]);
    counters[4] = vec4(count[16], count[17], count[18], count[19]);
    counters[5] = vec4(count[20], count[21], count[22], count[23]);
    counters[6] = vec4(count[24], count[25], count[26], count[27]);
    counters[7] = vec4(count[28], count[29], count[30], count[31]);
}
