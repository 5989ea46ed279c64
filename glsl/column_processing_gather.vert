// Column processing, step 1: gather neighbour (O'Connell §5, Fig. 5.2).
// One vertex per node of the current column of every block. Each node takes
// the largest label of its connected neighbours in the column to its left
// (already processed) and scatters it to the root of its own vertical run;
// GL_MAX blending keeps the largest. The paper ran right to left because its
// largest IDs were bottom-right; ours are top-left, so columns run left to right.
#include "column_processing.glsl"

void main() {
    ivec2 n;
    uint bits;
    if (!columnNode(n, bits)) return;
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
    gl_Position = pixelPosition(nodeOfId(runTop), gridSize, 0.0);
}
