#include "backends.hpp"

#include <GL/glew.h>

#include <chrono>

#include "glccl/error.hpp"
#include "glccl/route.hpp"
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
    auto labeler = std::make_unique<OffscreenLabeler>(HeadlessContext::Options{}, OffscreenLabeler::NoContext::LabelOnHost);
    if (labeler->hasContext()) {
        offscreen_ = std::move(labeler);
    } else {
        whyNoContext_ = labeler->whyNoContext();
        contextless_ = std::move(labeler);
    }
}

LabelSession::~LabelSession() = default;

OffscreenLabeler& LabelSession::executor() const { return offscreen_ ? *offscreen_ : *contextless_; }

const ContextInfo* LabelSession::contextInfo() const { return offscreen_ ? &offscreen_->context().info() : nullptr; }

std::string LabelSession::whyUnavailable(Backend backend) const {
    if (backend == Backend::Auto) return {};
    return capabilitiesOf(backend, contextInfo(), whyNoContext_).whyNotHere;
}

Backend LabelSession::resolve(Backend requested) const {
    if (requested != Backend::Auto) return requested;
    return chooseRoute(InputDescription(), LabelOptions{}, contextInfo(), whyNoContext_).backend;
}

std::string LabelSession::fallbackNote(Backend requested) const {
    if (requested != Backend::Auto) return {};
    const std::string note = chooseRoute(InputDescription(), LabelOptions{}, contextInfo(), whyNoContext_).note;
    return note.empty() ? note : "note: " + note;
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
    return image.dimensions == 3 ? ImageTexture::volume(image) : ImageTexture(image);
}

void LabelSession::forget(const ImageTexture& texture) {
    if (!offscreen_) return;
    makeCurrent();
    offscreen_->labeler().forget(texture.id());
}

BackendRun LabelSession::label(const ImageTexture& texture, const LabelOptions& options, Labeling* into) {
    makeCurrent();
    BackendRun run;
    Labeler& labeler = offscreen_->labeler();
    const auto start = Clock::now();
    labeler.label(texture.id(), options);
    if (into != nullptr) labeler.result(*into);
    else run.labeling = labeler.result();
    run.milliseconds = millisecondsSince(start);
    run.backend = labeler.backend();
    run.stages = labeler.stageTimings();
    run.device = device(run.backend);
    return run;
}

BackendRun LabelSession::label(const Image& image, const LabelOptions& options, Labeling* into) {
    BackendRun run;
    const auto start = Clock::now();
    OffscreenLabeler& labeler = executor();
    if (into != nullptr) labeler.label(image, options, *into, &run.stages);
    else run.labeling = labeler.label(image, options, &run.stages);
    run.backend = labeler.backend();
    run.milliseconds = millisecondsSince(start);
    run.device = device(run.backend);
    return run;
}

double LabelSession::label(const Image& image, const LabelOptions& options, Labeling& out) {
    const auto start = Clock::now();
    executor().label(image, options, out);
    return millisecondsSince(start);
}

Backend LabelSession::lastBackend() const { return executor().backend(); }

}  // namespace glccl::tools
