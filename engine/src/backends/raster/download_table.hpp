#pragma once
#include <cstdint>
#include <vector>

#include "raster_pass.hpp"
#include "raster_resources.hpp"

namespace glccl::raster {

// The rows of the component table that hold entries, as downloaded
// (component_table.frag): per entry, the box (w-1-min x, h-1-min y, max x,
// max y), the sums (count, sum of x - root x, sum of y - root y, 0) and the
// root's ID bits.
struct DownloadedTable {
    std::uint32_t count = 0;
    int width = 0;  // entries per row
    std::vector<float> boxes, sums;
    std::vector<std::uint32_t> roots;
};

// download_table: the compact block of `count` entries, no more, into
// `block`, whose storage is kept from call to call. A read per target, or
// with `oneRead` (Tuning::rasterTableReads 1; not in WebGL) the three into
// one pixel pack buffer, mapped once: one wait for the GPU, not three.
class DownloadTablePass {
public:
    static constexpr const char* kStage = "download_table";
    void run(const PassContext& context, const TableTargets& table, std::uint32_t count, DownloadedTable& block,
             bool oneRead = false);

private:
    void readOnce(const PassContext& context, const TableTargets& table, int rows, DownloadedTable& block);
    gl::Buffer pack_;
    std::size_t packBytes_ = 0;
};

}  // namespace glccl::raster
