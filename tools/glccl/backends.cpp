#include "backends.hpp"

#include <GL/glew.h>

#include <chrono>

#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl::tools {

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

LabelSession::LabelSession() {
    try {
        offscreen_ = std::make_unique<OffscreenLabeler>();
    } catch (const Error& error) {
        whyNoContext_ = std::string("no headless GL context: ") + error.what();
    }
}

LabelSession::~LabelSession() = default;

std::string LabelSession::whyUnavailable(Backend backend) const {
    if (offscreen_) return glccl::whyUnavailable(backend, offscreen_->context().info());
    if (backend == Backend::Cpu || backend == Backend::Auto) return {};
    return whyNoContext_;
}

Backend LabelSession::resolve(Backend requested) const {
    if (offscreen_) return resolveBackend(requested, offscreen_->context().info());
    return requested == Backend::Auto ? Backend::Cpu : requested;
}

std::string LabelSession::fallbackNote(Backend requested) const {
    if (offscreen_ || requested != Backend::Auto) return {};
    return "note: " + whyNoContext_ + "; auto runs the cpu backend";
}

std::string LabelSession::device(Backend backend) const {
    switch (resolve(backend)) {
        case Backend::Cpu: return "CPU";
        case Backend::Cuda:
#ifdef GLCCL_HAVE_CUDA
            return cuda::deviceName();
#else
            return "CUDA";
#endif
        default:
            if (!offscreen_) return {};
            return offscreen_->context().info().renderer + " (" + offscreen_->context().platform() + ")";
    }
}

void LabelSession::makeCurrent() {
    if (!offscreen_) throw Error(whyNoContext_);
    offscreen_->makeCurrent();
}

ImageTexture LabelSession::upload(const Image& image) {
    makeCurrent();
    return ImageTexture(image);
}

void LabelSession::forget(const ImageTexture& texture) {
    if (!offscreen_) return;
    makeCurrent();
    offscreen_->labeler().forget(texture.id());
}

BackendRun LabelSession::label(const ImageTexture& texture, const LabelOptions& options) {
    makeCurrent();
    BackendRun run;
    Labeler& labeler = offscreen_->labeler();
    const auto start = Clock::now();
    labeler.label(texture.id(), options);
    run.labeling = labeler.result();
    run.milliseconds = millisecondsSince(start);
    run.backend = labeler.backend();
    run.stages = labeler.stageTimings();
    run.device = device(run.backend);
    return run;
}

BackendRun LabelSession::label(const Image& image, const LabelOptions& options) {
    BackendRun run;
    const auto start = Clock::now();
    if (!offscreen_) {
        // Without a GL context the reference labels the host image itself.
        const std::string why = whyUnavailable(options.backend);
        if (!why.empty()) throw Error(std::string("the ") + backendName(options.backend) + " backend cannot run here: " + why);
        run.labeling = labelReference(image, options.connectivity, options.criterion);
        run.backend = Backend::Cpu;
    } else {
        run.labeling = offscreen_->label(image, options, &run.stages);
        run.backend = offscreen_->backend();
    }
    run.milliseconds = millisecondsSince(start);
    run.device = device(run.backend);
    return run;
}

double LabelSession::label(const Image& image, const LabelOptions& options, Labeling& out) {
    const auto start = Clock::now();
    if (!offscreen_) {
        const std::string why = whyUnavailable(options.backend);
        if (!why.empty()) throw Error(std::string("the ") + backendName(options.backend) + " backend cannot run here: " + why);
        out = labelReference(image, options.connectivity, options.criterion);
    } else {
        offscreen_->label(image, options, out);
    }
    return millisecondsSince(start);
}

}  // namespace glccl::tools
