// glccl::Session: the front door (session.hpp).

#include "glccl/session.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "glccl/context.hpp"
#include "glccl/error.hpp"
#include "glccl/offscreen.hpp"

namespace glccl {

namespace {

const std::string kWhere = "glccl::Session::label(): ";

// Runs `step`; a glccl::Error from inside that has no entry of its own (the
// router's words) gets `where`'s prefix.
template <class Step>
auto withPrefix(const std::string& where, Step&& step) -> decltype(step()) {
    try {
        return step();
    } catch (const Error& error) {
        const std::string what = error.what();
        if (what.rfind("glccl::", 0) == 0) throw;
        throw Error(where + what);
    }
}

bool isGlEngine(Backend backend) { return backend == Backend::Compute || backend == Backend::Raster; }

}  // namespace

// The Session as the router's place: its headless context, made the first
// time the router asks for it.
struct Session::Impl : Place {
    Options options;
    std::shared_ptr<OffscreenLabeler> offscreen;
    bool contextTried = false;
    std::string noContextReason;  // why no headless context can be made, once a try failed
    // What EGL's device list said, asked once: a GPU among them; where it
    // lists none, why.
    std::optional<bool> gpuDevices;
    std::string whyNoGpuDevices;
    // One engine per backend, made on first use; cuda's device engines by device.
    std::array<std::unique_ptr<Engine>, kBackendCount> engines;
    std::map<int, std::unique_ptr<Engine>> deviceEngines;
    Backend last = Backend::Auto;
    // The engine of `last` holds the last labeling's labels (of lastShape):
    // not one in pieces, nor one of a device engine.
    bool lastHeld = false;
    // The last label() was binary in 8-connectivity, of an image: its
    // labels are LabelSamples::foregroundConnected.
    bool lastForegroundConnected = false;
    Shape lastShape;
    std::function<bool(const TiledProgress&)> tiledProgress;

    explicit Impl(Options chosen) : options(std::move(chosen)) {
        if (!options.noContext.empty()) {
            contextTried = true;
            noContextReason = options.noContext;
        }
    }

    // Place: the headless context, made on the first question.
    const ContextInfo* context() override {
        if (!contextTried) {
            contextTried = true;
            try {
                offscreen = std::make_shared<OffscreenLabeler>(options.context);
            } catch (const Error& error) {
                noContextReason = std::string("no headless GL context: ") + error.what();
            }
        }
        return offscreen ? &offscreen->context().info() : nullptr;
    }
    std::string whyNoContext() override {
        context();
        return noContextReason;
    }
    bool gpuContext(std::string* why) override {
        if (why) why->clear();
        if (offscreen) return !isSoftwareRenderer(offscreen->context().info());
        if (contextTried) {
            if (why) *why = noContextReason;
            return false;
        }
        // EGL's device list answers without a context, once: a device that
        // is not Mesa's software rasterizer is a GPU (its context is made when
        // the router asks for it).
        if (!gpuDevices) {
            std::string whyNoDevices;
            const std::vector<HeadlessDevice> devices = headlessDevices(&whyNoDevices);
            gpuDevices = false;
            for (const HeadlessDevice& device : devices) gpuDevices = *gpuDevices || !device.software;
            if (devices.empty()) whyNoGpuDevices = "no headless GL context: " + whyNoDevices;
        }
        if (why) *why = whyNoGpuDevices;
        return *gpuDevices;
    }

    Engine& engine(Backend backend) {
        std::unique_ptr<Engine>& slot = engines[std::size_t(backend)];
        if (!slot) {
            if (isGlEngine(backend)) {
                if (!context()) throw Error(std::string("the ") + backendName(backend) + " backend cannot run here: " +
                                            noContextReason);
                slot = makeEngine(backend, offscreen);
            } else {
                slot = makeEngine(backend);
            }
        }
        return *slot;
    }

    void checkImage(const ImageView& image, const LabelOptions& options) const {
        if (image.width < 1 || image.height < 1 || image.depth < 1 || image.pixels == nullptr)
            throw Error(kWhere + "the image is empty");
        if (!options.measure.properties.empty()) throw Error(kWhere + kMeasuredByLabelerAlone);
        if (const std::string misfit = whyNeighboursDoNotFit(options, image.shape()); !misfit.empty())
            throw Error(kWhere + misfit);
        if (image.channels != 1 && image.channels != 4)
            throw Error(kWhere + "images have 1 or 4 channels, not " + std::to_string(image.channels));
        if (image.channels == 4 && options.criterion.kind != Criterion::Kind::Threshold)
            throw Error(kWhere + "the " + options.criterion.toString() +
                        " criterion needs a 1-channel image; convert color to gray first");
    }

    // The Session's one question to the router; its errors get `where`.
    Route route(const InputDescription& input, const LabelOptions& options, const std::string& where) {
        return withPrefix(where, [&] { return Place::route(input, options); });
    }

