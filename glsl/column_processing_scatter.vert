// Column processing, step 3: scatter back (column_processing.glsl,
// scatterBack), one vertex per node of the current column of every block.
#include "column_processing.glsl"

void main() {
    ivec2 n;
    if (columnGroupStart(gl_VertexID, columnInBlock, n)) scatterBack(n);
}
