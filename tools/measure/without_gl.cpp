// glccl bench's measurements in a glccl built without OpenGL
// (GLCCL_WITH_GL=OFF): no context, so no frames, no full-screen pass and no
// transfer floor; the labelings of the cpu and reference backends are timed
// as in any build, their floor columns left empty.

#include <string>

#include "frame_times.hpp"
#include "glccl/error.hpp"
#include "transfer_floor.hpp"
#include "yardstick.hpp"

namespace glccl::bench {

namespace {
const char* const kWithoutGl = "glccl is built without OpenGL (GLCCL_WITH_GL=OFF)";
}

FrameTimes labelFrames(OffscreenLabeler&, const Image&, const LabelOptions&, int) {
    throw Error(std::string("glccl::bench::labelFrames(): ") + kWithoutGl);
}

TransferBandwidth measureGlTransferBandwidth(std::size_t, int, int) {
    throw Error(std::string("glccl::bench::measureGlTransferBandwidth(): ") + kWithoutGl);
}

std::optional<TransferBandwidth> transferBandwidth(OffscreenLabeler*, std::size_t, int, std::string* why) {
    if (why) *why = kWithoutGl;
    return std::nullopt;
}

std::optional<double> fullscreenPassMilliseconds(int, int, int) {
    throw Error(std::string("glccl::bench::fullscreenPassMilliseconds(): ") + kWithoutGl);
}

}  // namespace glccl::bench
