// Column processing, step 1: gather neighbour (column_processing.glsl,
// gatherNeighbour), one vertex per node of the current column of every
// block.
#include "column_processing.glsl"

void main() {
    ivec2 n;
    if (columnGroupStart(gl_VertexID, columnInBlock, columnGroup, n)) gatherNeighbour(n, 0.0);
}
