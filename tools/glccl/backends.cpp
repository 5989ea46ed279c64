#include "backends.hpp"

#include <chrono>
#include <cstdint>
#include <utility>

#include "cli_support.hpp"
#include "frame_times.hpp"
#include "glccl/error.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/route.hpp"

namespace glccl::tools {

namespace {

using Clock = std::chrono::steady_clock;

bool isGlEngine(Backend backend) { return backend == Backend::Compute || backend == Backend::Raster; }

Session::Options sessionOptions(GlApi api) {
    Session::Options options;
    options.context = contextOptionsOf(api);
    return options;
}

}  // namespace

HeadlessContextOptions contextOptionsOf(GlApi api) {
    HeadlessContextOptions options;
    if (api == GlApi::Es) {
        // 3.0 is what the raster engine needs; EGL gives the newest ES
        // that keeps 3.0's features (3.2 on Mesa).
        options.es = true;
        options.major = 3;
        options.minor = 0;
    }
    return options;
}

GlApi parseGlApi(const std::string& option, const std::string& value) {
    if (value == "desktop") return GlApi::Desktop;
    if (value == "es") return GlApi::Es;
    throw UsageError(option + ": '" + value + "' is not a GL context; expected desktop (OpenGL core profile) or es "
                     "(OpenGL ES 3)");
}

GlApi takeGlApi(std::vector<std::string>& args) {
    std::optional<GlApi> api;
    std::vector<std::string> rest;
    ArgumentCursor cursor(std::move(args));
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        const auto [name, inlineValue] = ArgumentCursor::splitOption(arg);
        if (name != "--gl") {
            rest.push_back(arg);
            continue;
        }
        if (api) throw UsageError("option --gl is given twice");
        api = parseGlApi(name, cursor.valueOf(name, inlineValue));
    }
    args = std::move(rest);
    return api.value_or(GlApi::Desktop);
}

void checkGlApiFits(GlApi api, Backend backend) {
    if (api != GlApi::Es || backend == Backend::Auto || isGlEngine(backend)) return;
    throw UsageError(std::string("--gl es chooses the GL context of the compute and raster backends; the ") +
                     backendName(backend) + " backend labels without one (give --backend raster, or leave out --gl)");
}

std::string contextDescription(const ContextInfo& info) {
    // ES's GL_VERSION names the API itself ("OpenGL ES 3.2 Mesa ..."),
    // desktop's starts with the number.
    return info.es ? info.version : "OpenGL " + info.version;
}

LabelSession::LabelSession(GlApi api) : api_(api), session_(sessionOptions(api)) {}
LabelSession::~LabelSession() = default;

std::string LabelSession::context(Backend backend) {
    if (!isGlEngine(backend)) return {};
    const ContextInfo* info = contextInfo();
    return info ? contextDescription(*info) : std::string();
}

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
    bench::labelResident(labeler, texture, options);
    if (into != nullptr) labeler.result(*into);
    else run.labeling = labeler.result();
    run.milliseconds = millisecondsSince(start);
    run.backend = labeler.backend();
    run.stages = labeler.stageTimings();
    run.device = device(run.backend);
    run.context = context(run.backend);
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
    run.context = context(run.backend);
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
