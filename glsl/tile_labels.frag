// tile_labels: every node takes the ID of its component's first node within
// its tile, found by tile_labels_runs.frag for the node's run where its
// component leaves the run's row, else the run's own first node: the labels
// of `ids` are then those tile components' roots, and the same go into
// resolve_links' first link target (fragCopy). A root is marked in the
// depth buffer (1.0, else 0.0): resolve_links, which links only across the
// tiles' borders, then follows the chains of the marked nodes only; every
// other node keeps its root, a marked one.
#include "tile_labels.glsl"

uniform usampler2D tileRuns0, tileRuns1;
#if RUN_OUTPUTS > 2
uniform usampler2D tileRuns2, tileRuns3;
#endif
#if RUN_OUTPUTS > 4
uniform usampler2D tileRuns4, tileRuns5, tileRuns6, tileRuns7;
#endif
layout(location = 0) out vec4 fragColor;
layout(location = 1) out vec4 fragCopy;

// Texel p of tile_labels_runs' output `target`.
uvec4 runWords(int target, ivec2 p) {
    if (target == 0) return texelFetch(tileRuns0, p, 0);
    if (target == 1) return texelFetch(tileRuns1, p, 0);
#if RUN_OUTPUTS > 2
    if (target == 2) return texelFetch(tileRuns2, p, 0);
    if (target == 3) return texelFetch(tileRuns3, p, 0);
#endif
#if RUN_OUTPUTS > 4
    if (target == 4) return texelFetch(tileRuns4, p, 0);
    if (target == 5) return texelFetch(tileRuns5, p, 0);
    if (target == 6) return texelFetch(tileRuns6, p, 0);
    if (target == 7) return texelFetch(tileRuns7, p, 0);
#endif
    return uvec4(0u);
}

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    ivec2 t = ivec2(n.x / kTileWidth, n.y);
    int column = n.x - t.x * kTileWidth, row = n.y % kTileRows;
    uvec2 nodes = texelFetch(tileNodes, t, 0).xy;  // first-row pixels, foreground
    uvec4 links = texelFetch(tileLinks, t, 0);
    uvec4 aboveLinks = row > 0 ? texelFetch(tileLinks, t - ivec2(0, 1), 0) : uvec4(0u);
    float id = 0.0;
    bool root = false;
    uint bit = 1u << uint(column);
    if ((nodes.y & bit) != 0u) {
        uint run = fillRow(bit, links.x);
        uint first;
        if ((run & crossingNodes(row, links, aboveLinks)) != 0u) {
            // The entry of the run's first node's column.
            int entry = lowestBit(run);
            int target = n.y % kRunRows * kRunTargets + entry / kEntriesPerTarget;
            uvec4 words = runWords(target, ivec2(t.x, n.y / kRunRows));
            int e = entry % kEntriesPerTarget;
            first = (words[e / kEntriesPerWord] >> uint(kEntryBits * (e % kEntriesPerWord))) & kEntryMask;
        } else {
            first = firstPlace(row, run, nodes.x);  // the run is its component
        }
        ivec2 node = ivec2(t.x * kTileWidth + int(first % uint(kTileWidth)), n.y - row + int(first / uint(kTileWidth)));
        id = nodeId(node, nodeBits(node));
        root = node == n;
    }
    fragColor = fragCopy = vec4(id);
    gl_FragDepth = root ? 1.0 : 0.0;
}
