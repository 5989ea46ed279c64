// Bounding boxes by scattering (O'Connell §7, Figs. 7.1-7.3): each run of a
// label within a row segment sends (w-1-first x, h-1-y, last x, y) to its
// component's table entry, and GL_MAX blending keeps, per channel, the
// largest: 2 maxima and, inverted, the minima. The paper scattered every
// pixel; one point per run gives the same box. Coordinates below 2^15 are
// exact in R32F (the paper's RGBA16F stopped at 2048).
uniform usampler2D labels;
uniform ivec2 tableSize;
flat out vec4 scatterVector;

void main() {
    ivec2 p = pixelOfVertex(0);
    uint label = texelFetch(labels, p, 0).r;
    int length = runStartingAt(labels, p, label);
    scatterVector = vec4(float(imageSize.x - 1 - p.x), float(imageSize.y - 1 - p.y), float(p.x + length - 1), float(p.y));
    gl_Position = length == 0 ? kClipped : pixelPosition(tableEntry(label, tableSize.x), tableSize, 0.0);
}
