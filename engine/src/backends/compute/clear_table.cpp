#include <algorithm>

#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::backends::compute {

// glsl/clear_table.comp: the table's starting values for `count` entries.
void clearTable(Frame& frame, std::uint32_t count) {
    auto scope = frame.timer.scope("clear_table");
    gl::Program& program = frame.programs.use("clear_table", frame.resources);
    program.set("count", unsigned(count));
    glBindImageTexture(kTableImage, frame.resources.table.id(), 0, GL_TRUE, 0, GL_WRITE_ONLY, GL_R32UI);
    // Rows of at most 65535 groups (the least GL_MAX_COMPUTE_WORK_GROUP_COUNT).
    constexpr std::uint64_t kRow = 65535;
    const std::uint64_t groups = (std::uint64_t(count) + kClearThreads - 1) / kClearThreads;
    dispatch(int(std::min(groups, kRow)), int((groups + kRow - 1) / kRow));
}

}  // namespace glccl::backends::compute
