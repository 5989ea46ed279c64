// resolve_links' links found by a fragment pass (Tuning::rasterResolve
// fragment). Each connected pair of nodes is looked at once, from the node
// whose neighbour lies forward (right, or below; the other half of the
// neighbourhood is the forward half of the nodes around): a node with a
// larger forward label links its own root to the largest; else a node with
// a smaller forward label links that label's root to its own label. It
// writes (value, the root's ID) for resolve_links_scatter.vert; nodes whose
// forward neighbours all share their label write nothing and keep the
// cleared 0. Every point drawn raises a root to a larger label of its
// component, so a round with any fragment removes a root; and an occlusion
// query over this pass is the exactness check: connected neighbours with
// different labels exist exactly when a fragment is written.
uniform sampler2D ids;
out vec4 fragLink;

#if CONNECTIVITY == 8
const int kForwardCount = 4;
const int kForward[4] = int[4](1, 3, 6, 7);  // kNeighbours: (1, 0), (0, 1), (-1, 1), (1, 1)
#else
const int kForwardCount = 2;
const int kForward[2] = int[2](1, 3);        // kNeighbours: (1, 0), (0, 1)
#endif

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    uint bits = nodeBits(n);
    if ((bits & kLinkBits) == 0u) discard;
    float label = texelFetch(ids, n, 0).r;
    float largest = label, smallest = label;
    for (int i = 0; i < kForwardCount; ++i)
        if (linksTo(bits, kForward[i])) {
            float other = texelFetch(ids, n + kNeighbours[kForward[i]], 0).r;
            largest = max(largest, other);
            smallest = min(smallest, other);
        }
    if (largest > label) fragLink = vec4(largest, label, 0.0, 0.0);
    else if (smallest < label) fragLink = vec4(label, smallest, 0.0, 0.0);
    else discard;
}
