// Exact sums for large components, one band of rows at a time. Each large
// label's pixels within a row segment become 31 counts: the area, and per
// bit of x - left and of y - top, how many of the pixels have it set; they
// go to the component's entry in the large table, where additive blending
// sums them. A band holds at most 2^24 pixels, so every count is exact in
// R32F; fold_bits then adds the band's counts into 32-bit integer totals.
// sum(x - left) = sum over bits b of 2^b * count_b.
uniform usampler2D labels;
uniform sampler2D boxes;
uniform usampler2D largeIndex;  // per table entry: index in the large table + 1, or 0
uniform ivec2 tableSize;
uniform ivec2 largeSize;
uniform int firstRow;
flat out vec4 scatterCounters[8];  // counter 4t + c in channel c of element t

// How many integers in [0, n) have bit b set.
int withBitBelow(int n, int b) {
    int period = 1 << (b + 1), halfPeriod = 1 << b;
    return (n / period) * halfPeriod + max(0, n % period - halfPeriod);
}

void main() {
    ivec2 p = pixelOfVertex(firstRow);
    uint label = texelFetch(labels, p, 0).r;
    gl_Position = kClipped;
    for (int t = 0; t < 8; ++t) scatterCounters[t] = vec4(0.0);
    if (!firstOfLabelInSegment(labels, p, label)) return;
    ivec2 entry = tableEntry(label, tableSize.x);
    uint large = texelFetch(largeIndex, entry, 0).r;
    if (large == 0u) return;
    ivec2 corner = imageSize - 1 - ivec2(texelFetch(boxes, entry, 0).xy);
    float counters[32];
    for (int i = 0; i < 32; ++i) counters[i] = 0.0;
    // Runs of the label in the segment: [runStart, x) in x - left units.
    int end = segmentEnd(p), runStart = -1;
    for (int x = p.x; x <= end; ++x) {
        bool inside = x < end && texelFetch(labels, ivec2(x, p.y), 0).r == label;
        if (inside && runStart < 0) runStart = x - corner.x;
        if (inside || runStart < 0) continue;
        int runEnd = x - corner.x;
        counters[0] += float(runEnd - runStart);
        for (int b = 0; b < 15; ++b) counters[1 + b] += float(withBitBelow(runEnd, b) - withBitBelow(runStart, b));
        runStart = -1;
    }
    int dy = p.y - corner.y;
    for (int b = 0; b < 15; ++b) counters[16 + b] = ((dy >> b) & 1) != 0 ? counters[0] : 0.0;
    for (int t = 0; t < 8; ++t)
        scatterCounters[t] = vec4(counters[4 * t], counters[4 * t + 1], counters[4 * t + 2], counters[4 * t + 3]);
    gl_Position = pixelPosition(tableEntry(large, largeSize.x), largeSize, 0.0);
}
