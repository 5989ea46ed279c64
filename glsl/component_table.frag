// The component's pixels in the row segment from scatterNode on, into its
// table entry (component_table.vert); with TABLE_SLOTS
// (component_table_slots.vert) those of its segment's block from
// scatterNode on, in the block's order; with TABLE_RUNS
// (component_table_runs.vert) those of its run from scatterNode on:
//   box:   (w-1-min x, h-1-min y, max x, max y), kept by GL_MAX blending per
//          channel: 2 maxima and, inverted, the minima (the paper scattered
//          every pixel into RGBA16F and stopped at 2048; R32F holds 2^15);
//   sums:  (count, sum of x - root x, sum of y - root y), added by additive
//          blending. R32F adds integers exactly while every partial sum
//          stays below 2^24: measured from the root (the component's first
//          pixel, on its top row) a component is exact when area,
//          area * (width - 1) and area * (height - 1) are below 2^24; the
//          host sends the others through component_bits, exact at any size;
//   root:  the root's ID (GL_MAX of equal values), so the host can add the
//          root's coordinates back.
// With TABLE_DIGITS (Tuning::rasterTableSums digits) the sums are absolute
// and split into digits (SumDigits, download_table.hpp): the area's, then
// x's, then y's, over the channels of sums and of the digit targets, each
// channel exact at any component size; no root is written.
// With TABLE_LOCAL (component_table_local, after fullscreen.vert) a
// fragment per entry of the table's first rows, not a point: the entry's
// root found from its label (rootNumbered), and its component summed over
// the root's segment where it stays inside it, discarded where it leaves
// it (component_table_firsts.frag marked it: the points sum it).
uniform sampler2D ids;
#ifdef TABLE_LOCAL
uniform usampler2D firsts;  // per segment, the first nodes of the roots that leave it
uniform ivec2 tableSize;
ivec2 scatterNode;
float scatterRoot;
#else
flat in ivec2 scatterNode;
flat in float scatterRoot;
#endif
layout(location = 0) out vec4 box;
layout(location = 1) out vec4 sums;
#ifdef TABLE_DIGITS
layout(location = 2) out vec4 digits;
layout(location = 3) out vec4 moreDigits;
#if MAX_DIGIT_TARGETS != 2
#error "main() writes two digit targets"
#endif

// Channel k of the point's area `count` and sums `sum`: the area's digits
// first, then x's, then y's (0 past them); digit d of a quantity its bits
// from digitBits * d on, the last digit all of them. Called with constant
// k and common.glsl's constant layout, it folds to a shift and a mask.
float channel(int k, uint count, uvec2 sum) {
    int q = k < sumDigits.x ? 0 : k < sumDigits.x + sumDigits.y ? 1 : 2;
    int first = q == 0 ? 0 : q == 1 ? sumDigits.x : sumDigits.x + sumDigits.y;
    int n = q == 0 ? sumDigits.x : q == 1 ? sumDigits.y : sumDigits.z;
    int d = k - first;
    if (d >= n) return 0.0;
    uint v = (q == 0 ? count : q == 1 ? sum.x : sum.y) >> uint(digitBits * d);
    return float(d + 1 < n ? v & ((1u << uint(digitBits)) - 1u) : v);
}
#else
layout(location = 2) out vec4 root;
#endif

void main() {
#ifdef TABLE_LOCAL
    ivec2 entry = ivec2(gl_FragCoord.xy), rootNode;
    if (!rootNumbered(uint(entry.y * tableSize.x + entry.x) + 1u, rootNode)) discard;
    scatterRoot = texelFetch(ids, rootNode, 0).r;
    ivec2 segment = rootNode / kSlotSegment;
    for (uint m = texelFetch(firsts, segment, 0).r; m != 0u; m &= m - 1u)
        if (texelFetch(ids, slotSegmentNode(segment, lowestBit(m)), 0).r == scatterRoot) discard;
    // No node before the root's in raster order holds its component's
    // pixels (the root's pixel is the first), but with nodes two pixel rows
    // tall one left of it may (in its lower row).
#if NODE_H == 1
    scatterNode = rootNode;
#else
    scatterNode = ivec2(segment.x * kSlotSegment.x, rootNode.y);
#endif
#endif
    ivec2 low = imageSize, high = ivec2(-1);
#ifdef TABLE_DIGITS
    uint count = 0u;
    uvec2 sum = uvec2(0u);
#else
    ivec2 rootPixel = decodeId(scatterRoot);
    int count = 0;
    ivec2 sum = ivec2(0);
#endif
    // The segment's nodes inside the grid, from scatterNode on: a row
    // segment's, or with TABLE_SLOTS its block's, row after row.
#ifdef TABLE_SLOTS
    ivec2 origin = scatterNode / kSlotSegment * kSlotSegment;
    ivec2 inside = min(kSlotSegment, gridSize - origin);
#else
    ivec2 origin = ivec2(scatterNode.x / kSegment * kSegment, scatterNode.y);
    ivec2 inside = ivec2(min(kSegment, gridSize.x - origin.x), 1);
#endif
    ivec2 start = scatterNode - origin;
    for (int r = start.y; r < inside.y; ++r)
        for (int c = r == start.y ? start.x : 0; c < inside.x; ++c) {
            ivec2 m = origin + ivec2(c, r);
            if (texelFetch(ids, m, 0).r != scatterRoot) {
#ifdef TABLE_RUNS
                break;  // the run ends (its row is the only one); a later run sends its own point
#else
                continue;
#endif
            }
            uint bits = nodeBits(m);
            for (int j = 0; j < NODE_H; ++j)
                for (int i = 0; i < NODE_W; ++i) {
                    if (!pixelIsSet(bits, ivec2(i, j))) continue;
                    ivec2 p = m * kNode + ivec2(i, j);
                    low = min(low, p);
                    high = max(high, p);
#ifdef TABLE_DIGITS
                    ++count;
                    sum += uvec2(p);
#else
                    ++count;
                    sum += p - rootPixel;
#endif
                }
        }
    box = vec4(vec2(imageSize - 1 - low), vec2(high));
#ifdef TABLE_DIGITS
    sums = vec4(channel(0, count, sum), channel(1, count, sum), channel(2, count, sum), channel(3, count, sum));
    digits = vec4(channel(4, count, sum), channel(5, count, sum), channel(6, count, sum), channel(7, count, sum));
    moreDigits = vec4(channel(8, count, sum), channel(9, count, sum), channel(10, count, sum), channel(11, count, sum));
#else
    sums = vec4(float(count), vec2(sum), 0.0);
    root = vec4(scatterRoot);
#endif
}
