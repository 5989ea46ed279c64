#pragma once
// What the volume tests of every layer share: the three connectivities of
// volumes, random test volumes and a voxel setter. Header-only, so that
// host_*, gl_*, cuda_* and tiles_* tests include it alike.

#include <cstdint>
#include <random>

#include "glccl/types.hpp"

namespace glccl::test {

constexpr Connectivity kVolumeConnectivities[] = {Connectivity::Six, Connectivity::Eighteen,
                                                  Connectivity::TwentySix};

// A w x h x d volume of `bits`-bit samples: each voxel foreground with
// probability `density`, its value one of the `values` largest of the
// sample range (so segments of 1..values ids), else 0.
inline Image randomTestVolume(int w, int h, int d, double density, std::uint64_t seed, int bits = 8, int values = 1) {
    Image volume(Shape::volume(w, h, d), 1, bits);
    std::mt19937 rng{std::uint32_t(seed)};
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    std::uniform_int_distribution<int> value(1, values);
    const std::uint32_t top = volume.maxValue();
    for (std::size_t i = 0; i < volume.shape().count(); ++i)
        if (coin(rng) < density) volume.setSample(i, 0, std::uint32_t(top - std::uint32_t(value(rng)) + 1));
    return volume;
}

inline void setVoxel(Image& volume, int x, int y, int z, std::uint32_t value = 255) {
    volume.setSample((std::size_t(z) * std::size_t(volume.height) + std::size_t(y)) * std::size_t(volume.width) +
                         std::size_t(x),
                     0, value);
}

}  // namespace glccl::test
