// Sends each routed root's label back to the root's own pixel.
uniform sampler2D routed;
uniform usampler2D routedLabels;
uniform int side;
flat out uint scatterLabel;

void main() {
    ivec2 entry = ivec2(gl_VertexID % side, gl_VertexID / side);
    scatterLabel = texelFetch(routedLabels, entry, 0).r;
    gl_Position = pixelPosition(decodeId(texelFetch(routed, entry, 0).r), imageSize, 0.0);
}
