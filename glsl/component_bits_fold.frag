// Adds one band's exact float counts to the 32-bit integer totals (a count is
// at most the image's pixel count, 2^30, so 32 bits hold it): the `spread`
// partial counts of each entry (component_bits.vert), each exact, converted
// and added as integers. GLSL 3.30 allows only constant indices into
// sampler arrays, hence the unrolled lines.
uniform sampler2D bandCounts[BIT_COUNTER_TARGETS];
uniform usampler2D totals[BIT_COUNTER_TARGETS];
uniform int spread;
uniform int listHeight;
layout(location = 0) out uvec4 newTotals[BIT_COUNTER_TARGETS];
#if BIT_COUNTER_TARGETS != 8
#error "main() folds targets 0..7 one by one"
#endif

#define TOTAL(t) sum[t] = texelFetch(totals[t], o, 0)
#define FOLD(t) sum[t] += uvec4(texelFetch(bandCounts[t], p, 0))
#define WRITE(t) newTotals[t] = sum[t]

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    uvec4 sum[BIT_COUNTER_TARGETS];
    TOTAL(0); TOTAL(1); TOTAL(2); TOTAL(3);
    TOTAL(4); TOTAL(5); TOTAL(6); TOTAL(7);
    for (int k = 0; k < spread; ++k) {
        ivec2 p = o + ivec2(0, k * listHeight);
        FOLD(0); FOLD(1); FOLD(2); FOLD(3);
        FOLD(4); FOLD(5); FOLD(6); FOLD(7);
    }
    WRITE(0); WRITE(1); WRITE(2); WRITE(3);
    WRITE(4); WRITE(5); WRITE(6); WRITE(7);
}
