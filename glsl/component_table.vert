// The component table by scattering into it (O'Connell §7, Figs. 7.1-7.3,
// with area and centroid sums beside the boxes). The first node of each
// component in a row segment of kSegment nodes walks the segment and sends,
// for the component's pixels there, to its table entry (label - 1):
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
uniform sampler2D ids;          // every node's root ID
uniform usampler2D rootLabels;  // each root's label, over the scan grid
uniform ivec2 tableSize;
flat out vec4 scatterBox;
flat out vec4 scatterSums;
flat out float scatterRoot;

void main() {
    ivec2 n = nodeOfVertex(0);
    float root = texelFetch(ids, n, 0).r;
    gl_Position = kClipped;
    if (!firstOfRootInSegment(ids, n, root)) return;
    ivec2 rootPixel = decodeId(root);
    ivec2 low = imageSize, high = ivec2(-1);
    int count = 0;
    ivec2 sum = ivec2(0);
    for (int x = n.x; x < segmentEnd(n); ++x) {
        ivec2 m = ivec2(x, n.y);
        if (texelFetch(ids, m, 0).r != root) continue;
        uint bits = nodeBits(m);
        for (int j = 0; j < BLOCK_H; ++j)
            for (int i = 0; i < BLOCK_W; ++i) {
                if (!pixelIsSet(bits, ivec2(i, j))) continue;
                ivec2 p = m * kBlock + ivec2(i, j);
                low = min(low, p);
                high = max(high, p);
                ++count;
                sum += p - rootPixel;
            }
    }
    uint label = texelFetch(rootLabels, scanTexelOfId(root), 0).r;
    scatterBox = vec4(vec2(imageSize - 1 - low), vec2(high));
    scatterSums = vec4(float(count), vec2(sum), 0.0);
    scatterRoot = root;
    gl_Position = pixelPosition(tableEntry(label, tableSize.x), tableSize, 0.0);
}
