#include "backends.hpp"


#include <chrono>

#include "cli_support.hpp"
#include "glccl/error.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/route.hpp"

namespace glccl::tools {

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

LabelSession::LabelSession() = default;
LabelSession::~LabelSession() = default;

bool LabelSession::hasContext() { return contextInfo() != nullptr; }

const ContextInfo* LabelSession::contextInfo() {
    try {
        return &session_.offscreen().context().info();
    } catch (const Error&) {
        return nullptr;
    }
}

std::string LabelSession::whyNoContext() {
    contextInfo();
    return userMessage(session_.whyNoContext());
}

EngineCapabilities LabelSession::capabilities(Backend backend) {
    const bool gl = backend == Backend::Compute || backend == Backend::Raster;
    return capabilitiesOf(backend, gl ? contextInfo() : nullptr, gl ? whyNoContext() : std::string());
}

std::string LabelSession::whyUnavailable(Backend backend) { return userMessage(session_.whyUnavailable(backend)); }

Backend LabelSession::resolve(Backend requested, const InputDescription& input) {
    if (requested != Backend::Auto) return requested;
    LabelOptions options;
    options.backend = requested;
    return session_.route(input, options).backend;
}

std::string LabelSession::fallbackNote(Backend requested, const InputDescription& input) {
    if (requested != Backend::Auto) return {};
    LabelOptions options;
    options.backend = requested;
    const std::string note = session_.route(input, options).note;
    return note.empty() ? note : "note: " + userMessage(note);
}

std::string LabelSession::device(Backend backend) { return session_.device(backend); }

ImageTexture LabelSession::upload(const Image& image) {
    session_.offscreen().makeCurrent();
    return image.dimensions == 3 ? ImageTexture::volume(image) : ImageTexture(image);
}

void LabelSession::forget(const ImageTexture& texture) {
    if (!session_.hasContext()) return;
    session_.offscreen().makeCurrent();
    session_.offscreen().labeler().forget(texture.id());
}

BackendRun LabelSession::label(const ImageTexture& texture, const LabelOptions& options, Labeling* into) {
    OffscreenLabeler& offscreen = session_.offscreen();
    offscreen.makeCurrent();
    BackendRun run;
    Labeler& labeler = offscreen.labeler();
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
    if (into != nullptr) session_.label(image, options, *into, &run.stages);
    else run.labeling = session_.label(image, options, &run.stages);
    run.backend = session_.backend();
    run.milliseconds = millisecondsSince(start);
    run.device = device(run.backend);
    return run;
}

double LabelSession::label(const Image& image, const LabelOptions& options, Labeling& out) {
    const auto start = Clock::now();
    session_.label(image, options, out);
    return millisecondsSince(start);
}

double LabelSession::label(const Image& image, const Route& route, const LabelOptions& options, Labeling& out,
                          StageTimings* stages) {
    const auto start = Clock::now();
    // Every element is overwritten: a vector of this size already is reused
    // as it is (resize() would zero-fill only a new size).
    const std::size_t count = std::size_t(image.shape().count());
    if (out.labels.size() != count) out.labels.resize(count);
    session_.label(ImageView(image), route, options, out.labels.data(), out.components, stages);
    out.width = image.width;
    out.height = image.height;
    out.depth = image.depth;
    out.dimensions = image.dimensions;
    return millisecondsSince(start);
}

}  // namespace glccl::tools
