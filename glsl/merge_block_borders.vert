// Merging the vertical blocks of column processing (O'Connell §9, Fig. 9.1):
// one vertex per node of the two columns on either side of each block border
// (x = k * blockWidth - 1 and k * blockWidth) links its root to the largest
// connected label (common.glsl, linkToLargestNeighbour).
uniform sampler2D ids;
uniform int blockWidth;
flat out float scatterValue;

void main() {
    int border = gl_VertexID / (2 * gridSize.y) + 1;
    int side = (gl_VertexID / gridSize.y) & 1;
    ivec2 n = ivec2(border * blockWidth - 1 + side, gl_VertexID % gridSize.y);
    gl_Position = linkToLargestNeighbour(ids, n, scatterValue);
}
