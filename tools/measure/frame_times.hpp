#pragma once
// Per-frame wall times of one image labeled again and again in a GL context,
// as a renderer labels its frames: what `glccl bench --frames` reports.

#include <cstddef>
#include <vector>

#include "glccl/labeler.hpp"
#include "glccl/texture.hpp"
#include "glccl/types.hpp"

namespace glccl {
class OffscreenLabeler;
}

namespace glccl::bench {

// Labels a texture the bench made. An OpenGL ES 3.0 context cannot say a
// texture's size and format (glGetTexLevelParameteriv is ES 3.1): a 2-D
// one is labeled with those the ImageTexture knows, as a renderer there
// labels its own.
inline std::uint32_t labelResident(Labeler& labeler, const ImageTexture& texture, const LabelOptions& options) {
    const ContextInfo& info = labeler.contextInfo();
    const bool describes = !info.es || info.major > 3 || (info.major == 3 && info.minor >= 1);
    if (describes || texture.depth() != 1) return labeler.label(texture.id(), options);
    return labeler.label(texture.id(), texture.width(), texture.height(), texture.internalFormat(), options);
}

struct FrameTimes {
    std::vector<double> label;           // label() + glFinish(), ms
    std::vector<double> labelAndTable;   // label() + components() + glFinish(), ms
    std::size_t components = 0;          // rows of the table of the last frame
    // cuda only: frames of CUDA-GL interop that move the frame's data and
    // label nothing (measureCudaInteropFrames), ms
    std::vector<double> interop;
};

// Uploads `image` as a texture of `offscreen`'s context (made current here)
// and labels it 1 + `frames` times with offscreen's Labeler (timings off,
// reserved for its size first), as a renderer labels a frame: the first of
// each kind untimed, then per frame label() + glFinish() and label() +
// components() + glFinish(), interleaved. The table is downloaded into one
// vector reused across frames. The texture is forgotten by the Labeler and
// deleted before the call returns. Throws glccl::Error as Labeler::label()
// does. Cost: one upload, 2 + 2 * frames labelings.
FrameTimes labelFrames(OffscreenLabeler& offscreen, const Image& image, const LabelOptions& options, int frames);

}  // namespace glccl::bench
