#include "criterion_defines.hpp"

#include "glccl/error.hpp"

namespace glccl::backends {

namespace {

const char* inputFormatDefine(GLenum internalFormat) {
    switch (internalFormat) {
        case GL_R16: return "INPUT_UNORM16";
        case GL_R32F: return "INPUT_FLOAT";
        case GL_R8UI:
        case GL_R16UI:
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
        case GL_R16UI:
        case GL_RGBA16: return 16;
        case GL_R32UI:
        case GL_R32F: return 32;
        case GL_RG32UI: return 64;
        default: return 8;
    }
}

}  // namespace

void checkCriterion(const Criterion& criterion, GLenum inputFormat) {
    const std::string problem = criterion.problemForSampleBits(sampleDepth(inputFormat));
    if (!problem.empty()) throw Error("criterion '" + criterion.toString() + "': " + problem);
}

void defineCriterion(gl::ProgramBuilder& builder, Connectivity connectivity, const Criterion& criterion,
                     GLenum inputFormat) {
    // The criterion's number is a uniform (setCriterionNumber), not a
    // literal: one program serves every threshold, level and delta, so that
    // a host moving a threshold builds nothing new.
    builder.define("CONNECTIVITY", neighbourCount(connectivity));
    builder.define(inputFormatDefine(inputFormat));
    switch (criterion.kind) {
        case Criterion::Kind::Binary:
            builder.define("CRITERION_BINARY");
            if (criterion.level != 0) builder.define("BINARY_LEVEL", "criterionNumber");
            break;
        case Criterion::Kind::Segments: builder.define("CRITERION_SEGMENTS"); break;
        case Criterion::Kind::Threshold:
            builder.define("CRITERION_THRESHOLD");
            builder.define("THRESHOLD", "criterionNumber");
            break;
        case Criterion::Kind::Delta:
            builder.define("CRITERION_DELTA");
            builder.define("DELTA", "criterionNumber");
            break;
    }
}

void defineNoInput(gl::ProgramBuilder& builder, Connectivity connectivity) {
    builder.define("CONNECTIVITY", neighbourCount(connectivity));
    builder.define("NO_INPUT");
}

void setCriterionNumber(gl::Program& program, const Criterion& criterion, GLenum inputFormat) {
    std::int64_t number = 0;
    switch (criterion.kind) {
        case Criterion::Kind::Binary: number = criterion.level; break;
        case Criterion::Kind::Segments: return;
        case Criterion::Kind::Threshold: number = criterion.threshold; break;
        case Criterion::Kind::Delta: number = criterion.delta; break;
    }
    if (number == 0 && criterion.kind == Criterion::Kind::Binary) return;
    // Compared as unsigned for integer textures (32-bit values exceed a
    // float's exact range), as a float otherwise (at most 65535 for the
    // normalized formats, exact; a float texture's own rounding for GL_R32F).
    const std::string format = inputFormatDefine(inputFormat);
    if (format == "INPUT_UINT" || format == "INPUT_UINT64") {
        program.set("criterionNumber", unsigned(number));
    } else {
        program.set("criterionNumber", float(number));
    }
}

std::string criterionVariant(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat) {
    // The kind, not the number, which is a uniform: "binary" and "binary:L"
    // differ in text (a level of 0 means nonzero, which is not "> 0" for a
    // float texture's negative values), every level L > 0 shares one program.
    std::string kind;
    switch (criterion.kind) {
        case Criterion::Kind::Binary: kind = criterion.level != 0 ? "binary:level" : "binary"; break;
        case Criterion::Kind::Segments: kind = "segments"; break;
        case Criterion::Kind::Threshold: kind = "threshold"; break;
        case Criterion::Kind::Delta: kind = "delta"; break;
    }
    return std::string(inputFormatDefine(inputFormat)) + "/" + std::to_string(neighbourCount(connectivity)) + "/" +
           kind;
}

std::string noInputVariant(Connectivity connectivity, const NodeSize& node) {
    return "no input/" + std::to_string(neighbourCount(connectivity)) + "/" + std::to_string(node.width) + "x" +
           std::to_string(node.height) + "x" + std::to_string(node.depth);
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
