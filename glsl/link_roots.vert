// Linking roots across connections the earlier stages missed: block borders
// (O'Connell §9, Fig. 9.1) and the links the paper's column processing loses
// (its Fig. 5.8). Labels are compressed (every pixel holds its root's ID);
// each pixel scatters the largest label among its connected neighbours to its
// own root when that label is larger. GL_MAX blending keeps the largest, so a
// root only ever moves to a larger label: no cycles, and each round removes
// at least one root until none is left to merge.
//   borderStride == 0: one vertex per pixel of the image;
//   borderStride  > 0: one vertex per pixel of the columns on either side of
//                      each block border (x = k * borderStride - 1 and k * borderStride).
uniform sampler2D ids;
uniform int borderStride;
flat out float scatterValue;

void main() {
    ivec2 p;
    if (borderStride == 0) {
        p = ivec2(gl_VertexID % imageSize.x, gl_VertexID / imageSize.x);
    } else {
        int border = gl_VertexID / (2 * imageSize.y) + 1;
        int side = (gl_VertexID / imageSize.y) & 1;
        p = ivec2(border * borderStride - 1 + side, gl_VertexID % imageSize.y);
    }
    gl_Position = kClipped;
    scatterValue = 0.0;
    if (!insideImage(p) || !isForeground(p)) return;
    float label = texelFetch(ids, p, 0).r;
    float best = label;
    vec4 value = pixelValue(p);
    for (int i = 0; i < kNeighbourCount; ++i) {
        ivec2 q = p + kNeighbours[i];
        if (connectsTo(value, q)) best = max(best, texelFetch(ids, q, 0).r);
    }
    if (best <= label) return;
    scatterValue = best;
    gl_Position = pixelPosition(decodeId(label), imageSize, 0.0);
}
