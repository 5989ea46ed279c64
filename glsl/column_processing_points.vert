// Column processing's scatter back of column c and gather neighbour of
// column c + 1 as one draw (Tuning::rasterColumnDraws 2): neither reads
// what the other writes (both read the processed columns, both blend into
// the roots with GL_MAX), so two draws a column and update column between
// them do what three did. The first columnVertices(scatterGroup) vertices
// scatter back column columnInBlock (none for column 0), the next gather
// into column columnInBlock + 1 (none past the block). Gathered roots are marked at
// depth 1.0 too, so a gather never unmarks a root a scatter-back changed;
// post_column_processing follows a marked root's pointers again, whatever
// marked it.
#include "column_processing.glsl"

void main() {
    int scattered = columnInBlock > 0 ? columnVertices(scatterGroup) : 0;
    ivec2 n;
    if (gl_VertexID < scattered) {
        if (columnGroupStart(gl_VertexID, columnInBlock, scatterGroup, n)) scatterBack(n);
    } else if (columnGroupStart(gl_VertexID - scattered, columnInBlock + 1, columnGroup, n)) {
        gatherNeighbour(n, 1.0);
    }
}
