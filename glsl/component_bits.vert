// Exact sums for large components, one band of rows at a time. Each run of a
// large component within a row segment sends its length, its first x - left
// and its y - top to the component's entry in the large table;
// component_bits.frag turns them into 31 counts (area, and per bit of
// x - left and of y - top, how many of the run's pixels have it set), and
// additive blending sums them. A band holds at most 2^24 pixels, so every
// count is exact in R32F; fold_bits then adds the band's counts into 32-bit
// integer totals. sum(x - left) = sum over bits b of 2^b * count_b.
uniform usampler2D labels;
uniform sampler2D boxes;
uniform usampler2D largeIndex;  // per table entry: index in the large table + 1, or 0
uniform ivec2 tableSize;
uniform ivec2 largeSize;
uniform int firstRow;
flat out ivec3 scatterRun;      // length, x - left of its first pixel, y - top

void main() {
    ivec2 p = pixelOfVertex(firstRow);
    uint label = texelFetch(labels, p, 0).r;
    gl_Position = kClipped;
    scatterRun = ivec3(0);
    if (label == 0u) return;
    ivec2 entry = tableEntry(label, tableSize.x);
    uint large = texelFetch(largeIndex, entry, 0).r;
    if (large == 0u) return;
    int length = runStartingAt(labels, p, label);
    if (length == 0) return;
    scatterRun = ivec3(length, p - (imageSize - 1 - ivec2(texelFetch(boxes, entry, 0).xy)));
    gl_Position = pixelPosition(tableEntry(large, largeSize.x), largeSize, 0.0);
}
