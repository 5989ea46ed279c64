// Final labels in the output contract, per pixel: every foreground pixel
// takes the label of its node's root (0 for background).
uniform sampler2D ids;
out uvec4 fragLabel;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 n = p / kNode;
    if (!pixelIsSet(nodeBits(n), p - n * kNode)) { fragLabel = uvec4(0u); return; }
    fragLabel = uvec4(rootLabelOf(texelFetch(ids, n, 0).r));
}
