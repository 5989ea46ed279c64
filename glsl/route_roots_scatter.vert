// route_roots, last: sends each routed root's label back to the root's place in the scan grid.
uniform sampler2D routed;
uniform usampler2D routedLabels;
uniform int side;
uniform ivec2 scanSize;
flat out uint scatterLabel;

void main() {
    ivec2 entry = ivec2(gl_VertexID % side, gl_VertexID / side);
    scatterLabel = texelFetch(routedLabels, entry, 0).r;
    gl_Position = pixelPosition(scanTexelOfId(texelFetch(routed, entry, 0).r), scanSize, 0.0);
}
