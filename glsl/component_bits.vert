// Exact sums for large components, one band of rows at a time. Every pixel of
// a large component sends 1 and the 15 bits of x - left and of y - top to the
// component's entry in the large table; additive blending counts, per bit,
// the pixels that have it set. A band holds at most 2^24 pixels, so every
// count is exact in R32F; fold_bits then adds the band's counts into 32-bit
// integer totals. sum(x - left) = sum over bits b of 2^b * count_b.
uniform usampler2D labels;
uniform sampler2D boxes;
uniform usampler2D largeIndex;  // per table entry: index in the large table + 1, or 0
uniform ivec2 tableSize;
uniform ivec2 largeSize;
uniform int firstRow;
flat out ivec3 scatterBits;     // 1, x - left, y - top

void main() {
    ivec2 p = pixelOfVertex(firstRow);
    uint label = texelFetch(labels, p, 0).r;
    gl_Position = kClipped;
    scatterBits = ivec3(0);
    if (label == 0u) return;
    ivec2 entry = tableEntry(label, tableSize.x);
    uint large = texelFetch(largeIndex, entry, 0).r;
    if (large == 0u) return;
    vec4 box = texelFetch(boxes, entry, 0);
    scatterBits = ivec3(1, p - (imageSize - 1 - ivec2(box.xy)));
    gl_Position = pixelPosition(tableEntry(large, largeSize.x), largeSize, 0.0);
}
