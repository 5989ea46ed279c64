// component_table by slots (Tuning::rasterTable slots), step 2: one vertex
// per segment sends the number of roots first in it to texel (segment
// mod MOST_SIDE^2) of the target, where GL_MAX keeps the most; the host
// reads the target back and takes the most as the slots a segment needs.
uniform usampler2D firsts;  // component_table_firsts.frag's masks
flat out float scatterValue;

void main() {
    int across = textureSize(firsts, 0).x;
    uint mask = texelFetch(firsts, ivec2(gl_VertexID % across, gl_VertexID / across), 0).r;
    scatterValue = float(onesIn(mask));
    int texel = gl_VertexID % (MOST_SIDE * MOST_SIDE);
    gl_Position = mask == 0u ? kClipped
                             : pixelPosition(ivec2(texel % MOST_SIDE, texel / MOST_SIDE), ivec2(MOST_SIDE), 0.0);
}
