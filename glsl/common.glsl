// Shared by every glccl stage: ID encoding, input access, the criterion.
// The pipeline prepends "#version 330 core", STAGE_VERTEX or STAGE_FRAGMENT,
// and these defines:
//   CONNECTIVITY 4 or 8
//   CRITERION_BINARY, CRITERION_SEGMENTS or CRITERION_THRESHOLD (with THRESHOLD)
//   INPUT_UNORM8, INPUT_UNORM16, INPUT_FLOAT or INPUT_UINT: the input's format

// Defaults, for programs built without the pipeline's defines (tools, tests).
#ifndef CONNECTIVITY
#define CONNECTIVITY 8
#endif
#if !defined(CRITERION_BINARY) && !defined(CRITERION_SEGMENTS) && !defined(CRITERION_THRESHOLD)
#define CRITERION_BINARY 1
#endif

#if !defined(INPUT_UNORM8) && !defined(INPUT_UNORM16) && !defined(INPUT_FLOAT) && !defined(INPUT_UINT)
#define INPUT_UNORM8 1
#endif

uniform ivec2 imageSize;       // width, height of the image being labeled
// The host's texture, read with texelFetch only: GL_R8 / GL_RGBA8
// (INPUT_UNORM8), GL_R16 (INPUT_UNORM16), GL_R32F (INPUT_FLOAT) or GL_R8UI
// (INPUT_UINT).
#ifdef INPUT_UINT
uniform usampler2D inputImage;
#else
uniform sampler2D inputImage;
#endif

// ---------------------------------------------------------------------------
// IDs. A pixel's ID is a 32-bit value stored as the bit pattern of an R32F
// texel, so GL_MAX blending orders IDs like unsigned integers (O'Connell §4
// packed 11+11 bits into the mantissa and stopped at 2047x2047).
//
//   bits:  kIdBase + ((H-1-y) << 15) + (W-1-x),   0 = background
//
// x and y are stored inverted so that the LARGEST ID of a component belongs to
// its first pixel in raster order: the paper's "keep the maximum" then leaves
// exactly the roots the output contract numbers. kIdBase keeps every ID a
// normal float: blending flushes denormals to zero (GPU-NOTES.md), and the
// largest ID, 2^23 + 2^30 - 1, stays far below the infinities (0x7F800000).
// ---------------------------------------------------------------------------
const uint kIdBase = 0x00800000u;

float encodeId(ivec2 p) {
    return uintBitsToFloat(kIdBase + (uint(imageSize.y - 1 - p.y) << 15) + uint(imageSize.x - 1 - p.x));
}

ivec2 decodeId(float id) {
    uint bits = floatBitsToUint(id) - kIdBase;
    return ivec2(imageSize.x - 1 - int(bits & 0x7FFFu), imageSize.y - 1 - int(bits >> 15));
}

bool isRootAt(ivec2 p, float id) { return id != 0.0 && id == encodeId(p); }

bool insideImage(ivec2 p) { return all(greaterThanEqual(p, ivec2(0))) && all(lessThan(p, imageSize)); }

// Points and quads in pixel units: NDC of the centre of pixel p of a target.
vec4 pixelPosition(ivec2 p, ivec2 targetSize, float ndcDepth) {
    return vec4((vec2(p) + 0.5) / vec2(targetSize) * 2.0 - 1.0, ndcDepth, 1.0);
}
const vec4 kClipped = vec4(2.0, 2.0, 2.0, 1.0);  // outside the clip volume: not rasterised

// ---------------------------------------------------------------------------
// The criterion, the GPU twin of glccl::isForeground / glccl::areConnected.
// ---------------------------------------------------------------------------
// A texel's value in the units of its format: 0..255 for 8-bit formats,
// 0..65535 for GL_R16, the float itself for GL_R32F.
vec4 pixelValue(ivec2 p) {
#if defined(INPUT_UINT)
    return vec4(texelFetch(inputImage, p, 0));
#elif defined(INPUT_UNORM16)
    return round(texelFetch(inputImage, p, 0) * 65535.0);
#elif defined(INPUT_FLOAT)
    return texelFetch(inputImage, p, 0);
#else
    return round(texelFetch(inputImage, p, 0) * 255.0);
#endif
}

bool isForeground(ivec2 p) {
#if defined(CRITERION_THRESHOLD)
    return true;
#else
    return pixelValue(p).r != 0.0;
#endif
}

// Is in-image foreground pixel p, of value `value` (pixelValue(p)),
// connected to its neighbour q? Callers that test several neighbours fetch
// p's value once: these stages are bound by fetches.
bool connectsTo(vec4 value, ivec2 q) {
    if (!insideImage(q)) return false;
    vec4 b = pixelValue(q);
#if defined(CRITERION_BINARY)
    return value.r != 0.0 && b.r != 0.0;
#elif defined(CRITERION_SEGMENTS)
    return value.r != 0.0 && value.r == b.r;
#else
    return all(lessThanEqual(abs(value - b), vec4(THRESHOLD)));
#endif
}

bool areConnected(ivec2 p, ivec2 q) { return connectsTo(pixelValue(p), q); }

// The neighbourhood: kNeighbourCount offsets, the 4-neighbours first.
#if CONNECTIVITY == 8
const int kNeighbourCount = 8;
#else
const int kNeighbourCount = 4;
#endif
const ivec2 kNeighbours[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1),
                                      ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));

// Follows the pointers of `ids` from `id` to the root it leads to: the pixel
// whose value is its own ID (O'Connell Fig. 6.3). Values only grow along a
// chain, so it ends; the bound is a guard against a driver bug, not a limit.
float rootOf(sampler2D ids, float id) {
    for (int step = 0; step < (1 << 20) && id != 0.0; ++step) {
        float next = texelFetch(ids, decodeId(id), 0).r;
        if (next == id) break;
        id = next;
    }
    return id;
}

// The component table: label k is entry k - 1, laid out in rows of tableWidth.
ivec2 tableEntry(uint label, int tableWidth) {
    int index = int(label) - 1;
    return ivec2(index % tableWidth, index / tableWidth);
}

#ifdef STAGE_VERTEX
// One vertex per pixel: the pixel of vertex gl_VertexID, rows from firstRow.
ivec2 pixelOfVertex(int firstRow) { return ivec2(gl_VertexID % imageSize.x, firstRow + gl_VertexID / imageSize.x); }
#endif

// The table stages scatter one point per label per row segment of kSegment
// pixels instead of one per pixel: the first pixel of a label in its
// segment sums up the segment's pixels of that label (at most kSegment
// fetches: unbounded walks along long runs serialise whole warps).
const int kSegment = 32;

int segmentEnd(ivec2 p) { return min((p.x / kSegment + 1) * kSegment, imageSize.x); }

// Is p the first pixel of `label` (nonzero) in its row segment?
bool firstOfLabelInSegment(usampler2D labels, ivec2 p, uint label) {
    if (label == 0u) return false;
    int segmentStart = p.x / kSegment * kSegment;
    if (p.x > segmentStart && texelFetch(labels, p - ivec2(1, 0), 0).r == label) return false;
    for (int x = segmentStart; x < p.x - 1; ++x)
        if (texelFetch(labels, ivec2(x, p.y), 0).r == label) return false;
    return true;
}
