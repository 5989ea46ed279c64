#include "download_table.hpp"

namespace glccl::raster {

void DownloadTablePass::run(const PassContext& context, const TableTargets& table, std::uint32_t count,
                            DownloadedTable& block) {
    auto scope = context.timer.scope(kStage);
    block.count = count;
    block.width = table.width;
    const int rows = ceilDiv(int(count), table.width);
    block.boxes.resize(std::size_t(table.width) * rows * 4);
    block.sums.resize(block.boxes.size());
    block.roots.resize(std::size_t(table.width) * rows);
    gl::readTextureRect(table.boxes.texture, 0, 0, table.width, rows, GL_RGBA, GL_FLOAT, block.boxes.data());
    countWait();  // the first read waits; the others find the table done
    gl::readTextureRect(table.sums.texture, 0, 0, table.width, rows, GL_RGBA, GL_FLOAT, block.sums.data());
    gl::readTextureRect(table.roots.texture, 0, 0, table.width, rows, GL_RED, GL_FLOAT, block.roots.data());
    context.checkPass(kStage);
}

}  // namespace glccl::raster
