// The vertex of column processing's gather and scatter steps
// (column_processing_gather.vert, column_processing_scatter.vert, which
// take this file with #include): one vertex per node of the current column
// of every block, drawn as a point at the root it scatters to, or clipped.
uniform sampler2D columns;   // run tops, and the labels of processed columns
uniform int blockWidth;
uniform int columnInBlock;
flat out float scatterValue;

// This vertex's node n and its link bits; false past the grid. The vertex
// starts clipped, with nothing to scatter.
bool columnNode(out ivec2 n, out uint bits) {
    int block = gl_VertexID / gridSize.y;
    n = ivec2(block * blockWidth + columnInBlock, gl_VertexID % gridSize.y);
    gl_Position = kClipped;
    scatterValue = 0.0;
    bits = 0u;
    if (n.x >= gridSize.x) return false;
    bits = nodeBits(n);
    return true;
}
