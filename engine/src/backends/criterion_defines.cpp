#include "criterion_defines.hpp"

namespace glccl::backends {

namespace {

const char* inputFormatDefine(GLenum internalFormat) {
    switch (internalFormat) {
        case GL_R16: return "INPUT_UNORM16";
        case GL_R32F: return "INPUT_FLOAT";
        case GL_R8UI: return "INPUT_UINT";
        default: return "INPUT_UNORM8";
    }
}

}  // namespace

void defineCriterion(gl::ProgramBuilder& builder, Connectivity connectivity, const Criterion& criterion,
                     GLenum inputFormat) {
    builder.define("CONNECTIVITY", connectivity == Connectivity::Eight ? 8 : 4);
    builder.define(inputFormatDefine(inputFormat));
    switch (criterion.kind) {
        case Criterion::Kind::Binary: builder.define("CRITERION_BINARY"); break;
        case Criterion::Kind::Segments: builder.define("CRITERION_SEGMENTS"); break;
        case Criterion::Kind::Threshold:
            builder.define("CRITERION_THRESHOLD");
            builder.define("THRESHOLD", criterion.threshold);
            break;
    }
}

std::string criterionVariant(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat) {
    return std::string(inputFormatDefine(inputFormat)) + (connectivity == Connectivity::Eight ? "/8/" : "/4/") +
           criterion.toString();
}

NodeSize NodeSize::of(Connectivity connectivity, const Criterion& criterion) {
    if (criterion.kind != Criterion::Kind::Binary) return {1, 1};
    return connectivity == Connectivity::Eight ? NodeSize{2, 2} : NodeSize{2, 1};
}

}  // namespace glccl::backends
