// Bounding boxes by scattering (O'Connell §7, Figs. 7.1-7.3): every pixel
// sends (w-1-x, h-1-y, x, y) to its component's table entry and GL_MAX
// blending keeps, per channel, the largest: 3 maxima and, inverted, the
// minima. Coordinates below 2^15 are exact in R32F (the paper's RGBA16F
// stopped at 2048).
uniform usampler2D labels;
uniform ivec2 tableSize;
flat out vec4 scatterVector;

void main() {
    ivec2 p = pixelOfVertex(0);
    uint label = texelFetch(labels, p, 0).r;
    scatterVector = vec4(vec2(imageSize - 1 - p), vec2(p));
    gl_Position = label == 0u ? kClipped : pixelPosition(tableEntry(label, tableSize.x), tableSize, 0.0);
}
