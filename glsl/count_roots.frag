// Counting roots with an occlusion query (O'Connell §8, Fig. 8.1): only the
// nodes whose label is their own ID survive.
uniform sampler2D ids;

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    if (!isRootNode(n, texelFetch(ids, n, 0).r)) discard;
}
