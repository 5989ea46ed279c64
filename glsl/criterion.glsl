// Shared by every stage of every GL backend: the input and the criterion.
// The program builder prepends "#version ...", the stage's defines and:
//   CONNECTIVITY 4 or 8 (6, 18 or 26 with DIMENSIONS 3: a volume, compute only)
//   CRITERION_BINARY (with BINARY_LEVEL for "binary:L"), CRITERION_SEGMENTS,
//   CRITERION_THRESHOLD (with THRESHOLD) or CRITERION_DELTA (with DELTA); the
//   numbers are the uniform criterionNumber, in the input's units, unsigned
//   for INPUT_UINT and INPUT_UINT64, float else
//   INPUT_UNORM8, INPUT_UNORM16, INPUT_FLOAT, INPUT_UINT or INPUT_UINT64: the
//   input's format
//   or NO_INPUT: a stage that reads neither the input nor the criterion, so
//   one text serves every input format and criterion; the input's sampler
//   and functions are left out, and a stage that calls them does not build

// Defaults, for programs built without the pipeline's defines (tools, tests).
#ifndef CONNECTIVITY
#define CONNECTIVITY 8
#endif
#if !defined(CRITERION_BINARY) && !defined(CRITERION_SEGMENTS) && !defined(CRITERION_THRESHOLD) && \
    !defined(CRITERION_DELTA) && !defined(NO_INPUT)
#define CRITERION_BINARY 1
#endif
// The largest difference that still connects two neighbours.
#if defined(CRITERION_THRESHOLD)
#define LARGEST_DIFFERENCE THRESHOLD
#elif defined(CRITERION_DELTA)
#define LARGEST_DIFFERENCE DELTA
#endif

#ifndef DIMENSIONS
#define DIMENSIONS 2
#endif

#if !defined(INPUT_UNORM8) && !defined(INPUT_UNORM16) && !defined(INPUT_FLOAT) && !defined(INPUT_UINT) && \
    !defined(INPUT_UINT64) && !defined(NO_INPUT)
#define INPUT_UNORM8 1
#endif
#if defined(INPUT_UINT) || defined(INPUT_UINT64)
#define INTEGER_INPUT 1
#endif

// The criterion's number (BINARY_LEVEL, THRESHOLD and DELTA name it), set by
// the backends before each use: one program serves every number of a kind.
// Unsigned for integer textures, a float in the units of the others.
#if defined(BINARY_LEVEL) || defined(CRITERION_THRESHOLD) || defined(CRITERION_DELTA)
#ifdef INTEGER_INPUT
uniform uint criterionNumber;
#else
uniform float criterionNumber;
#endif
#endif

// The host's texture: GL_R8 / GL_RGBA8 (INPUT_UNORM8), GL_R16 / GL_RGBA16
// (INPUT_UNORM16), GL_R32F (INPUT_FLOAT), GL_R8UI / GL_R32UI (INPUT_UINT, an
// integer sampler), or GL_RG32UI (INPUT_UINT64: one 64-bit sample, red its
// low and green its high 32 bits); a GL_TEXTURE_3D of them with DIMENSIONS
// 3, where a pixel is a voxel and its coordinates are an ivec3 (PixelCoord).
#if DIMENSIONS == 3
#define PixelCoord ivec3
uniform ivec3 imageSize;       // width, height, depth of the volume being labeled
#ifdef NO_INPUT
// no sampler: the stage reads no input
#elif defined(INTEGER_INPUT)
uniform usampler3D inputImage;
#else
uniform sampler3D inputImage;
#endif
#else
#define PixelCoord ivec2
uniform ivec2 imageSize;       // width, height of the image being labeled
#ifdef NO_INPUT
// no sampler: the stage reads no input
#elif defined(INTEGER_INPUT)
uniform usampler2D inputImage;
#else
uniform sampler2D inputImage;
#endif
#endif

