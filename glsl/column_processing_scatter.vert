// Column processing, step 3: scatter back (column_processing.glsl,
// scatterBack), one vertex per group of nodes of the current column of every
// block. With ALL_COLUMNS (Tuning::rasterColumnDraws 1) one draw, after all
// the gathers, scatters back every column after the first: the gathers do
// not need the links it makes.
#include "column_processing.glsl"

void main() {
    ivec2 n;
#ifdef ALL_COLUMNS
    if (columnGroupStart(gl_VertexID % columnVertices(), 1 + gl_VertexID / columnVertices(), n)) scatterBack(n);
#else
    if (columnGroupStart(gl_VertexID, columnInBlock, n)) scatterBack(n);
#endif
}
