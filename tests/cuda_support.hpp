#pragma once
// Shared by the cuda_* tests: the one place that decides whether a CUDA test
// can run here, and skips it (tests/skip.hpp) with the driver's reason when not.

#include <string>

#include "glccl/cuda_labeler.hpp"
#include "skip.hpp"

namespace glccl::test {

// Returns when a CUDA device is usable; otherwise skips the calling test.
inline void requireCudaOrSkip() {
    std::string why;
    if (!cuda::available(&why)) skipTest("no usable CUDA device: " + why);
}

}  // namespace glccl::test
