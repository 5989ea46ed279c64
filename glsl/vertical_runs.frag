// Vertical runs by log-step pointer jumping (O'Connell §4, Fig. 4.3), over
// the columns of the node grid. Pass 0 encodes IDs: every foreground node
// points at the highest node it reaches by walking up to `hops` connected
// nodes north. Each later pass follows the pointers of the previous pass
// `hops` times, so the distance covered grows hops-fold per pass (the
// paper's single hop doubles it): after ceil(log_hops(h)) passes every node
// holds the ID of the top of its run, the run's root (the largest ID in the
// run). Extra fetches are cheap next to a pass (Tuning::rasterRunHops).
uniform int hops;
uniform sampler2D ids;
uniform int passIndex;
layout(location = 0) out vec4 fragColor;
#ifdef TWO_TARGETS
// The same runs into column processing's second texture.
layout(location = 1) out vec4 fragCopy;
#endif

float runTop() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    if (passIndex == 0) {
        uint bits = nodeBits(n);
        if (!nodeIsForeground(bits)) return 0.0;
        ivec2 top = n;
        for (int hop = 0; hop < hops && linksTo(bits, kUp); ++hop) {
            top.y -= 1;
            bits = nodeBits(top);
        }
        return nodeId(top, bits);
    }
    float id = texelFetch(ids, n, 0).r;
    for (int hop = 0; hop < hops && id != 0.0; ++hop) {
        float next = texelFetch(ids, nodeOfId(id), 0).r;
        if (next == id) break;
        id = next;
    }
    return id;
}

void main() {
    fragColor = vec4(runTop());
#ifdef TWO_TARGETS
    fragCopy = fragColor;
#endif
}
