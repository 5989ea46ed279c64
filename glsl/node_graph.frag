// The node graph: the only stage that reads the input. Each node reads its
// pixels and the ring of pixels around them, applies the criterion once, and
// stores which neighbour nodes it connects to and which of its pixels are
// foreground (common.glsl, "Nodes"). Every later stage tests connections
// with one fetch of these bits.
out uvec4 fragBits;

#if NODE_W == 1 && NODE_H == 1
// Single pixels (any criterion): the criterion between the pixel and each
// neighbour.
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 value = pixelValue(p);
    if (!isForegroundValue(value)) { fragBits = uvec4(0u); return; }
    uint bits = 1u << uint(kFirstPixelBit);
    for (int k = 0; k < kNeighbourCount; ++k) {
        ivec2 q = p + kNeighbours[k];
        if (!insideImage(q)) continue;
        vec4 other = pixelValue(q);
        if (isForegroundValue(other) && valuesConnect(value, other)) bits |= 1u << uint(k);
    }
    fragBits = uvec4(bits);
}
#else
// Blocks (binary only: every two adjacent foreground pixels connect). The
// block and its ring form a (NODE_W + 2) x (NODE_H + 2) window; each
// foreground pixel of the block links its node to the nodes of its
// foreground neighbours outside the block.
const int kWindowW = NODE_W + 2, kWindowH = NODE_H + 2;
// kNeighbours' index of the node offset (dx, dy), at (dy + 1) * 3 + dx + 1.
const int kNeighbourIndex[9] = int[9](4, 2, 5, 0, -1, 1, 6, 3, 7);

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    ivec2 origin = n * kNode - 1;  // the pixel at window texel (0, 0)
    bool present[kWindowW * kWindowH];
#if defined(GATHER_INPUT) && !defined(INPUT_UINT64)
    // The window's 2x2 quads, a textureGather each (a window 3 rows high
    // leaves its last quad's lower row unread): a quarter of the fetches.
    for (int y = 0; y < kWindowH; y += 2)
        for (int x = 0; x < kWindowW; x += 2) {
            bvec4 quad = gatherForeground(vec2(origin + ivec2(x + 1, y + 1)) / vec2(imageSize));
            present[y * kWindowW + x] = quad.w;
            present[y * kWindowW + x + 1] = quad.z;
            if (y + 1 < kWindowH) {
                present[(y + 1) * kWindowW + x] = quad.x;
                present[(y + 1) * kWindowW + x + 1] = quad.y;
            }
        }
    // Past the image the sampler's wrap gives texels of the image: dropped.
    if (any(lessThan(origin, ivec2(0))) || any(greaterThan(origin + ivec2(kWindowW, kWindowH), imageSize)))
        for (int y = 0; y < kWindowH; ++y)
            for (int x = 0; x < kWindowW; ++x)
                present[y * kWindowW + x] = present[y * kWindowW + x] && insideImage(origin + ivec2(x, y));
#else
    for (int y = 0; y < kWindowH; ++y)
        for (int x = 0; x < kWindowW; ++x) {
            ivec2 p = origin + ivec2(x, y);
            present[y * kWindowW + x] = insideImage(p) && isForegroundValue(pixelValue(p));
        }
#endif
    uint bits = 0u;
#if NODE_W == 2 && NODE_H == 2 && CONNECTIVITY == 8
    // The links of a 2x2 block written out: a side's link is any of the
    // block's pixels on that side beside one of the ring's two pixels of
    // that neighbour node, a corner's its corner pixel and the ring's.
#define P(x, y) present[(y) * kWindowW + (x)]
    bool b11 = P(1, 1), b21 = P(2, 1), b12 = P(1, 2), b22 = P(2, 2);
    bits = (b11 ? 1u << uint(kFirstPixelBit) : 0u) | (b21 ? 2u << uint(kFirstPixelBit) : 0u) |
           (b12 ? 4u << uint(kFirstPixelBit) : 0u) | (b22 ? 8u << uint(kFirstPixelBit) : 0u);
    if ((b11 || b12) && (P(0, 1) || P(0, 2))) bits |= 1u << 0;  // (-1, 0)
    if ((b21 || b22) && (P(3, 1) || P(3, 2))) bits |= 1u << 1;  // (1, 0)
    if ((b11 || b21) && (P(1, 0) || P(2, 0))) bits |= 1u << 2;  // (0, -1)
    if ((b12 || b22) && (P(1, 3) || P(2, 3))) bits |= 1u << 3;  // (0, 1)
    if (b11 && P(0, 0)) bits |= 1u << 4;                         // (-1, -1)
    if (b21 && P(3, 0)) bits |= 1u << 5;                         // (1, -1)
    if (b12 && P(0, 3)) bits |= 1u << 6;                         // (-1, 1)
    if (b22 && P(3, 3)) bits |= 1u << 7;                         // (1, 1)
#undef P
#elif NODE_W == 2 && NODE_H == 1 && CONNECTIVITY == 4
#define P(x, y) present[(y) * kWindowW + (x)]
    bool b11 = P(1, 1), b21 = P(2, 1);
    bits = (b11 ? 1u << uint(kFirstPixelBit) : 0u) | (b21 ? 2u << uint(kFirstPixelBit) : 0u);
    if (b11 && P(0, 1)) bits |= 1u << 0;                                  // (-1, 0)
    if (b21 && P(3, 1)) bits |= 1u << 1;                                  // (1, 0)
    if ((b11 && P(1, 0)) || (b21 && P(2, 0))) bits |= 1u << 2;            // (0, -1)
    if ((b11 && P(1, 2)) || (b21 && P(2, 2))) bits |= 1u << 3;            // (0, 1)
#undef P
#else
    for (int j = 0; j < NODE_H; ++j)
        for (int i = 0; i < NODE_W; ++i) {
            ivec2 a = ivec2(i + 1, j + 1);
            if (!present[a.y * kWindowW + a.x]) continue;
            bits |= 1u << uint(kFirstPixelBit + j * NODE_W + i);
            for (int k = 0; k < kNeighbourCount; ++k) {
                ivec2 b = a + kNeighbours[k];
                ivec2 node = ivec2(b.x < 1 ? -1 : (b.x > NODE_W ? 1 : 0), b.y < 1 ? -1 : (b.y > NODE_H ? 1 : 0));
                if (node != ivec2(0) && present[b.y * kWindowW + b.x])
                    bits |= 1u << uint(kNeighbourIndex[(node.y + 1) * 3 + node.x + 1]);
            }
        }
#endif
    fragBits = uvec4(bits);
}
#endif
