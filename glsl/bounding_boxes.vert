// Bounding boxes by scattering (O'Connell §7, Figs. 7.1-7.3): each label's
// pixels within a row segment send (w-1-first x, h-1-y, last x, y) to the
// component's table entry, and GL_MAX blending keeps, per channel, the
// largest: 2 maxima and, inverted, the minima. The paper scattered every
// pixel; one point per label and segment gives the same box. Coordinates
// below 2^15 are exact in R32F (the paper's RGBA16F stopped at 2048).
uniform usampler2D labels;
uniform ivec2 tableSize;
flat out vec4 scatterVector;

void main() {
    ivec2 p = pixelOfVertex(0);
    uint label = texelFetch(labels, p, 0).r;
    gl_Position = kClipped;
    scatterVector = vec4(0.0);
    if (!firstOfLabelInSegment(labels, p, label)) return;
    int last = p.x;
    for (int x = p.x + 1; x < segmentEnd(p); ++x)
        if (texelFetch(labels, ivec2(x, p.y), 0).r == label) last = x;
    scatterVector = vec4(float(imageSize.x - 1 - p.x), float(imageSize.y - 1 - p.y), float(last), float(p.y));
    gl_Position = pixelPosition(tableEntry(label, tableSize.x), tableSize, 0.0);
}
