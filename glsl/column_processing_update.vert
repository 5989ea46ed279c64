// Column processing, step 2 (with column_processing_update.frag): a
// one-node-wide quad over the current column of block gl_InstanceID
// (O'Connell draws "a single line down the image column"; a quad covers every
// texel centre exactly, whatever the line rasterisation rules).
uniform int blockWidth;
uniform int columnInBlock;

void main() {
    float x = float(gl_InstanceID * blockWidth + columnInBlock);
    vec2 corner = vec2(x + float(gl_VertexID & 1), float(gridSize.y) * float(gl_VertexID >> 1));
    gl_Position = vec4(corner / vec2(gridSize) * 2.0 - 1.0, 0.0, 1.0);
}
