// Prefix count of roots in raster order (over the scan grid, common.glsl), down-sweep: a texel's exclusive
// offset is its parent's offset plus the counts of the siblings before it in
// its block. With fromRoots != 0 this is the last level (stage root_labels):
// each root gets 1 + the number of roots before it in raster order, which is
// its final label; other texels get 0.
const int kScanBlock = 32;
uniform usampler2D counts;         // this level's counts (unused when fromRoots != 0)
uniform sampler2D ids;             // used when fromRoots != 0
uniform usampler2D parentOffsets;  // exclusive offsets of the level above
uniform int fromRoots;
uniform int axis;
out uvec4 fragOffset;

uint countAt(ivec2 q) {
    if (fromRoots != 0) return isRootInScanTexel(ids, q) ? 1u : 0u;
    return texelFetch(counts, q, 0).r;
}

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    // Only roots' labels are ever read (final_labels): skip the others' sums.
    if (fromRoots != 0 && countAt(o) == 0u) { fragOffset = uvec4(0u); return; }
    int position = axis == 0 ? o.x : o.y;
    ivec2 parent = axis == 0 ? ivec2(o.x / kScanBlock, o.y) : ivec2(o.x, o.y / kScanBlock);
    uint offset = texelFetch(parentOffsets, parent, 0).r;
    for (int i = position / kScanBlock * kScanBlock; i < position; ++i)
        offset += countAt(axis == 0 ? ivec2(i, o.y) : ivec2(o.x, i));
    if (fromRoots != 0) offset += 1u;
    fragOffset = uvec4(offset);
}
