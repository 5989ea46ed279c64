// The 31 counts of one component's pixels in one row segment: the area, and
// per bit of x and of y, how many of the pixels have it set. Additive
// blending sums them per large component; a band holds at most 2^24
// pixels, so every count is exact in R32F; component_bits_fold.frag then
// adds the band's counts into 32-bit integer totals, and the host takes
// sum(x) = sum over bits b of 2^b * count_b. Counter 4t + c goes to channel
// c of target t (GLSL 3.30 allows only constant indices into output arrays:
// unrolled writes).
uniform sampler2D ids;
flat in ivec2 scatterSegment;
flat in float scatterRoot;
layout(location = 0) out vec4 counters[BIT_COUNTER_TARGETS];
#if BIT_COUNTER_TARGETS != 8
#error "main() writes counters[0..7] one by one"
#endif

// A segment is at most 64 pixels wide: two words of a pixel-row mask.
const int kSegmentPixels = kSegment * NODE_W;
const int kWords = (kSegmentPixels + 31) / 32;
// Bits b < kLowBits of x are the bits of its offset in the segment (the
// segment starts at a multiple of 2^kLowBits); bit 5 of a 64-pixel offset
// is the word.
const int kLowBits = NODE_W == 2 ? 6 : 5;
const uint kOffsetBitPatterns[5] = uint[5](0xAAAAAAAAu, 0xCCCCCCCCu, 0xF0F0F0F0u, 0xFF00FF00u, 0xFFFF0000u);

void main() {
    ivec2 first = scatterSegment;
    int firstX = first.x * NODE_W;
    // The component's pixels in each pixel row of the segment, as masks.
    uint mask[NODE_H * kWords];
    for (int k = 0; k < NODE_H * kWords; ++k) mask[k] = 0u;
    for (int x = first.x; x < segmentEnd(first); ++x) {
        ivec2 m = ivec2(x, first.y);
        if (texelFetch(ids, m, 0).r != scatterRoot) continue;
        uint bits = nodeBits(m);
        for (int j = 0; j < NODE_H; ++j)
            for (int i = 0; i < NODE_W; ++i)
                if (pixelIsSet(bits, ivec2(i, j))) {
                    int offset = (x - first.x) * NODE_W + i;
                    mask[j * kWords + offset / 32] |= 1u << uint(offset % 32);
                }
    }
    float count[32];
    for (int i = 0; i < 32; ++i) count[i] = 0.0;
    for (int j = 0; j < NODE_H; ++j) {
        uint rowCount = 0u;
        for (int w = 0; w < kWords; ++w) {
            uint word = mask[j * kWords + w];
            rowCount += onesIn(word);
            for (int b = 0; b < 5; ++b) count[1 + b] += float(onesIn(word & kOffsetBitPatterns[b]));
            if (w == 1) count[1 + 5] += float(onesIn(word));
        }
        count[0] += float(rowCount);
        for (int b = kLowBits; b < kIdCoordinateBits; ++b)
            if (((firstX >> b) & 1) != 0) count[1 + b] += float(rowCount);
        int y = first.y * NODE_H + j;
        for (int b = 0; b < kIdCoordinateBits; ++b)
            if (((y >> b) & 1) != 0) count[1 + kIdCoordinateBits + b] += float(rowCount);
    }
    counters[0] = vec4(count[0], count[1], count[2], count[3]);
    counters[1] = vec4(count[4], count[5], count[6], count[7]);
    counters[2] = vec4(count[8], count[9], count[10], count[11]);
    counters[3] = vec4(count[12], count[13], count[14], count[15]);
    counters[4] = vec4(count[16], count[17], count[18], count[19]);
    counters[5] = vec4(count[20], count[21], count[22], count[23]);
    counters[6] = vec4(count[24], count[25], count[26], count[27]);
    counters[7] = vec4(count[28], count[29], count[30], count[31]);
}
