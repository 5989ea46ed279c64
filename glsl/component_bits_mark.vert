// component_bits, first: marks the table entries of the large components: entry of the i-th listed
// label gets i + 1 (its place in the large table), all others stay 0.
uniform usampler2D largeList;
uniform int listWidth;
uniform ivec2 tableSize;
flat out uint scatterLabel;

void main() {
    uint label = texelFetch(largeList, ivec2(gl_VertexID % listWidth, gl_VertexID / listWidth), 0).r;
    scatterLabel = uint(gl_VertexID + 1);
    gl_Position = pixelPosition(tableEntry(label, tableSize.x), tableSize, 0.0);
}
