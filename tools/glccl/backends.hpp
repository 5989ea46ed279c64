#pragma once
// The glccl command's one way to the labeling engines: one glccl::Session
// for a whole run (the front door: each host image routed once, to the cpu
// engine, the reference, cuda's host route, a GL engine through the
// Session's headless context, or tiles past one call), with the wall time
// of each call measured around it, and the Session's headless context for
// the textures that bench and validate label with several backends. The
// context is made only when a GL engine is asked for: a run of the cpu
// engine or the reference makes none, and runs where no GL driver exists.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/labeler.hpp"
#include "glccl/session.hpp"
#include "glccl/texture.hpp"
#include "glccl/types.hpp"

namespace glccl::tools {

struct BackendRun {
    Labeling labeling;
    Backend backend = Backend::Auto;  // the backend that ran (auto resolved)
    double milliseconds = 0.0;        // wall time of the call (with the upload when it uploads)
    StageTimings stages;              // per-stage device times, as the Labeler keys them
    std::string device;               // "CPU", the GL renderer, or the CUDA device
    std::string context;              // the GL context of compute and raster (contextDescription), else ""
};

// The GL context a run asks for: --gl desktop (the default: an OpenGL core
// profile context) or --gl es (OpenGL ES 3.0 or newer, what phones, WebGL2
// and embedded GPUs offer: the raster backend runs there, and compute from ES
// 3.1 with image atomics).
enum class GlApi { Desktop, Es };

// The headless context options of `api` (Session::Options::context).
HeadlessContextOptions contextOptionsOf(GlApi api);
// The --gl option's value: "desktop" or "es"; a UsageError otherwise.
GlApi parseGlApi(const std::string& option, const std::string& value);
// Takes --gl out of `args` (a command's arguments): its value, desktop where
// it is not given; a UsageError where it is given twice or without a value.
GlApi takeGlApi(std::vector<std::string>& args);
// A UsageError where `backend` makes no GL context and --gl es was asked
// for (the option would go unused): cpu, the reference, cuda.
void checkGlApiFits(GlApi api, Backend backend);
// The context a GL engine labels in, for summaries and --json:
// "OpenGL ES 3.2 Mesa 22.3.6", "OpenGL 4.5 (Core Profile) Mesa 22.3.6".
std::string contextDescription(const ContextInfo& info);

class LabelSession {
public:
    explicit LabelSession(GlApi api = GlApi::Desktop);
    ~LabelSession();
    LabelSession(const LabelSession&) = delete;
    LabelSession& operator=(const LabelSession&) = delete;

    Session& session() { return session_; }

    // The headless context, made now where it is not yet: whether one can
    // be made, its description (nullptr without one) and why not. The
    // reasons here are in the command line's words (userMessage).
    bool hasContext();
    const ContextInfo* contextInfo();
    std::string whyNoContext();
    // The context asked for (--gl).
    GlApi glApi() const { return api_; }
    // contextDescription() of the context `backend` labels in: "" for the
    // backends that make none (cpu, the reference, cuda) and where no
    // context was made.
    std::string context(Backend backend);

    // What `backend` takes here (the GL backends make the context to say).
    EngineCapabilities capabilities(Backend backend);
    // Why `backend` cannot run here, "" when it can.
    std::string whyUnavailable(Backend backend);
    // The backend `requested` stands for on `input` here (auto resolved by
    // the router).
    Backend resolve(Backend requested, const InputDescription& input);
    // A line for stderr where auto falls back to cpu for want of any GPU
    // engine on `input`, "" otherwise.
    std::string fallbackNote(Backend requested, const InputDescription& input);
    // Where `backend` runs, for summaries: "CPU", "<GL renderer> (<EGL
    // platform>)", or the CUDA device.
    std::string device(Backend backend);

    // The image as a texture of the session's context, for labeling it with
    // several backends (requires hasContext()).
    ImageTexture upload(const Image& image);
    // Before an uploaded texture goes: the next one may get its name, and the
    // cuda backend must not take it for the texture it registered.
    void forget(const ImageTexture& texture);
    // Labels an uploaded texture; the time is the labeling and the download
    // of labels and table. With `into`, labels and table land there, in
    // storage reused from its last labeling of this size, and run.labeling
    // stays empty.
    BackendRun label(const ImageTexture& texture, const LabelOptions& options, Labeling* into = nullptr);
    // Labels a host image by its route; the time includes the transfers.
    // `into` as above.
    BackendRun label(const Image& image, const LabelOptions& options, Labeling* into = nullptr);
    // Labels a host image into `out`, as a batch labels its images: labels
    // and table land in out's storage, reused from the last call of this
    // size, and the session's input texture is reused too. Returns the wall
    // milliseconds of the call (upload, labeling, download of labels and
    // table).
    double label(const Image& image, const LabelOptions& options, Labeling& out);
    // The same by `route`, chosen for this image (Session::route): nothing
    // is chosen again. `stages`, if given, receives the per-stage device
    // times.
    double label(const Image& image, const Route& route, const LabelOptions& options, Labeling& out,
                 StageTimings* stages = nullptr);

private:
    GlApi api_;
    Session session_;
};

// A texture uploaded to a session and forgotten (LabelSession::forget) when
// it goes, on every way out of its scope: the next upload may get its name,
// and the cuda backend must not take that for the texture it registered.
class SessionTexture {
public:
    SessionTexture(LabelSession& session, const Image& image) : session_(session), texture_(session.upload(image)) {}
    ~SessionTexture() {
        try {
            session_.forget(texture_);
        } catch (...) {
        }
    }
    SessionTexture(const SessionTexture&) = delete;
    SessionTexture& operator=(const SessionTexture&) = delete;
    const ImageTexture& operator*() const { return texture_; }
    const ImageTexture* operator->() const { return &texture_; }

private:
    LabelSession& session_;
    ImageTexture texture_;
};

}  // namespace glccl::tools
