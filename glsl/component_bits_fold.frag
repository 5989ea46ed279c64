// Adds one band's exact float counts to the 32-bit integer totals (a count is
// at most the image's pixel count, 2^30, so 32 bits hold it). GLSL 3.30
// allows only constant indices into sampler arrays, hence the unrolled lines.
uniform sampler2D bandCounts[BIT_COUNTER_TARGETS];
uniform usampler2D totals[BIT_COUNTER_TARGETS];
layout(location = 0) out uvec4 newTotals[BIT_COUNTER_TARGETS];
#if BIT_COUNTER_TARGETS != 8
#error "main() folds targets 0..7 one by one"
#endif

#define FOLD(t) newTotals[t] = texelFetch(totals[t], o, 0) + uvec4(texelFetch(bandCounts[t], o, 0))

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    FOLD(0); FOLD(1); FOLD(2); FOLD(3);
    FOLD(4); FOLD(5); FOLD(6); FOLD(7);
}
