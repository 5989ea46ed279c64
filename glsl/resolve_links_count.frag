// The exactness check of resolve_links: a fragment survives for every node that has a
// connected neighbour with another label. Counted by an occlusion query;
// zero means the labeling is final.
uniform sampler2D ids;

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    uint bits = nodeBits(n);
    if ((bits & kLinkBits) == 0u) discard;
    float label = texelFetch(ids, n, 0).r;
    for (int i = 0; i < kNeighbourCount; ++i)
        if (linksTo(bits, i) && texelFetch(ids, n + kNeighbours[i], 0).r != label) return;
    discard;
}
