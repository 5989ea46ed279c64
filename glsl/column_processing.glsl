// The vertex of column processing's point steps (column_processing_gather.vert,
// column_processing_scatter.vert and column_processing_points.vert, which
// take this file with #include): one vertex per node of a column of every
// block, drawn as a point at the root it scatters to, or clipped.
uniform sampler2D columns;   // run tops, and the labels of processed columns
uniform int blockWidth;
uniform int columnInBlock;
flat out float scatterValue;

// Nodes in one column of every block.
int columnNodes() { return (gridSize.x + blockWidth - 1) / blockWidth * gridSize.y; }

// The node n of `vertex` in column `column` of every block, and its link
// bits; false past the grid. The vertex starts clipped, with nothing to
// scatter.
bool columnNode(int vertex, int column, out ivec2 n, out uint bits) {
    int block = vertex / gridSize.y;
    n = ivec2(block * blockWidth + column, vertex % gridSize.y);
    gl_Position = kClipped;
    scatterValue = 0.0;
    bits = 0u;
    if (n.x >= gridSize.x) return false;
    bits = nodeBits(n);
    return true;
}

// Gather neighbour (O'Connell §5, Fig. 5.2): node n takes the largest label
// of its connected neighbours in the column to its left (already processed)
// and scatters it to the root of its own vertical run, at NDC depth `depth`;
// GL_MAX blending keeps the largest. The paper ran right to left because its
// largest IDs were bottom-right; ours are top-left, so columns run left to
// right.
void gatherNeighbour(ivec2 n, uint bits, float depth) {
    float best = 0.0;
    if (linksTo(bits, kLeft)) best = texelFetch(columns, n + kNeighbours[kLeft], 0).r;
#if CONNECTIVITY == 8
    if (linksTo(bits, kUpLeft)) best = max(best, texelFetch(columns, n + kNeighbours[kUpLeft], 0).r);
    if (linksTo(bits, kDownLeft)) best = max(best, texelFetch(columns, n + kNeighbours[kDownLeft], 0).r);
#endif
    if (best == 0.0) return;
    float runTop = texelFetch(columns, n, 0).r;
    if (best <= runTop) return;  // cannot raise the root: a root's value is at least its own ID
    scatterValue = best;
    gl_Position = pixelPosition(nodeOfId(runTop), gridSize, depth);
}

// Scatter back (O'Connell §5, Figs. 5.4-5.6): node n scatters its label to
// the root of its connected left neighbour with the smallest label below
// its own, at depth 1.0: the depth buffer marks the roots that changed, for
// post_column_processing, since those columns are not visited again. With
// 8-connectivity up to three neighbours qualify; one vertex per node serves
// the smallest and leaves the others to the exactness loop (resolve_links),
// which costs less on GPUs where vertex throughput bounds these draws.
void scatterBack(ivec2 n, uint bits) {
#if CONNECTIVITY == 8
    const uint kLeftLinks = (1u << uint(kLeft)) | (1u << uint(kUpLeft)) | (1u << uint(kDownLeft));
#else
    const uint kLeftLinks = 1u << uint(kLeft);
#endif
    if ((bits & kLeftLinks) == 0u) return;
    float label = texelFetch(columns, n, 0).r;
    float smallest = label;
    if (linksTo(bits, kLeft)) smallest = min(smallest, texelFetch(columns, n + kNeighbours[kLeft], 0).r);
#if CONNECTIVITY == 8
    if (linksTo(bits, kUpLeft)) smallest = min(smallest, texelFetch(columns, n + kNeighbours[kUpLeft], 0).r);
    if (linksTo(bits, kDownLeft)) smallest = min(smallest, texelFetch(columns, n + kNeighbours[kDownLeft], 0).r);
#endif
    if (smallest >= label) return;
    scatterValue = label;
    gl_Position = pixelPosition(nodeOfId(smallest), gridSize, 1.0);
}
