// Linking roots across connections the earlier stages missed: block borders
// (O'Connell §9, Fig. 9.1) and the links the paper's column processing loses
// (its Fig. 5.8). Labels are compressed (every node holds its root's ID);
// each node scatters the largest label among its connected neighbours to its
// own root when that label is larger. GL_MAX blending keeps the largest, so a
// root only ever moves to a larger label: no cycles, and each round removes
// at least one root until none is left to merge.
//   borderStride == 0: one vertex per node of the grid;
//   borderStride  > 0: one vertex per node of the columns on either side of
//                      each block border (x = k * borderStride - 1 and k * borderStride).
uniform sampler2D ids;
uniform int borderStride;
flat out float scatterValue;

void main() {
    ivec2 n;
    if (borderStride == 0) {
        n = ivec2(gl_VertexID % gridSize.x, gl_VertexID / gridSize.x);
    } else {
        int border = gl_VertexID / (2 * gridSize.y) + 1;
        int side = (gl_VertexID / gridSize.y) & 1;
        n = ivec2(border * borderStride - 1 + side, gl_VertexID % gridSize.y);
    }
    gl_Position = kClipped;
    scatterValue = 0.0;
    if (!insideGrid(n)) return;
    uint bits = nodeBits(n);
    if ((bits & kLinkBits) == 0u) return;
    float label = texelFetch(ids, n, 0).r;
    float best = label;
    for (int i = 0; i < kNeighbourCount; ++i)
        if (linksTo(bits, i)) best = max(best, texelFetch(ids, n + kNeighbours[i], 0).r);
    if (best <= label) return;
    scatterValue = best;
    gl_Position = pixelPosition(nodeOfId(label), gridSize, 0.0);
}
