// Area and coordinate sums by scattering with additive blending: every pixel
// sends (1, x - left, y - top) to its component's table entry. R32F adds
// integers exactly while every partial sum stays below 2^24; measuring from
// the box corner keeps the sums small: a component is exact here when
// area, area * (width - 1) and area * (height - 1) are all below 2^24.
// The host finds the others in the table and sends them through
// component_bits, which is exact at any size.
uniform usampler2D labels;
uniform sampler2D boxes;
uniform ivec2 tableSize;
flat out vec4 scatterVector;

void main() {
    ivec2 p = pixelOfVertex(0);
    uint label = texelFetch(labels, p, 0).r;
    gl_Position = kClipped;
    scatterVector = vec4(0.0);
    if (label == 0u) return;
    ivec2 entry = tableEntry(label, tableSize.x);
    vec4 box = texelFetch(boxes, entry, 0);
    ivec2 corner = imageSize - 1 - ivec2(box.xy);
    scatterVector = vec4(1.0, vec2(p - corner), 0.0);
    gl_Position = pixelPosition(entry, tableSize, 0.0);
}