#ifndef NO_INPUT
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
// for every comparison; a 64-bit texel as its four 16-bit quarters, .r the
// lowest and .a the highest.
vec4 pixelValue(PixelCoord p) {
#if defined(INPUT_UINT64)
    uvec2 v = texelFetch(inputImage, p, 0).rg;
    return vec4(float(v.x & 0xFFFFu), float(v.x >> 16u), float(v.y & 0xFFFFu), float(v.y >> 16u));
#elif defined(INPUT_UINT)
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

#if defined(INPUT_UINT64)
// The sample as (low, high) 32-bit halves.
uvec2 sampleOf(vec4 value) {
    return uvec2(uint(value.r) | (uint(value.g) << 16u), uint(value.b) | (uint(value.a) << 16u));
}

// |x - y| <= limit for 64-bit x and y given as (low, high): the larger minus
// the smaller, with the borrow of the low halves taken from the high ones.
bool differenceWithin(uvec2 x, uvec2 y, uint limit) {
    bool xLarger = x.y > y.y || (x.y == y.y && x.x >= y.x);
    uvec2 larger = xLarger ? x : y, smaller = xLarger ? y : x;
    uint borrow = larger.x < smaller.x ? 1u : 0u;
    return larger.y - smaller.y - borrow == 0u && larger.x - smaller.x <= limit;
}
#elif defined(INPUT_UINT)
uint sampleOf(vec4 value) { return uint(value.r) | (uint(value.g) << 16u); }
#endif

// Binary: above the level ("binary:L"), else nonzero; segments and delta:
// nonzero; threshold: every pixel. A criterion's number fits 32 bits, so a
// 64-bit sample is above it where its high half is nonzero.
bool isForegroundValue(vec4 value) {
#if defined(CRITERION_THRESHOLD)
    return true;
#elif defined(INPUT_UINT64) && defined(BINARY_LEVEL)
    uvec2 s = sampleOf(value);
    return s.y != 0u || s.x > BINARY_LEVEL;
#elif defined(INPUT_UINT64)
    return any(notEqual(sampleOf(value), uvec2(0u)));
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
// Segments and delta compare the red channel (a 64-bit sample all four
// quarters), threshold every channel.
bool valuesConnect(vec4 a, vec4 b) {
#if defined(CRITERION_BINARY)
    return true;
#elif defined(CRITERION_SEGMENTS) && defined(INTEGER_INPUT)
    return sampleOf(a) == sampleOf(b);
#elif defined(CRITERION_SEGMENTS)
    return a.r == b.r;
#elif defined(INPUT_UINT64)
    return differenceWithin(sampleOf(a), sampleOf(b), LARGEST_DIFFERENCE);
#elif defined(INPUT_UINT)
    uint x = sampleOf(a), y = sampleOf(b);
    return max(x, y) - min(x, y) <= LARGEST_DIFFERENCE;
#elif defined(CRITERION_DELTA)
    return abs(a.r - b.r) <= DELTA;
#else
    return all(lessThanEqual(abs(a - b), vec4(THRESHOLD)));
#endif
}

#if (__VERSION__ >= 400 || (defined(GL_ES) && __VERSION__ >= 310) || \
     (defined(GATHER_INPUT) && !defined(INPUT_UINT64))) && DIMENSIONS == 2
// Binary blocks: whether each of the 2x2 texels textureGather reads around
// `centre` is foreground (.w (0,0), .z (1,0), .x (0,1), .y (1,1)). The
// compute engine's sampler clamps to a zero border, so texels past the
// image are background; node_graph masks them itself. Integer texels are
// compared as integers, a 64-bit texel's halves gathered apart (a
// component's gather, which GATHER_INPUT's GLSL 3.30 does not have).
bvec4 gatherForeground(vec2 centre) {
#if defined(INPUT_UINT64) && defined(BINARY_LEVEL)
    uvec4 low = textureGather(inputImage, centre, 0), high = textureGather(inputImage, centre, 1);
    return bvec4(uvec4(notEqual(high, uvec4(0u))) | uvec4(greaterThan(low, uvec4(BINARY_LEVEL))));
#elif defined(INPUT_UINT64)
    return notEqual(textureGather(inputImage, centre, 0) | textureGather(inputImage, centre, 1), uvec4(0u));
#elif defined(INPUT_UINT) && defined(BINARY_LEVEL)
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
#endif  // NO_INPUT

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
const int kLeft = 0, kRight = 1, kUp = 2, kDown = 3;  // indices into kNeighbours
const int kUpLeft = 4, kUpRight = 5, kDownLeft = 6, kDownRight = 7;
