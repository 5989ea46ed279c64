// Shared by every stage of every GL backend: the input and the criterion.
// The program builder prepends "#version ...", the stage's defines and:
//   CONNECTIVITY 4 or 8 (6, 18 or 26 with DIMENSIONS 3: a volume, compute only)
//   CRITERION_BINARY (with BINARY_LEVEL for "binary:L"), CRITERION_SEGMENTS
//   or CRITERION_THRESHOLD (with THRESHOLD); the numbers are literals in the
//   input's units, unsigned ("300u") for INPUT_UINT, float ("300.0") else
//   INPUT_UNORM8, INPUT_UNORM16, INPUT_FLOAT or INPUT_UINT: the input's format

// Defaults, for programs built without the pipeline's defines (tools, tests).
#ifndef CONNECTIVITY
#define CONNECTIVITY 8
#endif
#if !defined(CRITERION_BINARY) && !defined(CRITERION_SEGMENTS) && !defined(CRITERION_THRESHOLD)
#define CRITERION_BINARY 1
#endif

#ifndef DIMENSIONS
#define DIMENSIONS 2
#endif

#if !defined(INPUT_UNORM8) && !defined(INPUT_UNORM16) && !defined(INPUT_FLOAT) && !defined(INPUT_UINT)
#define INPUT_UNORM8 1
#endif

// The host's texture: GL_R8 / GL_RGBA8 (INPUT_UNORM8), GL_R16 / GL_RGBA16
// (INPUT_UNORM16), GL_R32F (INPUT_FLOAT), or GL_R8UI / GL_R32UI (INPUT_UINT,
// an integer sampler); a GL_TEXTURE_3D of them with DIMENSIONS 3, where a
// pixel is a voxel and its coordinates are an ivec3 (PixelCoord).
#if DIMENSIONS == 3
#define PixelCoord ivec3
uniform ivec3 imageSize;       // width, height, depth of the volume being labeled
#ifdef INPUT_UINT
uniform usampler3D inputImage;
#else
uniform sampler3D inputImage;
#endif
#else
#define PixelCoord ivec2
uniform ivec2 imageSize;       // width, height of the image being labeled
#ifdef INPUT_UINT
uniform usampler2D inputImage;
#else
uniform sampler2D inputImage;
#endif
#endif

// ---------------------------------------------------------------------------
// The criterion, the GPU twin of glccl::isForeground / glccl::areConnected.
// Only node_graph (raster) and the compute stages' node masks read the input;
// every later stage reads their links.
// ---------------------------------------------------------------------------
// A texel's value in the units of its format: 0..255 for 8-bit formats,
// 0..65535 for 16-bit ones (a normalized 16-bit value converts to a float
// within half a step, so the rounding gives it back exactly), the float
// itself for GL_R32F. An integer texel does not fit a float's 24-bit
// mantissa: it travels as its two 16-bit halves, .r the low and .g the
// high one, each exact in a float, and sampleOf() puts them back together
// for every comparison.
vec4 pixelValue(PixelCoord p) {
#if defined(INPUT_UINT)
    uint v = texelFetch(inputImage, p, 0).r;
    return vec4(float(v & 0xFFFFu), float(v >> 16u), 0.0, 0.0);
#elif defined(INPUT_UNORM16)
    return round(texelFetch(inputImage, p, 0) * 65535.0);
#elif defined(INPUT_FLOAT)
    return texelFetch(inputImage, p, 0);
#else
    return round(texelFetch(inputImage, p, 0) * 255.0);
#endif
}

#if defined(INPUT_UINT)
uint sampleOf(vec4 value) { return uint(value.r) | (uint(value.g) << 16u); }
#endif

// Binary: above the level ("binary:L"), else nonzero; segments: nonzero;
// threshold: every pixel.
bool isForegroundValue(vec4 value) {
#if defined(CRITERION_THRESHOLD)
    return true;
#elif defined(INPUT_UINT) && defined(BINARY_LEVEL)
    return sampleOf(value) > BINARY_LEVEL;
#elif defined(INPUT_UINT)
    return sampleOf(value) != 0u;
#elif defined(BINARY_LEVEL)
    return value.r > BINARY_LEVEL;
#else
    return value.r != 0.0;
#endif
}

// Are two foreground pixels of these values connected (when adjacent)?
bool valuesConnect(vec4 a, vec4 b) {
#if defined(CRITERION_BINARY)
    return true;
#elif defined(CRITERION_SEGMENTS) && defined(INPUT_UINT)
    return sampleOf(a) == sampleOf(b);
#elif defined(CRITERION_SEGMENTS)
    return a.r == b.r;
#elif defined(INPUT_UINT)
    uint x = sampleOf(a), y = sampleOf(b);
    return max(x, y) - min(x, y) <= THRESHOLD;
#else
    return all(lessThanEqual(abs(a - b), vec4(THRESHOLD)));
#endif
}

#if __VERSION__ >= 400 && DIMENSIONS == 2
// Binary blocks: whether each of the 2x2 texels textureGather reads around
// `centre` is foreground (.w (0,0), .z (1,0), .x (0,1), .y (1,1)). The
// input's sampler clamps to a zero border, so texels past the image are
// background. Integer texels are compared as integers.
bvec4 gatherForeground(vec2 centre) {
#if defined(INPUT_UINT) && defined(BINARY_LEVEL)
    return greaterThan(textureGather(inputImage, centre), uvec4(BINARY_LEVEL));
#elif defined(INPUT_UINT)
    return notEqual(textureGather(inputImage, centre), uvec4(0u));
#elif defined(BINARY_LEVEL) && defined(INPUT_FLOAT)
    return greaterThan(textureGather(inputImage, centre), vec4(BINARY_LEVEL));
#elif defined(BINARY_LEVEL) && defined(INPUT_UNORM16)
    return greaterThan(round(textureGather(inputImage, centre) * 65535.0), vec4(BINARY_LEVEL));
#elif defined(BINARY_LEVEL)
    return greaterThan(round(textureGather(inputImage, centre) * 255.0), vec4(BINARY_LEVEL));
#else
    return notEqual(textureGather(inputImage, centre), vec4(0.0));
#endif
}
#endif

// The neighbourhood: kNeighbourCount offsets, the 4-neighbours first.
#if DIMENSIONS == 3
// A volume's neighbourhood is compute_common.glsl's kBackward.
#elif CONNECTIVITY == 8
const int kNeighbourCount = 8;
#else
const int kNeighbourCount = 4;
#endif
const ivec2 kNeighbours[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1),
                                      ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));
const int kLeft = 0, kUp = 2, kUpLeft = 4, kDownLeft = 6;  // indices into kNeighbours
