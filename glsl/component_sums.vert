// Area and coordinate sums by scattering with additive blending: each run
// of a label within a row segment sends (length, sum of x - left, sum of
// y - top) to its component's table entry. R32F adds integers exactly while
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
    int length = runStartingAt(labels, p, label);
    gl_Position = kClipped;
    scatterVector = vec4(0.0);
    if (length == 0) return;
    ivec2 entry = tableEntry(label, tableSize.x);
    ivec2 corner = imageSize - 1 - ivec2(texelFetch(boxes, entry, 0).xy);
    int dx = p.x - corner.x, dy = p.y - corner.y;
    scatterVector = vec4(float(length), float(length * dx + length * (length - 1) / 2), float(length * dy), 0.0);
    gl_Position = pixelPosition(entry, tableSize, 0.0);
}
