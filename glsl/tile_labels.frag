// tile_labels: every node takes the ID of its component's first node within
// its tile, found by tile_labels_runs.frag for the node's run: the labels
// of `ids` are then those tile components' roots, and the same go into
// resolve_links' first link target (fragCopy). A root is marked in the
// depth buffer (1.0, else 0.0): resolve_links, which links only across the
// tiles' borders, then follows the chains of the marked nodes only; every
// other node keeps its root, a marked one.
#include "tile_labels.glsl"

uniform usampler2D tileRuns0;
uniform usampler2D tileRuns1;
#if RUN_ENTRY_BITS == 16
uniform usampler2D tileRuns2;
uniform usampler2D tileRuns3;
#endif
layout(location = 0) out vec4 fragColor;
layout(location = 1) out vec4 fragCopy;

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    ivec2 t = ivec2(n.x / kTileWidth, n.y);
    int column = n.x - t.x * kTileWidth;
    uint foreground = texelFetch(tileNodes, t, 0).y;
    float id = 0.0;
    bool root = false;
    if ((foreground & (1u << uint(column))) != 0u) {
        uint starts = runStarts(foreground, texelFetch(tileLinks, t, 0).x);
        int run = int(onesIn(starts & ((2u << uint(column)) - 1u))) - 1;
        int target = run / kEntriesPerTarget;
        uvec4 words = target == 0 ? texelFetch(tileRuns0, t, 0) : texelFetch(tileRuns1, t, 0);
#if RUN_ENTRY_BITS == 16
        if (target >= 2) words = target == 2 ? texelFetch(tileRuns2, t, 0) : texelFetch(tileRuns3, t, 0);
#endif
        int entry = run % kEntriesPerTarget;
        uint first = (words[entry / kEntriesPerWord] >> uint(kEntryBits * (entry % kEntriesPerWord))) & kEntryMask;
        ivec2 node = ivec2(t.x * kTileWidth + int(first % uint(kTileWidth)),
                           n.y / kTileRows * kTileRows + int(first / uint(kTileWidth)));
        id = nodeId(node, nodeBits(node));
        root = node == n;
    }
    fragColor = fragCopy = vec4(id);
    gl_FragDepth = root ? 1.0 : 0.0;
}
