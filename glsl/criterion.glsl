// Shared by every stage of every GL backend: the input and the criterion.
// The program builder prepends "#version ...", the stage's defines and:
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
// The criterion, the GPU twin of glccl::isForeground / glccl::areConnected.
// Only node_graph reads the input; every later stage reads its links.
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

bool isForegroundValue(vec4 value) {
#if defined(CRITERION_THRESHOLD)
    return true;
#else
    return value.r != 0.0;
#endif
}

// Are two foreground pixels of these values connected (when adjacent)?
bool valuesConnect(vec4 a, vec4 b) {
#if defined(CRITERION_BINARY)
    return true;
#elif defined(CRITERION_SEGMENTS)
    return a.r == b.r;
#else
    return all(lessThanEqual(abs(a - b), vec4(THRESHOLD)));
#endif
}

// The neighbourhood: kNeighbourCount offsets, the 4-neighbours first.
#if CONNECTIVITY == 8
const int kNeighbourCount = 8;
#else
const int kNeighbourCount = 4;
#endif
const ivec2 kNeighbours[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1),
                                      ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));
const int kLeft = 0, kUp = 2, kUpLeft = 4, kDownLeft = 6;  // indices into kNeighbours

