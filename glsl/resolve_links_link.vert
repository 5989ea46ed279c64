// The exactness loop's link step (resolve_links): one vertex per node of the
// grid links its root to the largest connected label (common.glsl,
// linkToLargestNeighbour). It finds the links the paper's column processing
// loses (its Fig. 5.8).
uniform sampler2D ids;
flat out float scatterValue;

void main() {
    gl_Position = linkToLargestNeighbour(ids, ivec2(gl_VertexID % gridSize.x, gl_VertexID / gridSize.x), scatterValue);
}
