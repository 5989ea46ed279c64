#pragma once
// The router: which engine labels an input, and whether the input goes in
// pieces (tiles, or bricks of a volume). Every engine declares what it takes
// (glccl/capabilities.hpp); chooseRoute() resolves the backend of a call
// from those declarations and the input, once per call, and its Route is
// carried down: the entries (glccl::Session for host and CUDA device
// memory, glccl::Labeler for a GL texture) hand the input to the engine it
// names, or to the tiles, which hand each piece to that engine again
// without routing.
//
//   input (where it lives, shape, channels, sample bits)
//     + options (backend, criterion, connectivity)
//     + the place (its GL context, made only when asked; CUDA)  --chooseRoute-->  Route

#include <cstdint>
#include <string>

#include "glccl/backend.hpp"
#include "glccl/capabilities.hpp"
#include "glccl/context_info.hpp"
#include "glccl/label_options.hpp"
#include "glccl/types.hpp"

namespace glccl {

struct Route;

// The largest side of a texture the GL engines label, whatever the context
// allows: their IDs and keys keep 15 bits per coordinate (common.glsl).
constexpr int kLargestTextureSide = 32768;

// Auto's rule for host memory where a GPU engine runs: the predicted time of
// the cpu engine against that of the GPU route (upload, labeling, table and
// download), each a fixed part plus parts per million elements and per
// million runs (InputDescription::runsPerElement), in milliseconds. The cpu
// engine's parts per element and per run are for one thread, scaled to the
// threads it runs with (cpu::threadsFor) by Amdahl's law with
// kCpuSerialFraction; the fixed parts are the call's own. Fitted to
// glccl.label on numpy by bench/auto_crossover.py (docs/benchmarks.md,
// "auto"); the bus sets most of the GPU route's time.
struct HostCost {
    double fixedMs = 0.0;
    double msPerMillionElements = 0.0;
    double msPerMillionRuns = 0.0;
    // `scale`: the share of the one-thread time that the threads take.
    constexpr double at(double elements, double runs, double scale = 1.0) const {
        return fixedMs + scale * (msPerMillionElements * elements * 1e-6 + msPerMillionRuns * runs * 1e-6);
    }
};
constexpr double kCpuSerialFraction = 0.04;
constexpr HostCost kCpuImageCost{0.0819, 1.1187, 32.057};
constexpr HostCost kGpuImageCost{0.2014, 0.1703, 0.253};
constexpr HostCost kCpuVolumeCost{0.6311, 1.8397, 53.199};
constexpr HostCost kGpuVolumeCost{0.4249, 0.1374, 0.171};
// The runs per element assumed of host memory whose samples were not looked
// at (a file streamed in pieces): between sparse shapes and noise.
constexpr double kUnsampledRunsPerElement = 0.02;

// Is the cpu engine predicted to label this host input, with `threads`
// threads (0: every core), faster than the GPU route (HostCost)?
bool cpuPredictedFaster(const InputDescription& input, int threads);

// Where a call is labeled, as the router sees it: the GL context its GL
// engines would label in, asked for only when a GL engine is a candidate.
class Place {
public:
    virtual ~Place() = default;
    // The route of `input` with `options` here: chooseRoute() at this place.
    // Every entry asks this, once per call (glccl::Session, glccl::Labeler).
    Route route(const InputDescription& input, const LabelOptions& options);
    // The GL context the GL engines label in; nullptr where none can be made
    // (whyNoContext() then says why). May make a headless context on the
    // first call.
    virtual const ContextInfo* context() = 0;
    virtual std::string whyNoContext() = 0;
    // Whether a GL context here would run on a GPU, answered without making
    // one where none exists yet (EGL's device list): false where EGL lists
    // only software rasterizers or nothing; `why`, if given, then says why
    // no GPU context can be had ("" for a software rasterizer).
    virtual bool gpuContext(std::string* why = nullptr) = 0;
};

// A place whose context is known already: a context that exists (a host's
// renderer, a headless context made before), or none, with why.
class KnownPlace : public Place {
public:
    explicit KnownPlace(const ContextInfo* context, std::string whyNoContext = "");
    const ContextInfo* context() override;
    std::string whyNoContext() override;
    bool gpuContext(std::string* why = nullptr) override;

private:
    const ContextInfo* context_;
    std::string whyNoContext_;
};

// The declaration of `backend` (not auto). `context`: the GL context the
// call labels in, nullptr where none could be made; then the GL engines
// cannot run, `whyNoContext` (e.g. "no headless GL context: <EGL's error>")
// says why, and their largest extent is 0. The cpu engine, the reference
// and cuda need no context. Cheap after the first call for cuda (the CUDA
// driver is asked once per process). Thread-safe.
EngineCapabilities capabilitiesOf(Backend backend, const ContextInfo* context, const std::string& whyNoContext = "");

// Why `capabilities` cannot label `input` with `options` in one call or in
// pieces ("" when it can): the engine does not run here, or it does not
// take the input's residence, samples, channels or criterion. The message
// has no entry prefix; callers add theirs.
std::string whyRefused(const EngineCapabilities& capabilities, const InputDescription& input,
                       const LabelOptions& options);

struct Route {
    Backend backend = Backend::Cpu;  // never auto
    // The input goes in pieces (tiles, or bricks of a volume): it exceeds
    // one call of the backend, or it is streamed from a file.
    bool pieces = false;
    // The chosen engine's declaration: what one call of it takes, which the
    // pieces are planned within.
    EngineCapabilities engine;
    // A line for the user where the choice is not the obvious one (auto on
    // a machine where no GPU engine runs: "<why>; auto runs the cpu
    // backend"), "" otherwise.
    std::string note;
};

// Whether the route labels in GL contexts the pieces' workers make: a GL
// engine (compute, raster) in pieces. Those contexts are desktop OpenGL,
// so a front end asked for an OpenGL ES context refuses such a route.
bool piecesMakeDesktopContexts(const Route& route);

// The one place that resolves a backend. A named backend is taken as named,
// or refused. Auto takes the fastest engine that runs here and takes the
// input, by one rule:
//   CUDA device memory  cuda, the only engine that reads it;
//   a GL texture        compute (OpenGL 4.3), else raster, else cuda
//                       (through CUDA-GL interop); on a software rasterizer
//                       the cpu engine, whose download of the texture costs
//                       less than shaders that run on the CPU;
//   host memory         the cpu engine where it is predicted faster than
//                       the GPU route (cpuPredictedFaster: small inputs,
//                       and sparse ones, whose labels the bus takes longer
//                       to carry than the cores to write) and where no GPU
//                       engine runs here; else cuda (its host route, no
//                       GL), then compute on a GPU's GL context, then the
//                       cpu engine.
// A neighbourhood other than the named connectivities (LabelOptions::
// neighbourhood) goes to the cpu engine, the one of these that labels it.
// The reference is never chosen by auto. The GL context is asked for only
// when a GL engine is a candidate. Throws glccl::Error "the <name> backend
// cannot run here: <why>" where the backend does not run here, or
// whyRefused()'s words where it does not take the input; callers add their
// entry's prefix.
Route chooseRoute(const InputDescription& input, const LabelOptions& options, Place& place);

// Why `backend` cannot label a texture of the context described by
// `context`, or "" when it can (auto always can).
std::string whyUnavailable(Backend backend, const ContextInfo& context);

// Is the context's renderer one that runs on the CPU (Mesa's llvmpipe or
// softpipe, SwiftShader)?
bool isSoftwareRenderer(const ContextInfo& context);

}  // namespace glccl
