#pragma once
// glccl::Session: the front door for images and volumes in host memory, in
// files too large for it, and in CUDA device memory. Each call is routed
// once (chooseRoute, glccl/route.hpp) and the route is carried down: the
// image goes to the engine it names (glccl/engine.hpp), or, past one call
// of that engine, to the tiles (bricks of a volume), which hand every piece
// to engines of the same backend without routing again.
//
//   glccl::Session session;                                   // makes nothing yet
//   glccl::Labeling labeling = session.label(image, options); // routed, labeled
//
//   host image --route()--> cpu engine | reference | cuda's host route
//                           | compute, raster: upload into the Session's
//                             headless context (OffscreenLabeler)
//                           | pieces: labelInPieces (tiles/bricks)
//   file too large for memory --labelTiled()--> route (streamed) --> pieces
//   CUDA device memory --route()--> deviceEngine() --> Engine::labelDevice
//
// The Session keeps what it makes for the next call: the engines (the cpu
// engine's threads, cuda's device buffers), and the headless GL context,
// which it makes only when a GL engine is a candidate for a call (auto on
// a large image where EGL lists a GPU, or a GL backend asked for): a
// Session that labels with the cpu engine, the reference or cuda never
// loads a GL driver's context, and runs where no GL driver exists.
//
// Thread-safety: one Session is used by one thread at a time (a GL context
// is current on one thread); the Python module shares one under a lock.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glccl/context_info.hpp"
#include "glccl/engine.hpp"
#include "glccl/image_source.hpp"
#include "glccl/label_options.hpp"
#include "glccl/label_sink.hpp"
#include "glccl/route.hpp"
#include "glccl/tiled.hpp"
#include "glccl/types.hpp"

namespace glccl {

class OffscreenLabeler;  // glccl/offscreen.hpp

class Session {
public:
    struct Options {
        // The headless context of the GL engines, when one is made.
        HeadlessContextOptions context;
        // The cpu engine's threads: 0 for the cores this process may run on.
        int threads = 0;
        // Non-empty: never make a GL context, and say this where a GL engine
        // is asked for (a process forked from one whose GL context and
        // driver threads it cannot use).
        std::string noContext;
    };

    Session();
    explicit Session(const Options& options);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // The route of `input` with `options` here: what label() runs. Makes the
    // headless context only where a GL engine is a candidate. Throws
    // glccl::Error where the backend cannot run here or take the input.
    Route route(const InputDescription& input, const LabelOptions& options);
    // The same for a host image, checked as label() checks it first
    // ("glccl::Session::label(): " errors).
    Route route(const ImageView& image, const LabelOptions& options);

    // Labels a 1-channel image (any criterion) or a 4-channel image
    // (threshold only), 2-D or a volume, in host memory: routed once, then
    // the route's engine or the tiles (an image past one call of its
    // engine gets exactly the labels and table of one piece). Labels into
    // `labels` (every element written), the table into `table` (storage
    // reused). `timings`, if given, receives the per-stage device times
    // (none for pieces). Throws glccl::Error starting with
    // "glccl::Session::label(): " for a bad image or a backend that cannot
    // run here or take the image, or the engine's own error when labeling
    // fails.
    void label(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
               std::vector<Component>& table, StageTimings* timings = nullptr);
    // The same by a route from route() for this image (nothing is chosen
    // again): one route for a file checked, read and labeled.
    void label(const ImageView& image, const Route& route, const LabelOptions& options, std::uint32_t* labels,
               std::vector<Component>& table, StageTimings* timings = nullptr);
    // Into a Labeling, reusing its storage.
    void label(const Image& image, const LabelOptions& options, Labeling& out, StageTimings* timings = nullptr);
    Labeling label(const Image& image, const LabelOptions& options, StageTimings* timings = nullptr);

