// Final labels in the output contract: every pixel takes the label of its
// root (0 for background).
uniform sampler2D ids;
uniform usampler2D rootLabels;
out uvec4 fragLabel;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    float id = texelFetch(ids, p, 0).r;
    fragLabel = uvec4(id == 0.0 ? 0u : texelFetch(rootLabels, decodeId(id), 0).r);
}
