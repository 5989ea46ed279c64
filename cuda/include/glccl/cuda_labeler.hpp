#pragma once
// The CUDA path: Stava & Benes' tiled union-find labeling (GPU Computing Gems,
// ch. 35), past the paper's limits (any size, 4/8-connectivity, all criteria),
// with the same output contract as every other backend.
//
// Built only when a CUDA compiler is found (GLCCL_HAVE_CUDA). All functions
// throw glccl::Error with the CUDA error string on failure; available()
// tells beforehand whether a device and driver are present.

#include <string>

#include "glccl/types.hpp"

namespace glccl::cuda {

// True when a CUDA driver and at least one device are usable; otherwise false
// and, if why is given, the reason ("no CUDA device: ...").
bool available(std::string* why = nullptr);

// Name of device 0 ("NVIDIA H200"), for logs.
std::string deviceName();

// Labels a host image (1 or 4 channels). Timings, if given, receive the
// per-kernel device times (CUDA events) keyed by kernel name.
Labeling labelImage(const Image& image, Connectivity connectivity, Criterion criterion,
                    StageTimings* timings = nullptr);

// Labels the GL texture `inputTexture` (GL_R8 for 1 channel, GL_RGBA8 for 4,
// width x height) in the current GL context through CUDA-GL interop, writes
// the canonical labels into `labelTexture` (GL_R32UI, same size) and returns
// the component table (label i + 1 at index i). No host copy of the pixels.
std::vector<Component> labelGlTexture(unsigned inputTexture, unsigned labelTexture, int width, int height,
                                      int channels, Connectivity connectivity, Criterion criterion,
                                      StageTimings* timings = nullptr);

}  // namespace glccl::cuda
