#pragma once
// The glccl command's one way to the labeling backends: one OffscreenLabeler
// (a headless GL context and its Labeler) for a whole run. Host images take
// the route the router chooses (OffscreenLabeler::label: cpu on the host,
// cuda's host route, the GL engines through a texture, tiles past one call);
// availability is the engines' declaration (capabilitiesOf). Where no GL
// context can be made at all (no EGL), the cpu backend runs the reference
// on the host image, auto stands for it, and the GL backends are
// unavailable with that reason.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/labeler.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/texture.hpp"
#include "glccl/types.hpp"

namespace glccl::tools {

struct BackendRun {
    Labeling labeling;
    Backend backend = Backend::Auto;  // the backend that ran (auto resolved)
    double milliseconds = 0.0;        // wall time of the call (with the upload when it uploads)
    StageTimings stages;              // per-stage device times, as the Labeler keys them
    std::string device;               // "CPU", the GL renderer, or the CUDA device
};

class LabelSession {
public:
    // Opens the headless context and its Labeler; when that fails the
    // session still runs cpu, and whyNoContext() says why.
    LabelSession();
    ~LabelSession();
    LabelSession(const LabelSession&) = delete;
    LabelSession& operator=(const LabelSession&) = delete;

    bool hasContext() const { return offscreen_ != nullptr; }
    // The context's description, nullptr without one.
    const ContextInfo* contextInfo() const;
    const std::string& whyNoContext() const { return whyNoContext_; }

    // Why `backend` cannot run here, "" when it can.
    std::string whyUnavailable(Backend backend) const;
    // The backend `requested` stands for here (auto resolved).
    Backend resolve(Backend requested) const;
    // A line for stderr when auto falls back to cpu for want of a GL
    // context, "" otherwise.
    std::string fallbackNote(Backend requested) const;
    // Where `backend` runs, for summaries: "CPU", "<GL renderer> (<EGL
    // platform>)", or the CUDA device.
    std::string device(Backend backend) const;

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
    // Labels a host image into `out`, as a batch labels its
    // images: labels and table land in out's storage, reused from the last
    // call of this size, and the session's input texture is reused too.
    // Returns the wall milliseconds of the call (upload, labeling, download
    // of labels and table).
    double label(const Image& image, const LabelOptions& options, Labeling& out);
    // The backend the last label() of a host image ran (auto resolved).
    Backend lastBackend() const;

private:
    void makeCurrent();
    // What labels host images: offscreen_, or contextless_ without a context.
    OffscreenLabeler& executor() const;

    std::unique_ptr<OffscreenLabeler> offscreen_;    // null where no GL context could be made
    std::unique_ptr<OffscreenLabeler> contextless_;  // then: labels on the host (NoContext::LabelOnHost)
    std::string whyNoContext_;
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
