#pragma once
// Everything an application needs from glccl in one include: the front door
// for host images, files and CUDA device memory (Session), labeling in the
// caller's GL context (Labeler), the engines and the router that chooses
// among them, headless contexts, uploading host images (ImageTexture),
// tiles and bricks, the shared vocabulary (Image, Labeling, Component,
// Connectivity, Criterion), the CPU reference, comparison and image I/O.
// It sits with the Session, above every layer it gathers.
//
// Link glccl::glccl (CMake) or `pkg-config --libs glccl`: both bring every
// library below, the CUDA path's too where glccl was built with it. Its
// header glccl/cuda_labeler.hpp is included here when it is on the include
// path, i.e. when glccl was built and installed with CUDA.

#include "glccl/backend.hpp"
#include "glccl/canonical.hpp"
#include "glccl/capabilities.hpp"
#include "glccl/compare.hpp"
#include "glccl/context.hpp"
#include "glccl/engine.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "glccl/labeler.hpp"
#include "glccl/npy_image_writer.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/reference.hpp"
#include "glccl/route.hpp"
#include "glccl/session.hpp"
#include "glccl/texture.hpp"
#include "glccl/tiled.hpp"
#include "glccl/tuning.hpp"
#include "glccl/types.hpp"
#include "glccl/version.hpp"

#if __has_include("glccl/cuda_labeler.hpp")
#include "glccl/cuda_labeler.hpp"
#endif
