// Area and coordinate sums by scattering with additive blending: each
// label's pixels within a row segment send (count, sum of x - left, sum of
// y - top) to the component's table entry. R32F adds integers exactly while
// every partial sum stays below 2^24; measuring from the box corner keeps
// the sums small: a component is exact here when area, area * (width - 1)
// and area * (height - 1) are all below 2^24. The host finds the others in
// the table and sends them through component_bits, exact at any size.
uniform usampler2D labels;
uniform sampler2D boxes;
uniform ivec2 tableSize;
flat out vec4 scatterVector;

void main() {
    ivec2 p = pixelOfVertex(0);
    uint label = texelFetch(labels, p, 0).r;
    gl_Position = kClipped;
    scatterVector = vec4(0.0);
    if (!firstOfLabelInSegment(labels, p, label)) return;
    ivec2 entry = tableEntry(label, tableSize.x);
    ivec2 corner = imageSize - 1 - ivec2(texelFetch(boxes, entry, 0).xy);
    int count = 0, sumX = 0;
    for (int x = p.x; x < segmentEnd(p); ++x) {
        if (texelFetch(labels, ivec2(x, p.y), 0).r != label) continue;
        ++count;
        sumX += x - corner.x;
    }
    scatterVector = vec4(float(count), float(sumX), float(count * (p.y - corner.y)), 0.0);
    gl_Position = pixelPosition(entry, tableSize, 0.0);
}
