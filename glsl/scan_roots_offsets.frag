// scan_roots: prefix count of roots in raster order (over the scan grid, common.glsl),
// down-sweep: a texel's exclusive offset is its parent's offset plus the
// counts of the siblings before it in its block. It stops at level 0: a
// root's label is read from there (common.glsl's rootLabelOf).
uniform usampler2D counts;         // this level's counts (level 0: masks)
uniform usampler2D parentOffsets;  // exclusive offsets of the level above
uniform int countsAreMasks;        // this level is level 0
uniform int axis;
uniform int block;                 // texels per sum of the level above
out uvec4 fragOffset;

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    int position = axis == 0 ? o.x : o.y;
    ivec2 parent = axis == 0 ? ivec2(o.x / block, o.y) : ivec2(o.x, o.y / block);
    uint offset = texelFetch(parentOffsets, parent, 0).r;
    for (int i = position / block * block; i < position; ++i) {
        uint count = texelFetch(counts, axis == 0 ? ivec2(i, o.y) : ivec2(o.x, i), 0).r;
        offset += countsAreMasks != 0 ? onesIn(count) : count;
    }
    fragOffset = uvec4(offset);
}
