// Column processing, step 3: scatter back (O'Connell §5, Figs. 5.4-5.6).
// Each pixel of the current column scatters its label to the root of its
// connected left neighbour with the smallest label below its own, at depth
// 1.0: the depth buffer marks the roots that changed, for the post-column
// stage, since those columns are not visited again. With 8-connectivity up
// to three neighbours qualify; one vertex per pixel serves the smallest and
// leaves the others to the exactness loop (resolve_links), which costs less
// on GPUs where vertex throughput bounds these draws.
uniform sampler2D columns;
uniform int blockWidth;
uniform int columnInBlock;
flat out float scatterValue;

void main() {
    int block = gl_VertexID / imageSize.y;
    ivec2 p = ivec2(block * blockWidth + columnInBlock, gl_VertexID % imageSize.y);
    gl_Position = kClipped;
    scatterValue = 0.0;
    if (p.x >= imageSize.x || !isForeground(p)) return;
    float label = texelFetch(columns, p, 0).r;
    float smallest = label;
    vec4 value = pixelValue(p);
    for (int dy = -1; dy <= 1; ++dy) {
        if (dy != 0 && CONNECTIVITY == 4) continue;
        ivec2 q = p + ivec2(-1, dy);
        if (connectsTo(value, q)) smallest = min(smallest, texelFetch(columns, q, 0).r);
    }
    if (smallest >= label) return;
    scatterValue = label;
    gl_Position = pixelPosition(decodeId(smallest), imageSize, 1.0);
}
