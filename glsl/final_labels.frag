// Final labels in the output contract, per pixel: every foreground pixel
// takes the label of its node's root (0 for background). The node's ID is
// read beside its bits, not after them, so the two fetches go together.
uniform sampler2D ids;
out uvec4 fragLabel;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 n = p / kNode;
    uint bits = nodeBits(n);
    float id = texelFetch(ids, n, 0).r;
    fragLabel = uvec4(pixelIsSet(bits, p - n * kNode) ? rootLabelOf(id) : 0u);
}
