// Column processing, step 3: scatter back (column_processing.glsl,
// scatterBack), one vertex per node of the current column of every block.
#include "column_processing.glsl"

void main() {
    ivec2 n;
    uint bits;
    if (columnNode(gl_VertexID, columnInBlock, n, bits)) scatterBack(n, bits);
}
