// scan_roots: prefix count of roots in raster order (over the scan grid, common.glsl),
// up-sweep: each output texel sums `block` consecutive input texels along
// one axis (rows first, then the column of row totals). Level 0 reads the
// IDs and keeps, instead of a count, the mask of the roots among its
// kScanBlock texels (bit i: texel i), so the last down-sweep numbers a root
// with two fetches; level 1 counts the masks' bits.
uniform usampler2D counts;  // the level below (unused when fromRoots != 0)
uniform sampler2D ids;      // used when fromRoots != 0
uniform int fromRoots;
uniform int countsAreMasks; // the level below is level 0
uniform int axis;           // 0: along x, 1: along y
uniform ivec2 inputSize;
uniform int block;          // texels per sum: kScanBlock at level 0
out uvec4 fragCount;

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    ivec2 step = axis == 0 ? ivec2(1, 0) : ivec2(0, 1);
    ivec2 first = axis == 0 ? ivec2(o.x * block, o.y) : ivec2(o.x, o.y * block);
    uint sum = 0u;
    for (int i = 0; i < block; ++i) {
        ivec2 q = first + step * i;
        if (any(greaterThanEqual(q, inputSize))) break;
        if (fromRoots != 0) sum |= isRootInScanTexel(ids, q) ? 1u << uint(i) : 0u;
        else if (countsAreMasks != 0) sum += onesIn(texelFetch(counts, q, 0).r);
        else sum += texelFetch(counts, q, 0).r;
    }
    fragCount = uvec4(sum);
}
