// component_table by slots (Tuning::rasterTable slots), step 1: for each row
// segment of kSegment nodes, a mask of its nodes that are the first of their
// root in it: bit i for the segment's node i. These are the nodes
// component_table.vert sends points from; the slot draw
// (component_table_slots.vert) finds them with one fetch. The segment is
// read once: its runs' first nodes, then each run's root against the roots
// of the first nodes found before it (a root seen before was first at one
// of them), so a fragment fetches each node once and each run start again.
uniform sampler2D ids;
out uvec4 fragFirsts;

void main() {
    ivec2 segment = ivec2(gl_FragCoord.xy);
    ivec2 start = ivec2(segment.x * kSegment, segment.y);
    int end = segmentEnd(start);
    uint starts = 0u;
    float before = 0.0;
    for (int x = start.x; x < end; ++x) {
        float root = texelFetch(ids, ivec2(x, start.y), 0).r;
        if (root != 0.0 && root != before) starts |= 1u << uint(x - start.x);
        before = root;
    }
    uint mask = 0u;
    for (uint s = starts; s != 0u; s &= s - 1u) {
        int bit = lowestBit(s);
        float root = texelFetch(ids, ivec2(start.x + bit, start.y), 0).r;
        bool first = true;
        for (uint m = mask; m != 0u && first; m &= m - 1u) {
            int earlier = lowestBit(m);
            first = texelFetch(ids, ivec2(start.x + earlier, start.y), 0).r != root;
        }
        if (first) mask |= 1u << uint(bit);
    }
    fragFirsts = uvec4(mask);
}
