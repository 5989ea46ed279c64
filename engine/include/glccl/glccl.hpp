#pragma once
// Everything an application needs from glccl in one include: labeling in the
// caller's GL context (Labeler) with the backends to choose from and the
// router, headless contexts, uploading host images (ImageTexture),
// the shared vocabulary (Image, Labeling, Component, Connectivity,
// Criterion), the CPU reference, comparison and image I/O.
//
// Link glccl::glccl (CMake) or `pkg-config --libs glccl`. The CUDA path is a
// separate library, glccl::glccl_cuda; its header glccl/cuda_labeler.hpp is
// included here when it is on the include path, i.e. when glccl was built
// and installed with CUDA. Offscreen labeling of host images of any size
// (glccl/offscreen.hpp) is in glccl::glccl_tiles, included here likewise.

#include "glccl/backend.hpp"
#include "glccl/canonical.hpp"
#include "glccl/compare.hpp"
#include "glccl/context.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "glccl/labeler.hpp"
#include "glccl/npy_image_writer.hpp"
#include "glccl/reference.hpp"
#include "glccl/route.hpp"
#include "glccl/texture.hpp"
#include "glccl/tuning.hpp"
#include "glccl/types.hpp"
#include "glccl/version.hpp"

#if __has_include("glccl/offscreen.hpp")
#include "glccl/offscreen.hpp"
#endif
#if __has_include("glccl/cuda_labeler.hpp")
#include "glccl/cuda_labeler.hpp"
#endif
