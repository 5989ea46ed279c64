// component_table by slots (Tuning::rasterTable slots), step 2: one vertex
// per row segment sends the number of roots first in it to the target's one
// texel, where GL_MAX keeps the most; the host reads it back as the slots a
// segment needs.
uniform usampler2D firsts;  // component_table_firsts.frag's masks
flat out float scatterValue;

void main() {
    int across = (gridSize.x + kSegment - 1) / kSegment;
    uint mask = texelFetch(firsts, ivec2(gl_VertexID % across, gl_VertexID / across), 0).r;
    scatterValue = float(onesIn(mask));
    gl_Position = mask == 0u ? kClipped : pixelPosition(ivec2(0), ivec2(1), 0.0);
}
