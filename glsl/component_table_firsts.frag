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
// With CROSSING_ONLY 1 the mask keeps only the roots whose component
// leaves the segment: one of its nodes here links to a node of another
// segment. A component inside one segment is then summed by a fragment of
// its table entry (component_table.frag, TABLE_LOCAL), not by a point.
uniform sampler2D ids;
out uvec4 fragFirsts;

// Whether node `inBlock` of a segment links to a node outside it: the
// links toward the sides it lies on.
bool linksOut(ivec2 origin, ivec2 inBlock) {
    uint outward = 0u;
    if (inBlock.x == 0) outward |= (1u << uint(kLeft)) | (1u << uint(kUpLeft)) | (1u << uint(kDownLeft));
    if (inBlock.x == kSlotSegment.x - 1) outward |= (1u << uint(kRight)) | (1u << uint(kUpRight)) | (1u << uint(kDownRight));
    if (inBlock.y == 0) outward |= (1u << uint(kUp)) | (1u << uint(kUpLeft)) | (1u << uint(kUpRight));
    if (inBlock.y == kSlotSegment.y - 1) outward |= (1u << uint(kDown)) | (1u << uint(kDownLeft)) | (1u << uint(kDownRight));
    return outward != 0u && (nodeBits(origin + inBlock) & outward) != 0u;
}

void main() {
    ivec2 segment = ivec2(gl_FragCoord.xy);
    ivec2 origin = segment * kSlotSegment, inside = min(kSlotSegment, gridSize - origin);
    uint starts = 0u, crossingRuns = 0u;
    float before = 0.0;
    int run = 0;
    for (int r = 0; r < inside.y; ++r)
        for (int c = 0; c < inside.x; ++c) {
            float root = texelFetch(ids, origin + ivec2(c, r), 0).r;
            if (root != 0.0 && root != before) {
                run = r * kSlotSegment.x + c;
                starts |= 1u << uint(run);
            }
            before = root;
#if CROSSING_ONLY
            if (root != 0.0 && linksOut(origin, ivec2(c, r))) crossingRuns |= 1u << uint(run);
#endif
        }
    // A run that leaves the segment marks its root's first node.
    uint mask = 0u, crossing = 0u;
    for (uint s = starts; s != 0u; s &= s - 1u) {
        int bit = lowestBit(s);
        float root = texelFetch(ids, slotSegmentNode(segment, bit), 0).r;
        bool first = true;
        int earlier = bit;
        for (uint m = mask; m != 0u && first; m &= m - 1u) {
            earlier = lowestBit(m);
            first = texelFetch(ids, slotSegmentNode(segment, earlier), 0).r != root;
        }
        if (first) {
            mask |= 1u << uint(bit);
            earlier = bit;
        }
        if ((crossingRuns & (1u << uint(bit))) != 0u) crossing |= 1u << uint(earlier);
    }
#if CROSSING_ONLY
    fragFirsts = uvec4(mask & crossing);
#else
    fragFirsts = uvec4(mask);
#endif
}
