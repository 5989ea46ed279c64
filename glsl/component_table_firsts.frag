// component_table by slots (Tuning::rasterTable slots), step 1: for each row
// segment of kSegment nodes, a mask of its nodes that are the first of their
// root in it (common.glsl, firstOfRootInSegment): bit i for the segment's
// node i. These are the nodes component_table.vert sends points from; the
// slot draw (component_table_slots.vert) finds them with one fetch.
uniform sampler2D ids;
out uvec4 fragFirsts;

void main() {
    ivec2 segment = ivec2(gl_FragCoord.xy);
    ivec2 start = ivec2(segment.x * kSegment, segment.y);
    uint mask = 0u;
    for (int x = start.x; x < segmentEnd(start); ++x) {
        ivec2 n = ivec2(x, start.y);
        if (firstOfRootInSegment(ids, n, texelFetch(ids, n, 0).r)) mask |= 1u << uint(x - start.x);
    }
    fragFirsts = uvec4(mask);
}
