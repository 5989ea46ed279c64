// Column processing, step 1: gather neighbour (column_processing.glsl,
// gatherNeighbour), one vertex per node of the current column of every
// block.
#include "column_processing.glsl"

void main() {
    ivec2 n;
    uint bits;
    if (columnNode(gl_VertexID, columnInBlock, n, bits)) gatherNeighbour(n, bits, 0.0);
}
