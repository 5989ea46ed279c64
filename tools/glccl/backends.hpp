#pragma once
// The glccl command's one route to the labeling backends: one headless GL
// context and one glccl::Labeler for a whole run, every backend chosen
// through LabelOptions::backend and every availability question answered
// by glccl::whyUnavailable. Where no GL context can be made at all (no
// EGL), the cpu backend runs the reference on the host image, auto stands
// for it, and every other backend is unavailable with that reason.

#include <memory>
#include <string>

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
    // Labels an uploaded texture; the time is the labeling and the download
    // of labels and table.
    BackendRun label(const ImageTexture& texture, const LabelOptions& options);
    // Uploads and labels a host image; the time includes the upload.
    BackendRun label(const Image& image, const LabelOptions& options);

    // glccl::fullscreenPassMilliseconds in the session's context.
    double fullscreenPassMilliseconds(int width, int height, int reps);

private:
    void makeCurrent();

    std::unique_ptr<OffscreenLabeler> offscreen_;
    std::string whyNoContext_;
};

}  // namespace glccl::tools
