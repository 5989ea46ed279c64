#include "frame_times.hpp"

#include "gl.hpp"  // the engine's GL entry points, before any other GL header

#include <chrono>
#include <cstdint>

#include "glccl/labeler.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/texture.hpp"
#include "transfer_floor.hpp"

namespace glccl::bench {

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The frames of one resident texture; the caller forgets it afterwards.
FrameTimes labelTexture(Labeler& labeler, const ImageTexture& texture, const LabelOptions& options, int frames) {
    LabelOptions untimed = options;
    untimed.timings = false;  // timer queries cost a glFinish of their own
    labeler.reserve(texture.width(), texture.height(), untimed);
    std::vector<Component> table;
    labelResident(labeler, texture, untimed);
    glFinish();
    labelResident(labeler, texture, untimed);
    labeler.components(table);
    // Nothing of the bench's own may be pending when the first frame starts.
    glFinish();

    // The two kinds interleaved, so that a drift of the clocks over the run
    // (boost, thermal) weighs on both alike.
    FrameTimes times;
    times.label.reserve(std::size_t(frames));
    times.labelAndTable.reserve(std::size_t(frames));
    for (int frame = 0; frame < frames; ++frame) {
        auto start = Clock::now();
        labelResident(labeler, texture, untimed);
        glFinish();
        times.label.push_back(millisecondsSince(start));

        start = Clock::now();
        labelResident(labeler, texture, untimed);
        labeler.components(table);
        glFinish();
        times.labelAndTable.push_back(millisecondsSince(start));
    }
    times.components = table.size();
#ifdef GLCCL_HAVE_CUDA
    if (options.backend == GpuBackend::Cuda) {
        const int channels = texture.internalFormat() == GL_RGBA8 ? 4 : 1;
        times.interop = measureCudaInteropFrames(texture.id(), texture.width(), texture.height(), channels, frames);
    }
#endif
    return times;
}

}  // namespace

FrameTimes labelFrames(OffscreenLabeler& offscreen, const Image& image, const LabelOptions& options, int frames) {
    offscreen.makeCurrent();
    Labeler& labeler = offscreen.labeler();
    const ImageTexture texture(image);
    // The next upload may get this texture's name: the cuda backend must not
    // take that for the texture it registered here.
    struct Forget {
        Labeler& labeler;
        unsigned id;
        ~Forget() {
            try {
                labeler.forget(id);
            } catch (...) {
            }
        }
    } forget{labeler, texture.id()};
    return labelTexture(labeler, texture, options, frames);
}

}  // namespace glccl::bench
