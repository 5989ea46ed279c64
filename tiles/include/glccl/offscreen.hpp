#pragma once
// Labeling host images without a window: the one executor of a route
// (glccl/route.hpp) for an image in host memory. The router's choice runs
// here and nowhere else:
//   cpu      the reference on the host image itself (no GL round trip)
//   cuda     CUDA's own host route: page-locked upload, labeling, download
//   compute, raster
//            an upload into a texture of a headless EGL context, the
//            Labeler, the download of labels and table
//   pieces   an image past one call of its backend: tiles (labelTiled)
// It lives with the tiles, which it calls for pieces; their workers label
// each piece through labelOneCall(), which never tiles again. (The
// full-screen-pass yardstick is glccl/yardstick.hpp, in any context.)

#include <functional>
#include <memory>
#include <string>

#include "glccl/context.hpp"
#include "glccl/labeler.hpp"
#include "glccl/route.hpp"
#include "glccl/tiled.hpp"
#include "glccl/types.hpp"

namespace glccl {

class OffscreenLabeler {
public:
    // What to do where no headless context can be made (no EGL at all).
    enum class NoContext {
        Throw,        // the constructor throws HeadlessContext's error
        LabelOnHost,  // the cpu backend (and auto, for it) labels on the host; the others say why not
    };
    // Creates a headless context (EGL device, else Mesa surfaceless).
    explicit OffscreenLabeler(const HeadlessContext::Options& options = {}, NoContext noContext = NoContext::Throw);
    ~OffscreenLabeler();
    // One that makes no context and calls no GL at all: the cpu backend (and
    // auto, for it) labels on the host, the others say `why` they cannot
    // (say, a process forked from one whose GL context and driver threads
    // it cannot use).
    static std::unique_ptr<OffscreenLabeler> hostOnly(const std::string& why);

    // Labels a 1-channel image (any criterion) or a 4-channel image
    // (threshold only) with options.backend, through the route chooseRoute
    // gives (route()); backend() says which backend auto resolved to. An
    // image with a side past the backend's largest (GL_MAX_TEXTURE_SIZE for
    // the GL engines) is labeled in tiles, with the same labels and table
    // as in one piece. Timings, if given, receive the per-stage GPU times
    // (options.timings is implied; none for tiled images). Throws
    // glccl::Error starting with "glccl::OffscreenLabeler::label(): " for a
    // bad image or a backend that cannot run here or take the image, or the
    // Labeler's own error ("glccl::Labeler...") when labeling fails.
    Labeling label(const Image& image, const LabelOptions& options, StageTimings* timings = nullptr);
    // The same into `out`, reusing its label and table storage, and reusing
    // the input texture of the previous call when the image has its size,
    // channels and sampleBits: a batch of same-sized images (or a video) then
    // allocates nothing per image on the GPU or the host (the transfers'
    // pixel buffers are kept too). On the GL engines it costs one upload
    // (ImageTexture::update), the labeling, one download of the labels (4
    // bytes a pixel, Labeler::downloadLabels) and of the table. The cuda
    // backend takes CUDA's own route instead (upload and download through
    // two page-locked chunks, no texture), the cpu backend reads the image
    // where it is, and an image past one call goes in tiles (backend()).
    void label(const Image& image, const LabelOptions& options, Labeling& out, StageTimings* timings = nullptr);
    Labeling label(const Image& image, Connectivity connectivity, Criterion criterion, StageTimings* timings = nullptr);
    // The same from pixels the caller owns into labels the caller owns
    // (width x height uint32, row-major, fully overwritten) and the table
    // into `components` (its storage reused): the host copies nothing beyond
    // the transfers themselves. The Python module hands numpy arrays through
    // it.
    void label(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
               std::vector<Component>& components, StageTimings* timings = nullptr);
    // The same for an image that one call of the backend takes: a tile
    // worker's piece. Throws glccl::Error where the route would need pieces.
    void labelOneCall(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                      std::vector<Component>& components, StageTimings* timings = nullptr);

    // Called as TiledOptions::progress by the labelings that go in pieces
    // (false stops them with glccl::Cancelled); empty: none.
    void setTiledProgress(std::function<bool(const TiledProgress&)> progress);

    // The route of `image` with `options` here: what label() runs. Throws
    // as label() does for a backend that cannot run here or take it.
    Route route(const ImageView& image, const LabelOptions& options) const;

    // The backend the last label() ran (Backend::Auto before the first).
    // The cpu and cuda backends label a host image without the Labeler, and
    // so do tiles: after such a call the Labeler holds no labels of it. The
    // GL engines label through labeler().
    Backend backend() const;

    // Whether the headless context exists (always, with NoContext::Throw),
    // and why not ("no headless GL context: <HeadlessContext's error>").
    bool hasContext() const;
    const std::string& whyNoContext() const;

    // The Labeler in the headless context (make the context current first):
    // label textures of that context with it, e.g. an ImageTexture
    // (glccl/texture.hpp) uploaded once and labeled by several backends.
    // These three throw glccl::Error (whyNoContext()) without a context.
    Labeler& labeler();

    // Makes the headless context current on this thread, as label() does.
    void makeCurrent();
    const HeadlessContext& context() const;

private:
    struct HostOnly {};
    OffscreenLabeler(HostOnly, const std::string& why);

    // The executors of the route, one per kind.
    void labelOnHost(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                     std::vector<Component>& components, StageTimings* timings);
    void labelWithCuda(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                       std::vector<Component>& components, StageTimings* timings);
    void labelTexture(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                      std::vector<Component>& components, StageTimings* timings);
    void labelInPieces(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                       std::vector<Component>& components, StageTimings* timings);
    void checkImage(const ImageView& image, const LabelOptions& options) const;

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace glccl
