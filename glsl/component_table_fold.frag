// component_table spread over copies (Tuning::rasterTableSpread): the
// compact table from its `spread` copies, copy k of entry (x, y) at
// (x, y + k * tableRows): boxes and roots their maxima, sums their sum. A
// copy's sums are partial sums of the component's, so they and every sum
// of them stay exact wherever the whole is (component_table.frag).
uniform sampler2D boxCopies;
uniform sampler2D sumCopies;
uniform sampler2D rootCopies;
uniform int spread;
uniform int tableRows;
layout(location = 0) out vec4 box;
layout(location = 1) out vec4 sums;
layout(location = 2) out vec4 root;

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    vec4 boxes = vec4(0.0), total = vec4(0.0);
    float rootId = 0.0;
    for (int k = 0; k < spread; ++k) {
        ivec2 p = o + ivec2(0, k * tableRows);
        boxes = max(boxes, texelFetch(boxCopies, p, 0));
        total += texelFetch(sumCopies, p, 0);
        rootId = max(rootId, texelFetch(rootCopies, p, 0).r);
    }
    box = boxes;
    sums = total;
    root = vec4(rootId);
}
