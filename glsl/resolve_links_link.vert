// The exactness loop's link step (resolve_links): one vertex per square of
// linkGroup × linkGroup nodes of the grid links a root to the largest
// connected label (common.glsl, linkToLargestNeighbour). It finds the links
// the paper's column processing loses (its Fig. 5.8). A vertex draws one
// point, so a square of several nodes (Tuning::rasterResolveGroup) raises
// the root offered the largest label and leaves its other links to the next
// round: every square with a link still raises a root each round.
uniform sampler2D ids;
uniform int linkGroup;
flat out float scatterValue;

void main() {
    int squaresAcross = (gridSize.x + linkGroup - 1) / linkGroup;
    ivec2 first = ivec2(gl_VertexID % squaresAcross, gl_VertexID / squaresAcross) * linkGroup;
    gl_Position = kClipped;
    scatterValue = 0.0;
    for (int dy = 0; dy < linkGroup; ++dy)
        for (int dx = 0; dx < linkGroup; ++dx) {
            float value;
            vec4 position = linkToLargestNeighbour(ids, first + ivec2(dx, dy), value);
            if (value > scatterValue) {
                scatterValue = value;
                gl_Position = position;
            }
        }
}
