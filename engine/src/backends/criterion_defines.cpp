#include "criterion_defines.hpp"

#include "glccl/error.hpp"

namespace glccl::backends {

namespace {

const char* inputFormatDefine(GLenum internalFormat) {
    switch (internalFormat) {
        case GL_R16: return "INPUT_UNORM16";
        case GL_R32F: return "INPUT_FLOAT";
        case GL_R8UI:
        case GL_R32UI: return "INPUT_UINT";
        case GL_RG32UI: return "INPUT_UINT64";
        case GL_RGBA16: return "INPUT_UNORM16";
        default: return "INPUT_UNORM8";
    }
}

// Bits of one sample, the range of the criterion's numbers (a float
// texture's values are not limited: 32).
int sampleDepth(GLenum internalFormat) {
    switch (internalFormat) {
        case GL_R16:
        case GL_RGBA16: return 16;
        case GL_R32UI:
        case GL_R32F: return 32;
        case GL_RG32UI: return 64;
        default: return 8;
    }
}

}  // namespace

void defineCriterion(gl::ProgramBuilder& builder, Connectivity connectivity, const Criterion& criterion,
                     GLenum inputFormat) {
    const std::string problem = criterion.problemForSampleBits(sampleDepth(inputFormat));
    if (!problem.empty()) throw Error("criterion '" + criterion.toString() + "': " + problem);
    // The numbers as literals of the type they are compared in: unsigned
    // for integer textures (32-bit values exceed a float's exact range),
    // float otherwise.
    const std::string format = inputFormatDefine(inputFormat);
    const bool integer = format == "INPUT_UINT" || format == "INPUT_UINT64";
    const auto literal = [&](std::int64_t value) { return std::to_string(value) + (integer ? "u" : ".0"); };
    builder.define("CONNECTIVITY", neighbourCount(connectivity));
    builder.define(inputFormatDefine(inputFormat));
    switch (criterion.kind) {
        case Criterion::Kind::Binary:
            builder.define("CRITERION_BINARY");
            if (criterion.level != 0) builder.define("BINARY_LEVEL", literal(criterion.level));
            break;
        case Criterion::Kind::Segments: builder.define("CRITERION_SEGMENTS"); break;
        case Criterion::Kind::Threshold:
            builder.define("CRITERION_THRESHOLD");
            builder.define("THRESHOLD", literal(criterion.threshold));
            break;
        case Criterion::Kind::Delta:
            builder.define("CRITERION_DELTA");
            builder.define("DELTA", literal(criterion.delta));
            break;
    }
}

std::string criterionVariant(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat) {
    return std::string(inputFormatDefine(inputFormat)) + "/" + std::to_string(neighbourCount(connectivity)) + "/" +
           criterion.toString();
}

NodeSize NodeSize::of(Connectivity connectivity, const Criterion& criterion) {
    if (criterion.kind != Criterion::Kind::Binary) return {1, 1, 1};
    switch (connectivity) {
        case Connectivity::Eight: return {2, 2, 1};
        case Connectivity::TwentySix: return {2, 2, 2};
        case Connectivity::Eighteen: return {2, 2, 1};
        case Connectivity::Four:
        case Connectivity::Six: break;
    }
    return {2, 1, 1};
}

}  // namespace glccl::backends