    // A source read piece by piece (a file too large for memory, or one the
    // caller wants in tiles: options.tileWidth ...) into `sink`, routed once
    // as streamed (pieces always). Errors as labelInPieces().
    TiledResult labelTiled(const ImageSource& source, const TiledOptions& options, LabelSink& sink);
    // The same by a route from route() for this source (nothing is chosen
    // again; the source goes in pieces whatever route.pieces says). The
    // source is checked against the route's engine as the router would.
    TiledResult labelTiled(const ImageSource& source, const Route& route, const TiledOptions& options,
                           LabelSink& sink);
    // An image or volume in memory in tiles (bricks) into a Labeling: the
    // pieces' labeling of an image that one call would take too.
    Labeling labelTiled(const Image& image, const TiledOptions& options, TiledResult* result = nullptr);

    // The engine that reads CUDA device memory, by a route from route() for
    // such an input, on CUDA device `cudaDevice`, kept for the next call
    // there. Throws glccl::Error where the route's engine does not read it.
    Engine& deviceEngine(const Route& route, int cudaDevice);

    // Called as TiledOptions::progress by the labelings that go in pieces
    // (false stops them with glccl::Cancelled); empty: none.
    void setTiledProgress(std::function<bool(const TiledProgress&)> progress);

    // The region terms of `request` (glccl/region_properties.hpp) for the
    // labels and table the last label() gave (`labels` 1..n in host memory,
    // `table` its table): gathered by the engine that labeled them, on the
    // GPU where it can (Engine::measureTerms), else on the host; the same
    // totals either way. A labeling in pieces, or of device memory, is
    // measured on the host. An intensity of another shape than `labels`, or
    // labels of another shape than the last label()'s where its engine
    // measures them, is refused. finalizeProperties() turns the totals into
    // columns.
    RegionTotals measureTerms(const TermRequest& request, const IntensitySamples* intensity, const LabelSamples& labels,
                              const std::vector<Component>& table, int threads = 0);

    // The backend of the last label() (Backend::Auto before the first).
    Backend backend() const;
    // Where `backend` labels here, for summaries: "CPU (16 threads)", the GL
    // renderer and its EGL platform, the CUDA device; "" where it cannot run.
    std::string device(Backend backend);
    // Why `backend` cannot run here, "" where it can (auto always can); the
    // GL backends make the headless context to answer.
    std::string whyUnavailable(Backend backend);

    // The headless context and its Labeler, made now where they are not
    // yet, for labeling textures of one's own (an ImageTexture uploaded
    // once and labeled by several backends). Throws glccl::Error with
    // whyNoContext() where none can be made.
    OffscreenLabeler& offscreen();
    // Whether the headless context has been made; why none can be, once a
    // try failed ("no headless GL context: <HeadlessContext's error>"),
    // else "".
    bool hasContext() const;
    const std::string& whyNoContext() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// What a backend is here, for someone choosing one (glccl.backends(), the
// command line's `glccl backends`).
struct BackendReport {
    Backend backend = Backend::Auto;
    std::string whyNot;  // why it cannot run here, "" where it can
    // Where it labels: "CPU (16 threads)", "<GL renderer> (<EGL platform>)",
    // the CUDA device; "" for auto and where it cannot run.
    std::string device;
    bool gpu = false;  // it labels on a GPU
    // A GL engine whose context is a software renderer (Mesa's llvmpipe):
    // its shaders run on the CPU, far slower than the cpu engine.
    bool softwareRenderer = false;
    // What to expect of it here, in a sentence: auto's choice, a software
    // renderer's cost, the reference's purpose; "" where nothing needs saying.
    std::string note;
};

// Every backend, auto first, as `session` finds them here. Makes the
// headless GL context to answer for the GL engines, and their engines.
std::vector<BackendReport> describeBackends(Session& session);

// Session::labelTiled through a Session of its own, for one call (its
// engines and its context go with it).
TiledResult labelTiled(const ImageSource& source, const TiledOptions& options, LabelSink& sink);
Labeling labelTiled(const Image& image, const TiledOptions& options, TiledResult* result = nullptr);

}  // namespace glccl
