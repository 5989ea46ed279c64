// Column processing, step 3: scatter back (column_processing.glsl,
// scatterBack), one vertex per group of scatterGroup nodes of the current
// column of every block. With ALL_COLUMNS (Tuning::rasterColumnDraws 1) one draw, after all
// the gathers, scatters back every column after the first: the gathers do
// not need the links it makes.
#include "column_processing.glsl"

void main() {
    ivec2 n;
#ifdef ALL_COLUMNS
    int vertices = columnVertices(scatterGroup);
    if (columnGroupStart(gl_VertexID % vertices, 1 + gl_VertexID / vertices, scatterGroup, n)) scatterBack(n);
#else
    if (columnGroupStart(gl_VertexID, columnInBlock, scatterGroup, n)) scatterBack(n);
#endif
}
