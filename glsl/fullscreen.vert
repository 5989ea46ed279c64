// One triangle covering the viewport; quadDepth is the NDC depth of every
// fragment (post_column_processing tests marked roots with GL_EQUAL at 1.0).
uniform float quadDepth;

void main() {
    vec2 corner = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
    gl_Position = vec4(corner * 2.0 - 1.0, quadDepth, 1.0);
}
