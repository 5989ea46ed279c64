// The component's pixels in the row segment from scatterNode on, into its
// table entry (component_table.vert); with TABLE_RUNS (component_table_runs.vert)
// those of its run from scatterNode on:
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
uniform sampler2D ids;
flat in ivec2 scatterNode;
flat in float scatterRoot;
layout(location = 0) out vec4 box;
layout(location = 1) out vec4 sums;
layout(location = 2) out vec4 root;

void main() {
    ivec2 rootPixel = decodeId(scatterRoot);
    ivec2 low = imageSize, high = ivec2(-1);
    int count = 0;
    ivec2 sum = ivec2(0);
    for (int x = scatterNode.x; x < segmentEnd(scatterNode); ++x) {
        ivec2 m = ivec2(x, scatterNode.y);
        if (texelFetch(ids, m, 0).r != scatterRoot) {
#ifdef TABLE_RUNS
            break;  // the run ends; a later run of the root sends its own point
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
                ++count;
                sum += p - rootPixel;
            }
    }
    box = vec4(vec2(imageSize - 1 - low), vec2(high));
    sums = vec4(float(count), vec2(sum), 0.0);
    root = vec4(scatterRoot);
}
