// scan_roots: prefix count of roots in raster order (over the scan grid, common.glsl),
// down-sweep: a texel's exclusive offset is its parent's offset plus the
// counts of the siblings before it in its block. With fromRoots != 0 this is
// the last level, over the scan grid: a root's label is
// 1 + its level-0 block's offset + the roots before it in the block's mask,
// which is its final label; other texels get 0.
uniform usampler2D counts;         // this level's counts (level 0: masks)
uniform usampler2D parentOffsets;  // exclusive offsets of the level above
uniform int fromRoots;
uniform int countsAreMasks;        // this level is level 0
uniform int axis;
uniform int block;                 // texels per sum of the level above
out uvec4 fragOffset;

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    if (fromRoots != 0) {
        // Level 0 runs along x.
        ivec2 maskTexel = ivec2(o.x / kScanBlock, o.y);
        uint mask = texelFetch(counts, maskTexel, 0).r;
        uint bit = 1u << uint(o.x % kScanBlock);
        if ((mask & bit) == 0u) { fragOffset = uvec4(0u); return; }
        fragOffset = uvec4(texelFetch(parentOffsets, maskTexel, 0).r + onesIn(mask & (bit - 1u)) + 1u);
        return;
    }
    int position = axis == 0 ? o.x : o.y;
    ivec2 parent = axis == 0 ? ivec2(o.x / block, o.y) : ivec2(o.x, o.y / block);
    uint offset = texelFetch(parentOffsets, parent, 0).r;
    for (int i = position / block * block; i < position; ++i) {
        uint count = texelFetch(counts, axis == 0 ? ivec2(i, o.y) : ivec2(o.x, i), 0).r;
        offset += countsAreMasks != 0 ? onesIn(count) : count;
    }
    fragOffset = uvec4(offset);
}
