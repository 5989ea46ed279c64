// Prefix count of roots in raster order (over the scan grid, common.glsl), up-sweep: each output texel holds
// the sum of kScanBlock consecutive input texels along one axis (rows first,
// then the column of row totals). Level 0 counts roots straight from the IDs.
const int kScanBlock = 32;
uniform usampler2D counts;  // the level below (unused when fromRoots != 0)
uniform sampler2D ids;      // used when fromRoots != 0
uniform int fromRoots;
uniform int axis;           // 0: along x, 1: along y
uniform ivec2 inputSize;
out uvec4 fragCount;

uint countAt(ivec2 q) {
    if (fromRoots != 0) return isRootInScanTexel(ids, q) ? 1u : 0u;
    return texelFetch(counts, q, 0).r;
}

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    ivec2 step = axis == 0 ? ivec2(1, 0) : ivec2(0, 1);
    ivec2 first = axis == 0 ? ivec2(o.x * kScanBlock, o.y) : ivec2(o.x, o.y * kScanBlock);
    uint sum = 0u;
    for (int i = 0; i < kScanBlock; ++i) {
        ivec2 q = first + step * i;
        if (any(greaterThanEqual(q, inputSize))) break;
        sum += countAt(q);
    }
    fragCount = uvec4(sum);
}
