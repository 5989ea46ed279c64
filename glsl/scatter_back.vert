// Column processing, step 3: scatter back (O'Connell §5, Figs. 5.4-5.6).
// Each pixel of the current column scatters its label to the root of every
// connected left neighbour's label that is smaller (one instance per
// neighbour row offset), at depth 1.0: the depth buffer marks the roots that
// changed, for the post-column stage, since those columns are not visited again.
uniform sampler2D columns;
uniform int blockWidth;
uniform int columnInBlock;
flat out float scatterValue;

void main() {
    int block = gl_VertexID / imageSize.y;
    ivec2 p = ivec2(block * blockWidth + columnInBlock, gl_VertexID % imageSize.y);
    int dy = CONNECTIVITY == 8 ? gl_InstanceID - 1 : 0;
    ivec2 q = p + ivec2(-1, dy);
    gl_Position = kClipped;
    scatterValue = 0.0;
    if (p.x >= imageSize.x || !isForeground(p) || !areConnected(p, q)) return;
    float label = texelFetch(columns, p, 0).r;
    float neighbourLabel = texelFetch(columns, q, 0).r;
    if (label <= neighbourLabel) return;
    scatterValue = label;
    gl_Position = pixelPosition(decodeId(neighbourLabel), imageSize, 1.0);
}
