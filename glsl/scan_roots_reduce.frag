// scan_roots: prefix count of roots in raster order (over the scan grid, common.glsl),
// up-sweep from level 1 on: each output texel sums `block` consecutive
// texels of the level below along one axis (rows first, then the column of
// row totals). Level 0 is scan_roots_masks.frag's masks, whose bits level 1
// counts.
uniform usampler2D counts;  // the level below
uniform int countsAreMasks; // the level below is level 0
uniform int axis;           // 0: along x, 1: along y
uniform ivec2 inputSize;
uniform int block;          // texels per sum
out uvec4 fragCount;

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    ivec2 step = axis == 0 ? ivec2(1, 0) : ivec2(0, 1);
    ivec2 first = axis == 0 ? ivec2(o.x * block, o.y) : ivec2(o.x, o.y * block);
    uint sum = 0u;
    for (int i = 0; i < block; ++i) {
        ivec2 q = first + step * i;
        if (any(greaterThanEqual(q, inputSize))) break;
        if (countsAreMasks != 0) sum += onesIn(texelFetch(counts, q, 0).r);
        else sum += texelFetch(counts, q, 0).r;
    }
    fragCount = uvec4(sum);
}