    // A labeling in pieces of one call: the call's options, its progress
    // told to tiledProgress and to the call's LabelProgress (the tiles
    // labeled, then the bands written; the pieces' own engines report
    // nothing), and stopped where the call is cancelled.
    TiledOptions piecesOf(const LabelOptions& options) const {
        TiledOptions tiled;
        tiled.label = options;
        tiled.label.timings = false;
        tiled.label.progress = nullptr;
        auto reported = std::make_shared<TiledProgress>();  // the last report, for the units since
        tiled.progress = [progress = tiledProgress, cancelled = options.cancelled, call = options.progress,
                          reported](const TiledProgress& at) {
            if (cancelled && cancelled()) return false;
            if (call) {
                if (std::string_view(at.phase) != reported->phase) {
                    // Labeling a tile reads its pixels and writes its labels;
                    // writing a band only maps labels already made.
                    const bool labeling = std::string_view(at.phase) == "label";
                    call->beginStage(at.phase, labeling ? 0.0 : 0.8, labeling ? 0.8 : 1.0, at.total);
                    *reported = TiledProgress{at.phase, 0, at.total};
                }
                call->advance(at.done - std::min(at.done, reported->done));
                reported->done = std::max(reported->done, at.done);
            }
            return !progress || progress(at);
        };
        return tiled;
    }
};

Session::Session() : Session(Options{}) {}
Session::Session(const Options& options) : impl_(std::make_unique<Impl>(options)) {}
Session::~Session() = default;

Route Session::route(const InputDescription& input, const LabelOptions& options) {
    return impl_->route(input, options, kWhere);
}

Route Session::route(const ImageView& image, const LabelOptions& options) {
    impl_->checkImage(image, options);
    InputDescription input = InputDescription::host(image.shape(), image.channels, image.sampleBits);
    if (options.backend == Backend::Auto) input.runsPerElement = sampleRunsPerElement(image, options.criterion);
    return route(input, options);
}

void Session::label(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                    std::vector<Component>& table, StageTimings* timings) {
    const Route chosen = route(image, options);
    label(image, chosen, options, labels, table, timings);
}

void Session::label(const ImageView& image, const Route& route, const LabelOptions& requested, std::uint32_t* labels,
                    std::vector<Component>& table, StageTimings* timings) {
    impl_->checkImage(image, requested);
    if (labels == nullptr) throw Error(kWhere + "no storage for the labels");
    LabelOptions options = requested;
    options.backend = route.backend;
    // An engine that reports no stages of its own is one stage; pieces
    // report their tiles and bands (Impl::piecesOf).
    if (options.progress) options.progress->beginStage("label", 0.0, 1.0);
    if (route.pieces) {
        const ImageMemorySource source(image);
        LabelStorageSink sink(labels, table);
        labelInPieces(source, route, impl_->piecesOf(options), sink);
        if (timings) timings->clear();
    } else {
        withPrefix(kWhere, [&] { impl_->engine(route.backend).label(image, options, labels, table, timings); });
    }
    if (options.progress) options.progress->endStage();
    impl_->last = route.backend;
    impl_->lastHeld = !route.pieces;
    impl_->lastShape = image.shape();
    impl_->lastForegroundConnected = options.criterion.kind == Criterion::Kind::Binary &&
                                     options.connectivity == Connectivity::Eight && !options.neighbourhood &&
                                     image.shape().dimensions == 2;
}

RegionTotals Session::measureTerms(const TermRequest& request, const IntensitySamples* intensity, const LabelSamples& given,
                                   const std::vector<Component>& table, int threads) {
    // The GPU engines measure the labels they hold and upload the intensity
    // at the labels' shape: what does not match is refused, not read past.
    const std::string where = "glccl::Session::measureTerms(): ";
    if (intensity && !(intensity->shape == given.shape)) throw Error(where + "the intensity image's shape differs from the labels'");
    LabelSamples labels = given;
    labels.foregroundConnected = labels.foregroundConnected || impl_->lastForegroundConnected;
    if (!impl_->lastHeld) return measureComponentTerms(labels, table, intensity, request, threads);
    if (!(given.shape == impl_->lastShape)) throw Error(where + "the labels' shape differs from the last label()'s");
    return impl_->engine(impl_->last).measureTerms(request, intensity, labels, table, threads);
}

void Session::label(const Image& image, const LabelOptions& options, Labeling& out, StageTimings* timings) {
    if (image.pixelBufferMismatched()) throw Error(kWhere + "the image's pixel buffer does not match its size");
    // Every element is overwritten: a vector of this size already is reused
    // as it is (resize() would zero-fill only a new size).
    const std::size_t count = std::size_t(image.shape().count());
    if (out.labels.size() != count) out.labels.resize(count);
    label(ImageView(image), options, out.labels.data(), out.components, timings);
    out.width = image.width;
    out.height = image.height;
    out.depth = image.depth;
    out.dimensions = image.dimensions;
}

Labeling Session::label(const Image& image, const LabelOptions& options, StageTimings* timings) {
    Labeling labeling;
    label(image, options, labeling, timings);
    return labeling;
}

namespace {

const std::string kTiledWhere = "glccl::labelTiled(): ";

InputDescription streamedInput(const ImageSource& source) {
    const Shape shape = source.dimensions() == 3 ? Shape::volume(source.width(), source.height(), source.depth())
                                                 : Shape::image(source.width(), source.height());
    InputDescription input = InputDescription::host(shape, source.channels(), source.sampleBits());
    input.streamed = true;
    return input;
}

}  // namespace

TiledResult Session::labelTiled(const ImageSource& source, const TiledOptions& options, LabelSink& sink) {
    const InputDescription input = streamedInput(source);
    return labelTiled(source, impl_->route(input, options.label, kTiledWhere), options, sink);
}

TiledResult Session::labelTiled(const ImageSource& source, const Route& route, const TiledOptions& options,
                                LabelSink& sink) {
    const std::string why = whyRefused(route.engine, streamedInput(source), options.label);
    if (!why.empty()) throw Error(kTiledWhere + why);
    TiledResult result = labelInPieces(source, route, options, sink);
    impl_->last = route.backend;
    impl_->lastHeld = false;
    impl_->lastForegroundConnected = false;
    return result;
}

Labeling Session::labelTiled(const Image& image, const TiledOptions& options, TiledResult* result) {
    const ImageMemorySource source(image);
    LabelingSink sink;
    const TiledResult run = labelTiled(source, options, sink);
    if (result) *result = run;
    return std::move(sink.labeling());
}

Engine& Session::deviceEngine(const Route& route, int cudaDevice) {
    if (!route.engine.takes(Residence::CudaDevice))
        throw Error(std::string("the ") + backendName(route.backend) + " backend does not read CUDA device memory");
    std::unique_ptr<Engine>& slot = impl_->deviceEngines[cudaDevice];
    if (!slot) {
        EnginePlace place;
        place.device = cudaDevice;
        slot = makeEngine(route.backend, place);
    }
    impl_->last = route.backend;
    impl_->lastHeld = false;
    impl_->lastForegroundConnected = false;
    return *slot;
}

void Session::setTiledProgress(std::function<bool(const TiledProgress&)> progress) {
    impl_->tiledProgress = std::move(progress);
}

Backend Session::backend() const { return impl_->last; }

std::string Session::whyUnavailable(Backend backend) {
    if (backend == Backend::Auto) return {};
    const ContextInfo* context = isGlEngine(backend) ? impl_->context() : nullptr;
    return capabilitiesOf(backend, context, impl_->noContextReason).whyNotHere;
}

std::string Session::device(Backend backend) {
    if (backend == Backend::Auto || !whyUnavailable(backend).empty()) return {};
    return impl_->engine(backend).device();
}

OffscreenLabeler& Session::offscreen() {
    if (!impl_->context()) throw Error("glccl::Session: " + impl_->noContextReason);
    return *impl_->offscreen;
}

bool Session::hasContext() const { return impl_->offscreen != nullptr; }
const std::string& Session::whyNoContext() const { return impl_->noContextReason; }

std::vector<BackendReport> describeBackends(Session& session) {
    std::vector<BackendReport> reports;
    BackendReport automatic;
    // Auto's choice for a large noisy image, the input a GPU engine is
    // chosen for where one runs; small and sparse ones go to the cpu engine.
    InputDescription large = InputDescription::host(Shape::image(8192, 8192), 1, 8);
    large.runsPerElement = 0.25;
    LabelOptions options;
    const Backend gpuChoice = session.route(large, options).backend;
    automatic.note = gpuChoice == Backend::Cpu
                         ? std::string("labels host memory with the cpu backend here: no engine runs on a GPU")
                         : std::string("chooses per input: ") + backendName(gpuChoice) +
                               " for large inputs, cpu for small and sparse ones";
    reports.push_back(automatic);
    for (Backend backend : concreteBackends()) {
        BackendReport report;
        report.backend = backend;
        report.whyNot = session.whyUnavailable(backend);
        if (report.whyNot.empty()) {
            report.device = session.device(backend);
            if (isGlEngine(backend)) {
                report.softwareRenderer = isSoftwareRenderer(session.offscreen().context().info());
                report.gpu = !report.softwareRenderer;
            } else {
                report.gpu = backend == Backend::Cuda;
            }
        }
        if (report.softwareRenderer)
            report.note = "a software renderer: the shaders run on the CPU, many times slower than the cpu "
                          "backend; auto does not choose it";
        else if (backend == Backend::Reference)
            report.note = "the one-thread oracle the engines are checked against, slower than the cpu backend";
        reports.push_back(std::move(report));
    }
    return reports;
}

TiledResult labelTiled(const ImageSource& source, const TiledOptions& options, LabelSink& sink) {
    Session session;
    return session.labelTiled(source, options, sink);
}

Labeling labelTiled(const Image& image, const TiledOptions& options, TiledResult* result) {
    Session session;
    return session.labelTiled(image, options, result);
}

}  // namespace glccl
