// component_table spread over copies (Tuning::rasterTableSpread): the
// compact table from its `spread` copies, copy k of entry (x, y) at
// (x, y + k * tableRows): boxes and roots their maxima, sums their sum. A
// copy's sums are partial sums of the component's, so they and every sum
// of them stay exact wherever the whole is (component_table.frag). With
// TABLE_DIGITS, the digit targets summed like the sums, no roots.
uniform sampler2D boxCopies;
uniform sampler2D sumCopies;
uniform int spread;
uniform int tableRows;
layout(location = 0) out vec4 box;
layout(location = 1) out vec4 sums;
#ifdef TABLE_DIGITS
uniform sampler2D digitCopies;
uniform sampler2D moreDigitCopies;
layout(location = 2) out vec4 digits;
layout(location = 3) out vec4 moreDigits;
#else
uniform sampler2D rootCopies;
layout(location = 2) out vec4 root;
#endif

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    vec4 boxes = vec4(0.0), total = vec4(0.0);
#ifdef TABLE_DIGITS
    vec4 digitTotal = vec4(0.0), moreDigitTotal = vec4(0.0);
#else
    float rootId = 0.0;
#endif
    for (int k = 0; k < spread; ++k) {
        ivec2 p = o + ivec2(0, k * tableRows);
        boxes = max(boxes, texelFetch(boxCopies, p, 0));
        total += texelFetch(sumCopies, p, 0);
#ifdef TABLE_DIGITS
        digitTotal += texelFetch(digitCopies, p, 0);
        moreDigitTotal += texelFetch(moreDigitCopies, p, 0);
#else
        rootId = max(rootId, texelFetch(rootCopies, p, 0).r);
#endif
    }
    box = boxes;
    sums = total;
#ifdef TABLE_DIGITS
    digits = digitTotal;
    moreDigits = moreDigitTotal;
#else
    root = vec4(rootId);
#endif
}
