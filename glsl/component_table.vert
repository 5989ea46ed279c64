// The component table by scattering into it (O'Connell §7, Figs. 7.1-7.3,
// with area and centroid sums beside the boxes). The first pixel of each
// label in a row segment of kSegment pixels walks the segment and sends, to
// the component's table entry (label - 1):
//   box:   (w-1-first x, h-1-y, last x, y), kept by GL_MAX blending per
//          channel: 2 maxima and, inverted, the minima (the paper scattered
//          every pixel into RGBA16F and stopped at 2048; R32F holds 2^15);
//   sums:  (count, sum of x - root x, count * (y - root y)), added by
//          additive blending. R32F adds integers exactly while every partial
//          sum stays below 2^24: measured from the root (the component's
//          first pixel, on its top row) a component is exact when area,
//          area * (width - 1) and area * (height - 1) are below 2^24; the host
//          sends the others through component_bits, exact at any size;
//   root:  the root's ID (GL_MAX of equal values), so the host can add the
//          root's coordinates back.
uniform usampler2D labels;
uniform sampler2D ids;  // every pixel's root ID
uniform ivec2 tableSize;
flat out vec4 scatterBox;
flat out vec4 scatterSums;
flat out float scatterRoot;

void main() {
    ivec2 p = pixelOfVertex(0);
    uint label = texelFetch(labels, p, 0).r;
    gl_Position = kClipped;
    if (!firstOfLabelInSegment(labels, p, label)) return;
    float root = texelFetch(ids, p, 0).r;
    ivec2 rootPixel = decodeId(root);
    int last = p.x, count = 0, sumX = 0;
    for (int x = p.x; x < segmentEnd(p); ++x) {
        if (texelFetch(labels, ivec2(x, p.y), 0).r != label) continue;
        last = x;
        ++count;
        sumX += x - rootPixel.x;
    }
    scatterBox = vec4(float(imageSize.x - 1 - p.x), float(imageSize.y - 1 - p.y), float(last), float(p.y));
    scatterSums = vec4(float(count), float(sumX), float(count * (p.y - rootPixel.y)), 0.0);
    scatterRoot = root;
    gl_Position = pixelPosition(tableEntry(label, tableSize.x), tableSize, 0.0);
}
