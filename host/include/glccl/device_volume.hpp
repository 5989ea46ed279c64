#pragma once
// Images, batches of images and volumes in CUDA device memory, as the
// engines that read device memory take them (glccl::Engine::labelDevice,
// glccl::cuda::ImageLabeler). Plain descriptions: no CUDA header is needed
// to make one.

#include <cstddef>
#include <cstdint>

// cudaStream_t is a CUstream_st*; declared here so that callers need no CUDA
// headers to pass one.
struct CUstream_st;

namespace glccl {

// `depth` slices of `height` rows of `width` elements, each `channels` (1,
// or 4 for RGBA) unsigned samples of `sampleBits` bits (8, 16, 32 or 64,
// little-endian), element (x, y, z) at
// (const char*) data + z * slicePitch + y * rowPitch + x * channels * sampleBits / 8.
// A 2-D image is a volume of depth 1 (its slicePitch may be 0); a batch of N
// images is a volume of depth N labeled with a 2-D connectivity, each slice
// on its own.
struct DeviceVolume {
    const void* data = nullptr;
    std::size_t rowPitch = 0;    // bytes, at least width * channels * sampleBits / 8
    std::size_t slicePitch = 0;  // bytes, at least height * rowPitch (0 for one slice: packed)
    int width = 0;
    int height = 0;
    int depth = 1;
    int channels = 1;
    int sampleBits = 8;
};

// Where the labels go in device memory: the uint32 label of element
// (x, y, z) at (char*) data + z * slicePitch + y * rowPitch + x * 4.
struct DeviceVolumeLabels {
    std::uint32_t* data = nullptr;
    std::size_t rowPitch = 0;    // bytes, a multiple of 4, at least width * 4
    std::size_t slicePitch = 0;  // bytes, a multiple of 4, at least height * rowPitch (0 for one slice)
};

}  // namespace glccl
