#pragma once
// Deterministic generated images: the families used by tests, validate and bench.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glccl/types.hpp"

namespace glccl {

// Family names: noise<percent> (noise50), large, dense_disks, sparse_disks,
// granularity<g>, corridor, spiral, comb, rings, staircase, checkerboard,
// zeros, ones. Returns a 1-channel binary image (0 / 255) of size w x h.
// Throws glccl::Error for an unknown family or a size outside 1..32768.
Image generateFamily(const std::string& family, int width, int height, std::uint64_t seed = 1);

// A generated image of any size the tiled path takes, in bands of rows, top
// to bottom, never more than one band in memory: the rows of
// generateFamily(family, width, height, seed), pixel for pixel, for sides
// up to kMaxStreamedSide. What `glccl generate` streams to .npy.
//
//   glccl::FamilyRows rows("noise50", 40000, 3);
//   std::vector<std::uint8_t> band(std::size_t(40000) * 3);
//   rows.next(3, band.data());
//
// Memory beside the band: a row of blocks for granularity<g>, the disks of
// dense_disks and sparse_disks (12 bytes each, 2500 and 250 per 1024^2
// pixels). Not thread-safe: one caller takes the bands in order.
class FamilyRows {
public:
    static constexpr std::int64_t kMaxStreamedSide = 0x7FFFFFFF;

    // Throws glccl::Error for an unknown family or a side outside
    // 1..kMaxStreamedSide ("glccl::FamilyRows(): size 0x5 is outside ...").
    FamilyRows(const std::string& family, std::int64_t width, std::int64_t height, std::uint64_t seed = 1);
    FamilyRows(FamilyRows&&) noexcept;
    FamilyRows& operator=(FamilyRows&&) noexcept;
    ~FamilyRows();

    std::int64_t width() const { return width_; }
    std::int64_t height() const { return height_; }
    // The first row the next band starts at; height() when all are taken.
    std::int64_t nextRow() const { return nextRow_; }

    // Writes the next `rows` rows (rows x width bytes, 0 or 255) to `out`.
    // Throws glccl::Error for rows outside 1..height() - nextRow().
    void next(std::int64_t rows, std::uint8_t* out);

private:
    struct State;
    std::int64_t width_ = 0, height_ = 0, nextRow_ = 0;
    std::unique_ptr<State> state_;
};

// Every family name generateFamily accepts (noise and granularity with a few
// representative parameters).
std::vector<std::string> generatedFamilies();

// Random image for fuzz-like tests: `levels` distinct values (2 = binary
// 0/255) with the given probability of a nonzero pixel, `channels` 1 or 4.
Image randomImage(int width, int height, double density, int levels, int channels, std::uint64_t seed);

}  // namespace glccl
