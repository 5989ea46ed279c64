// Exact sums for large components, one band of rows at a time. The first
// pixel of each large label in a row segment sends the segment to the
// component's entry in the large table; component_bits.frag counts there.
// (Counting here would give every vertex, culled or not, 32 outputs to write:
// this draw has one vertex per pixel, so its outputs are kept small.)
uniform usampler2D labels;
uniform sampler2D boxes;
uniform usampler2D largeIndex;  // per table entry: index in the large table + 1, or 0
uniform ivec2 tableSize;
uniform ivec2 largeSize;
uniform int firstRow;
flat out ivec4 scatterSegment;  // first pixel x, y, and the box corner (left, top)
flat out uint scatterLabel;

void main() {
    ivec2 p = pixelOfVertex(firstRow);
    uint label = texelFetch(labels, p, 0).r;
    gl_Position = kClipped;
    if (!firstOfLabelInSegment(labels, p, label)) return;
    ivec2 entry = tableEntry(label, tableSize.x);
    uint large = texelFetch(largeIndex, entry, 0).r;
    if (large == 0u) return;
    scatterSegment = ivec4(p, imageSize - 1 - ivec2(texelFetch(boxes, entry, 0).xy));
    scatterLabel = label;
    gl_Position = pixelPosition(tableEntry(large, largeSize.x), largeSize, 0.0);
}
