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

// Volume families, 1-channel binary volumes (0 / 255) of w x h x d voxels,
// named FAMILY@WxHxD on the command line (validate, bench):
//   noise<P>  uniform random, P percent foreground (noise30)
//   blobs     a uniform random field, averaged over 5x5x5 voxels (mirrored
//             at the faces), foreground above 0.52: about 22 %, many blobs
//   balls     solid balls of radius n/32+2 .. n/10+2 (n the shortest side),
//             n/8 of them at random centres
//   hilbert   a 3-D Hilbert curve at spacing 2 (its points at even
//             coordinates, the voxels between them set): one thin component
// Throws glccl::Error for an unknown family or a side outside 1..32768.
Image generateVolumeFamily(const std::string& family, int width, int height, int depth, std::uint64_t seed = 1);
std::vector<std::string> generatedVolumeFamilies();

// A random 1-channel volume: randomImage's values and density, voxel by voxel.
Image randomVolume(int width, int height, int depth, double density, int levels, std::uint64_t seed);

// Random image for fuzz-like tests: `levels` distinct values (2 = binary
// 0/255) with the given probability of a nonzero pixel, `channels` 1 or 4;
// any sides of 1 or more, at most 2^31 pixels in all.
Image randomImage(int width, int height, double density, int levels, int channels, std::uint64_t seed);

}  // namespace glccl
