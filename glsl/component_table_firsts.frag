// component_table by slots (Tuning::rasterTable slots), step 1: for each
// segment (a block of kSegment nodes, common.glsl's slotSegmentNode), a mask
// of its nodes that are the first of their root in it: bit i for the
// segment's node i. These are the nodes the slot draw
// (component_table_slots.vert) sends points from, found with one fetch.
// The segment is read once: its runs' first nodes (a run: nodes of one root
// one after another in the block's order), then each run's root against the
// roots of the first nodes found before it (a root seen before was first at
// one of them), so a fragment fetches each node once and each run start
// again.
uniform sampler2D ids;
out uvec4 fragFirsts;

void main() {
    ivec2 segment = ivec2(gl_FragCoord.xy);
    ivec2 origin = segment * kSlotSegment, inside = min(kSlotSegment, gridSize - origin);
    uint starts = 0u;
    float before = 0.0;
    for (int r = 0; r < inside.y; ++r)
        for (int c = 0; c < inside.x; ++c) {
            float root = texelFetch(ids, origin + ivec2(c, r), 0).r;
            if (root != 0.0 && root != before) starts |= 1u << uint(r * kSlotSegment.x + c);
            before = root;
        }
    uint mask = 0u;
    for (uint s = starts; s != 0u; s &= s - 1u) {
        int bit = lowestBit(s);
        float root = texelFetch(ids, slotSegmentNode(segment, bit), 0).r;
        bool first = true;
        for (uint m = mask; m != 0u && first; m &= m - 1u) {
            int earlier = lowestBit(m);
            first = texelFetch(ids, slotSegmentNode(segment, earlier), 0).r != root;
        }
        if (first) mask |= 1u << uint(bit);
    }
    fragFirsts = uvec4(mask);
}
