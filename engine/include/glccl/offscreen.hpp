#pragma once
// A headless GL context and the Labeler in it: where the GL engines (compute,
// raster) label images in host memory. It does not route: glccl::Session
// routes a host image once and hands it here when the route names a GL
// engine (makeEngine(), glccl/engine.hpp and below), as the tiles' GL workers do with
// each piece. It is also the context for labeling textures of one's own
// with the Labeler (an ImageTexture uploaded once and labeled by several
// backends: glccl validate, glccl bench).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/context.hpp"
#include "glccl/engine.hpp"
#include "glccl/labeler.hpp"
#include "glccl/types.hpp"

namespace glccl {

class OffscreenLabeler {
public:
    // Creates a headless context (HeadlessContext: an EGL device, else Mesa
    // surfaceless), current on the calling thread, and the Labeler in it.
    // Throws HeadlessContext's glccl::Error where no context can be made.
    // Contexts are made and destroyed one at a time in a process, and on a
    // software rasterizer the labelings of all its OffscreenLabelers take
    // turns too (llvmpipe crashes now and then when two contexts of one
    // process draw at once, and it spreads every draw over every core).
    explicit OffscreenLabeler(const HeadlessContext::Options& options = {});
    ~OffscreenLabeler();
    OffscreenLabeler(const OffscreenLabeler&) = delete;
    OffscreenLabeler& operator=(const OffscreenLabeler&) = delete;

    // Labels a host image or volume with the GL engine `backend` (compute or
    // raster; the router took the image for it) into labels and table the
    // caller owns: an upload into a texture kept for the next image of the
    // same size, channels and sampleBits (a batch or a video allocates
    // nothing per image: ImageTexture::update), the labeling, the download
    // of the labels (4 bytes a pixel, Labeler::downloadLabels) and of the
    // table. Makes the context current on the calling thread. `timings`, if
    // given, receives the per-stage GPU times. Throws the Labeler's
    // glccl::Error ("glccl::Labeler...") when labeling fails.
    void label(const ImageView& image, Backend backend, const LabelOptions& options, std::uint32_t* labels,
               std::vector<Component>& table, StageTimings* timings = nullptr);

    // An intensity image uploaded into a texture of the headless context for
    // Labeler::measureTerms, kept (as the labeled image's texture is) for
    // the next intensity of the same size, channels and sampleBits; its GL
    // name, valid until the next call. Makes the context current.
    unsigned intensityTexture(const ImageView& image);

    // The Labeler in the headless context (make the context current first).
    Labeler& labeler();
    // Makes the headless context current on this thread.
    void makeCurrent();
    const HeadlessContext& context() const;
    // Where it labels, for summaries: "<GL renderer> (<EGL platform>)".
    std::string device() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// compute or raster (glccl/engine.hpp's Engine) in the headless context of
// `offscreen`, which the GL engines of one place share (glccl::Session's
// two GL engines: one context, one Labeler). Use it on the thread that
// makes that context current.
std::unique_ptr<Engine> makeEngine(Backend backend, std::shared_ptr<OffscreenLabeler> offscreen);

}  // namespace glccl
