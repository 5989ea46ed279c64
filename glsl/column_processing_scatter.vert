// Column processing, step 3: scatter back (O'Connell §5, Figs. 5.4-5.6).
// Each node of the current column scatters its label to the root of its
// connected left neighbour with the smallest label below its own, at depth
// 1.0: the depth buffer marks the roots that changed, for
// post_column_processing, since those columns are not visited again. With
// 8-connectivity up to three neighbours qualify; one vertex per node serves
// the smallest and leaves the others to the exactness loop (resolve_links),
// which costs less on GPUs where vertex throughput bounds these draws.
#include "column_processing.glsl"

void main() {
    ivec2 n;
    uint bits;
    if (!columnNode(n, bits)) return;
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
