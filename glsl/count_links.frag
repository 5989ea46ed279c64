// The exactness check: a fragment survives for every pixel that has a
// connected neighbour with another label. Counted by an occlusion query;
// zero means the labeling is final.
uniform sampler2D ids;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (!isForeground(p)) discard;
    float label = texelFetch(ids, p, 0).r;
    vec4 value = pixelValue(p);
    for (int i = 0; i < kNeighbourCount; ++i) {
        ivec2 q = p + kNeighbours[i];
        if (connectsTo(value, q) && texelFetch(ids, q, 0).r != label) return;
    }
    discard;
}
