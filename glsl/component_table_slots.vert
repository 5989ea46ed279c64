// component_table by slots (Tuning::rasterTable slots), step 3: one vertex
// per segment and slot, as many slots as the most roots any segment
// holds (component_table_most.frag). Slot k of a segment sends the point
// from the k-th node of its mask (component_table_firsts.frag): the points
// component_table.vert sends, from a vertex per segment and slot instead of
// one per node, each reading one mask instead of walking the segment.
uniform sampler2D ids;          // every node's root ID
uniform usampler2D firsts;      // per segment, the nodes first of their root
uniform ivec2 tableSize;
uniform int tableSpread;        // copies of the table (tablePointPosition)
uniform int slots;
flat out ivec2 scatterNode;
flat out float scatterRoot;

void main() {
    int segment = gl_VertexID / slots, slot = gl_VertexID % slots;
    int across = textureSize(firsts, 0).x;
    ivec2 s = ivec2(segment % across, segment / across);
    gl_Position = kClipped;
    uint mask = texelFetch(firsts, s, 0).r;
    if (int(onesIn(mask)) <= slot) return;
    for (int k = 0; k < slot; ++k) mask &= mask - 1u;  // the slot lowest set bits dropped
    int bit = lowestBit(mask);  // the lowest set bit left
    ivec2 n = slotSegmentNode(s, bit);
    float root = texelFetch(ids, n, 0).r;
    scatterNode = n;
    scatterRoot = root;
    uint label = rootLabelOf(root);
    // The copy by segment, so that the points of consecutive segments (the
    // draw's order), of one component as of any, go to different copies.
    gl_Position = tableCopyPosition(label, (s.x + s.y) % tableSpread, tableSize, tableSpread);
}
