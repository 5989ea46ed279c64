// download_table's words (Tuning::rasterTablePack words): the component
// table with its digits (component_table.frag, TABLE_DIGITS) turned into
// six 32-bit words an entry, so that the host reads 24 bytes an entry in
// one read rather than 16 a target of boxes, sums and digit targets:
//   0: W-1-min x | (H-1-min y) << 16   (the box as the table keeps it;
//   1: max x | max y << 16              each side is at most 2^15)
//   2: area                             (at most 2^30 pixels)
//   3: sum of x, bits 0-31
//   4: sum of y, bits 0-31
//   5: sum of x, bits 32-47 | sum of y, bits 32-47 << 16
// (a sum is at most 2^30 * 2^15). Entry e's words are words 6e..6e+5 of the
// target read as one array, texel t holding words 4t..4t+3, texels in rows
// of tableWidth: a texel holds words of at most two entries. Each channel
// is an exact integer below 2^24 (SumDigits, download_table.hpp) and the
// digits are added in integers, so every word is exact.
uniform sampler2D boxes;
uniform sampler2D sums;
uniform sampler2D digits;
uniform sampler2D moreDigits;
uniform int tableWidth;  // entries per row of the table, and texels per row here
uniform int entries;     // the table's count
// component_table's copies (Tuning::rasterTableSpread), where it left them
// unfolded: copy k of an entry copyRows rows below copy k - 1. Boxes take
// their maxima and channels their sums, as component_table_fold.frag: a
// copy's channels are partial sums of the entry's, exact where it is.
uniform int spread;
uniform int copyRows;
layout(location = 0) out uvec4 words;

// Digits first .. first + n - 1 of `channels` as a 64-bit (low, high) sum:
// digit d holds bits from digitBits * d on (a shift below 48).
uvec2 quantity(float channels[4 * (1 + MAX_DIGIT_TARGETS)], int first, int n) {
    uvec2 total = uvec2(0u);
    for (int d = 0; d < n; ++d) {
        uint v = uint(channels[first + d]);
        int shift = digitBits * d;
        uint low = shift < 32 ? v << uint(shift) : 0u;
        uint high = shift == 0 ? 0u : shift < 32 ? v >> uint(32 - shift) : v << uint(shift - 32);
        uint sumLow = total.x + low;
        total.y += high + (sumLow < low ? 1u : 0u);
        total.x = sumLow;
    }
    return total;
}

// Entry e's words 0-3 and 4-5.
void entryWords(int e, out uvec4 first, out uvec2 last) {
    ivec2 p = ivec2(e % tableWidth, e / tableWidth);
    vec4 b = texelFetch(boxes, p, 0);
    vec4 s = texelFetch(sums, p, 0), d = texelFetch(digits, p, 0), m = texelFetch(moreDigits, p, 0);
    for (int k = 1; k < spread; ++k) {
        ivec2 q = p + ivec2(0, k * copyRows);
        b = max(b, texelFetch(boxes, q, 0));
        s += texelFetch(sums, q, 0);
        d += texelFetch(digits, q, 0);
        m += texelFetch(moreDigits, q, 0);
    }
    uvec4 box = uvec4(b);
#if MAX_DIGIT_TARGETS != 2
#error "the channels are the sums target's and two digit targets'"
#endif
    float channels[12] = float[12](s.x, s.y, s.z, s.w, d.x, d.y, d.z, d.w, m.x, m.y, m.z, m.w);
    uvec2 area = quantity(channels, 0, sumDigits.x);
    uvec2 x = quantity(channels, sumDigits.x, sumDigits.y);
    uvec2 y = quantity(channels, sumDigits.x + sumDigits.y, sumDigits.z);
    first = uvec4(box.x | (box.y << 16), box.z | (box.w << 16), area.x, x.x);
    last = uvec2(y.x, (x.y & 0xFFFFu) | (y.y << 16));
}

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    // Texel t starts at word 4t: entry 4t / 6 = 2t / 3, at its word 4t - 6e
    // (0, 2 or 4). In unsigned arithmetic, 2t fits where t does.
    uint twice = 2u * (uint(o.y) * uint(tableWidth) + uint(o.x));
    uint e = twice / 3u;
    uint offset = 2u * (twice - 3u * e);
    uvec4 first = uvec4(0u), nextFirst = uvec4(0u);
    uvec2 last = uvec2(0u), nextLast = uvec2(0u);
    if (e < uint(entries)) entryWords(int(e), first, last);
    if (offset == 4u && e + 1u < uint(entries)) entryWords(int(e) + 1, nextFirst, nextLast);
    words = offset == 0u ? first : offset == 2u ? uvec4(first.zw, last) : uvec4(last, nextFirst.xy);
}
