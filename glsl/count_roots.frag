// Counting roots with an occlusion query (O'Connell §8, Fig. 8.1): only the
// pixels whose label is their own ID survive.
uniform sampler2D ids;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (!isRootAt(p, texelFetch(ids, p, 0).r)) discard;
}
