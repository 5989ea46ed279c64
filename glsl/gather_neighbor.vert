// Column processing, step 1: gather neighbour (O'Connell §5, Fig. 5.2).
// One vertex per pixel of the current column of every block. Each pixel takes
// the largest label of its connected neighbours in the column to its left
// (already processed) and scatters it to the root of its own vertical run;
// GL_MAX blending keeps the largest. The paper ran right to left because its
// largest IDs were bottom-right; ours are top-left, so columns run left to right.
uniform sampler2D columns;   // run tops, and the labels of processed columns
uniform int blockWidth;
uniform int columnInBlock;
flat out float scatterValue;

void main() {
    int block = gl_VertexID / imageSize.y;
    ivec2 p = ivec2(block * blockWidth + columnInBlock, gl_VertexID % imageSize.y);
    gl_Position = kClipped;
    scatterValue = 0.0;
    if (p.x >= imageSize.x || !isForeground(p)) return;
    float best = 0.0;
    vec4 value = pixelValue(p);
    for (int dy = -1; dy <= 1; ++dy) {
        if (dy != 0 && CONNECTIVITY == 4) continue;
        ivec2 q = p + ivec2(-1, dy);
        if (connectsTo(value, q)) best = max(best, texelFetch(columns, q, 0).r);
    }
    float runTop = texelFetch(columns, p, 0).r;
    if (best <= runTop) return;  // cannot raise the root: a root's value is at least its own ID
    scatterValue = best;
    gl_Position = pixelPosition(decodeId(runTop), imageSize, 0.0);
}
