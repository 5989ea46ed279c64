// Stencil routing (O'Connell §8, Figs. 8.2-8.3): every root becomes a point
// as large as the whole N x N routing block; the stencil buffer, preset to
// 1..M, lets exactly one root through per texel (GL_EQUAL 1, GL_DECR), so
// the M roots land one per texel, in no particular order. Other nodes are
// clipped. At most 255 roots: the stencil has 8 bits.
uniform sampler2D ids;
flat out float scatterValue;
#ifdef GL_ES
// ES sizes points in the vertex stage only (glPointSize is desktop's).
uniform float pointSize;
#define POINT_SIZE pointSize
#endif

void main() {
    ivec2 n = ivec2(gl_VertexID % gridSize.x, gl_VertexID / gridSize.x);
    float id = texelFetch(ids, n, 0).r;
    scatterValue = id;
    gl_Position = isRootNode(n, id) ? vec4(0.0, 0.0, 0.0, 1.0) : kClipped;
}
