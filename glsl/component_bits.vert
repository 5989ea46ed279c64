// Exact sums for large components, one band of node rows at a time: one
// vertex per row segment of kSegment nodes, which sends the segment's
// largeRank-th large component (in order of first node) to that
// component's entry in the large table; component_bits.frag counts there.
// The host draws largeRank = 0, 1, ... until a draw sends nothing, so
// segments crossed by several large components take a few draws, and the
// draws have one vertex per segment, not per node. Blending into one texel
// is done a point after another, so a component's points go to `spread`
// texels by their segment (partial k of entry (x, y) at (x, y + k *
// largeSize.y)), which component_bits_fold.frag adds up: a component
// crossing every segment blends a spread-th of its points into each.
uniform sampler2D ids;
uniform usampler2D largeIndex;  // per table entry: index in the large table + 1, or 0
uniform ivec2 tableSize;
uniform ivec2 largeSize;   // the list's layout; the band holds it `spread` times
uniform int spread;
uniform int firstRow;
uniform int largeRank;
flat out ivec2 scatterSegment;  // the segment's first node
flat out float scatterRoot;

void main() {
    int segmentsPerRow = (gridSize.x + kSegment - 1) / kSegment;
    ivec2 first = ivec2(gl_VertexID % segmentsPerRow * kSegment, firstRow + gl_VertexID / segmentsPerRow);
    gl_Position = kClipped;
    if (first.y >= gridSize.y) return;
    float seen[kSegment];  // the large roots met so far
    int seenCount = 0;
    float previous = 0.0;
    for (int x = first.x; x < segmentEnd(first); ++x) {
        float root = texelFetch(ids, ivec2(x, first.y), 0).r;
        if (root == 0.0 || root == previous) continue;
        previous = root;
        bool met = false;
        for (int i = 0; i < seenCount; ++i) met = met || seen[i] == root;
        if (met) continue;
        uint label = rootLabelOf(root);
        uint large = texelFetch(largeIndex, tableEntry(label, tableSize.x), 0).r;
        if (large == 0u) continue;
        if (seenCount == largeRank) {
            scatterSegment = first;
            scatterRoot = root;
            // Neighbouring segments, across and down, take different texels.
            int partial = (first.x / kSegment + first.y) % spread;
            ivec2 texel = tableEntry(large, largeSize.x) + ivec2(0, partial * largeSize.y);
            gl_Position = pixelPosition(texel, ivec2(largeSize.x, largeSize.y * spread), 0.0);
            return;
        }
        seen[seenCount++] = root;
    }
}
