// The router: the one choice made from every engine's declaration (the
// engines' entries: engine_registry.cpp).

#include "glccl/route.hpp"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "engine_registry.hpp"
#include "gl_formats.hpp"
#include "glccl/cpu_labeler.hpp"
#include "glccl/error.hpp"
#include "known_route.hpp"
#include "small_helpers.hpp"

namespace glccl {

namespace {

// What a texel of a format holds, for messages.
const char* sampleDescription(unsigned format) {
    switch (format) {
        case GL_R16:
        case GL_R16UI:
        case GL_RGBA16: return "16-bit samples";
        case GL_R32UI: return "32-bit samples";
        case GL_RG32UI: return "64-bit samples";
        case GL_R32F: return "32-bit float samples";
        default: return "8-bit samples";
    }
}


// The declaration of `backend` at `place`: the GL engines' ask for its
// context (and may make one), the others never do.
EngineCapabilities capabilitiesAt(Backend backend, Place& place) {
    if (!engines::engineEntry(backend).gl) return capabilitiesOf(backend, nullptr);
    const ContextInfo* context = place.context();
    return capabilitiesOf(backend, context, context ? std::string() : place.whyNoContext());
}

}  // namespace

Route Place::route(const InputDescription& input, const LabelOptions& options) {
    return chooseRoute(input, options, *this);
}

KnownPlace::KnownPlace(const ContextInfo* context, std::string whyNoContext)
    : context_(context), whyNoContext_(std::move(whyNoContext)) {}
const ContextInfo* KnownPlace::context() { return context_; }
std::string KnownPlace::whyNoContext() {
    return whyNoContext_.empty() && !context_ ? "no GL context could be made" : whyNoContext_;
}
bool KnownPlace::gpuContext(std::string* why) {
    if (why) *why = context_ ? std::string() : whyNoContext();
    return context_ != nullptr && !isSoftwareRenderer(*context_);
}

EngineCapabilities capabilitiesOf(Backend backend, const ContextInfo* context, const std::string& whyNoContext) {
    return engines::engineEntry(backend).declaration(context, whyNoContext);
}

namespace {

// The engines auto may choose that label a volume that lives where
// `residence` says, but `refusing`: "compute or cpu", for the refusals'
// advice.
std::string volumeEngines(Backend refusing, Residence residence) {
    std::vector<std::string> names;
    for (Backend backend : concreteBackends()) {
        if (backend == refusing || !engines::engineEntry(backend).autoRanks.any()) continue;
        const EngineCapabilities engine = capabilitiesOf(backend, nullptr);
        const auto& from = engine.volumeResidences.empty() ? engine.residences : engine.volumeResidences;
        const bool reached = contains(from, residence) || (residence == Residence::GlTexture && engine.textureDownload);
        if (engine.takesDimensions(3) && reached) names.push_back(backendName(backend));
    }
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return list;
}

// What of the input itself the engine does not take ("" when it takes it);
// whether it runs here is asked apart.
std::string whyInputRefused(const EngineCapabilities& engine, const InputDescription& input,
                            const LabelOptions& options) {
    const std::string name = backendName(engine.backend);
    if (!engine.reaches(input.residence))
        return "the " + name + " backend does not read " + residenceName(input.residence);
    // A host's 3-D texture handed to the Labeler: say what takes it.
    if (!engine.takesDimensions(input.shape.dimensions) && input.shape.dimensions == 3 &&
        input.residence == Residence::GlTexture)
        return "the " + name + " backend labels 2-D images; this texture is a volume (" +
               std::to_string(input.shape.width) + "x" + std::to_string(input.shape.height) + "x" +
               std::to_string(input.shape.depth) + "): use " + volumeEngines(engine.backend, input.residence);
    if (!engine.takesDimensions(input.shape.dimensions))
        return "the " + name + " backend does not label " + std::to_string(input.shape.dimensions) + "-D input";
    if (input.shape.dimensions == 3 && !engine.volumeResidences.empty() &&
        !contains(engine.volumeResidences, input.residence)) {
        std::string from;
        for (std::size_t i = 0; i < engine.volumeResidences.size(); ++i)
            from += (i == 0 ? "" : " or ") + std::string(residenceName(engine.volumeResidences[i]));
        return "the " + name + " backend labels volumes from " + from + ", not from " +
               residenceName(input.residence) + ": use " + volumeEngines(engine.backend, input.residence);
    }
    // A texture is read at its format's samples where the engine reads
    // textures itself; one it downloads arrives as host samples.
    const bool readsTexture = input.residence == Residence::GlTexture && engine.takes(Residence::GlTexture);
    if (readsTexture && !engine.textureFormats.empty() && !contains(engine.textureFormats, input.textureFormat)) {
        std::string formats;
        for (std::size_t i = 0; i < engine.textureFormats.size(); ++i)
            formats += (i == 0 ? "" : i + 1 == engine.textureFormats.size() ? " and " : ", ") +
                       std::string(textureFormatName(engine.textureFormats[i]));
        return "the " + name + " backend reads " + formats + " textures; this texture is " +
               textureFormatName(input.textureFormat) + " (" + sampleDescription(input.textureFormat) +
               "): use the compute or raster backend";
    }
    if (!readsTexture && !engine.takesSampleBits(input.sampleBits)) {
        std::string bits;
        for (std::size_t i = 0; i < engine.sampleBits.size(); ++i)
            bits += (i == 0 ? "" : i + 1 == engine.sampleBits.size() ? " or " : ", ") +
                    std::to_string(engine.sampleBits[i]) + "-";
        return "the " + name + " backend labels " + bits + "bit samples, not " + std::to_string(input.sampleBits) +
               "-bit";
    }
    const bool threshold = options.criterion.kind == Criterion::Kind::Threshold;
    if (!contains(threshold ? engine.thresholdChannels : engine.channels, input.channels)) {
        if (readsTexture)
            return "the " + name + " backend reads color textures for the threshold criterion only; '" +
                   options.criterion.toString() + "' takes one-channel textures";
        return "the " + name + " backend does not label " + std::to_string(input.channels) +
               "-channel images with the " + options.criterion.toString() + " criterion";
    }
    if (!readsTexture && input.channels > 1 && !engine.takesColorSampleBits(input.sampleBits)) {
        std::string bits;
        for (std::size_t i = 0; i < engine.colorSampleBits.size(); ++i)
            bits += (i == 0 ? "" : i + 1 == engine.colorSampleBits.size() ? " or " : ", ") +
                    std::to_string(engine.colorSampleBits[i]) + "-";
        return "the " + name + " backend labels color of " + bits + "bit samples, not " +
               std::to_string(input.sampleBits) + "-bit";
    }
    if (!engine.binaryLevel && options.criterion.kind == Criterion::Kind::Binary && options.criterion.level != 0)
        return "the " + name + " backend labels binary as nonzero only, not '" + options.criterion.toString() +
               "': use the compute, raster or cpu backend";
    if (!engine.delta && options.criterion.kind == Criterion::Kind::Delta)
        return "the " + name + " backend does not take the delta criterion ('" + options.criterion.toString() +
               "'): use the compute, raster or cpu backend";
    if (options.neighbourhood && !engine.neighbourhoods)
        return "the " + name + " backend labels the connectivities 4, 8, 6, 18 and 26, not the neighbourhood " +
               options.neighbourhood->toString() + ": use the cpu or reference backend";
    // Pieces are joined along their borders at the named connectivities only.
    if (options.neighbourhood && (input.streamed || exceedsOneCall(engine, input.shape)))
        return "a neighbourhood other than the connectivities 4, 8, 6, 18 and 26 (" +
               options.neighbourhood->toString() + ") is labeled in one call, and this input goes in pieces";
    return "";
}

// Auto's candidates for the input, in the order of the rule (route.hpp):
// the engines' ranks (engine_registry.cpp).
std::vector<Backend> autoOrder(const InputDescription& input, const LabelOptions& options, Place& place,
                               std::string& note) {
    const bool host = input.residence == Residence::HostMemory;
    if (host && input.shape.count() != 0 && cpuPredictedFaster(input, options.threads)) return {Backend::Cpu};
    bool software = false;
    if (input.residence == Residence::GlTexture) {
        const ContextInfo* context = place.context();
        software = context && isSoftwareRenderer(*context);
    }
    std::vector<std::pair<int, Backend>> ranked;
    for (Backend backend : concreteBackends()) {
        const engines::AutoRanks& ranks = engines::engineEntry(backend).autoRanks;
        int rank = ranks.hostMemory;
        if (input.residence == Residence::GlTexture) rank = software ? ranks.softwareTexture : ranks.glTexture;
        if (input.residence == Residence::CudaDevice) rank = ranks.cudaDevice;
        if (rank != engines::kNotAuto) ranked.emplace_back(rank, backend);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Backend> order;
    // Host memory: the engines before the last (the GPU engines) where they
    // run, a GL engine on a GPU's context (asked of the place once), any
    // other where its declaration says so; the last, the cpu engine, stays,
    // so that its refusal says why nothing runs.
    std::string whyNoGpuContext;
    bool gpuAsked = false, gpu = false;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
        const engines::EngineEntry& entry = engines::engineEntry(ranked[i].second);
        if (host && i + 1 < ranked.size()) {
            if (entry.gl && !gpuAsked) {
                gpu = place.gpuContext(&whyNoGpuContext);
                gpuAsked = true;
            }
            if (entry.gl ? !gpu : !entry.declaration(nullptr, "").whyNotHere.empty()) continue;
        }
        order.push_back(entry.backend);
    }
    // No GPU engine at all, and no GL either (not a software rasterizer): say why.
    if (host && order.size() == 1 && !whyNoGpuContext.empty())
        note = whyNoGpuContext + "; auto runs the " + backendName(order.front()) + " backend";
    return order;
}

}  // namespace

std::string whyRefused(const EngineCapabilities& capabilities, const InputDescription& input,
                       const LabelOptions& options) {
    const std::string why = whyInputRefused(capabilities, input, options);
    if (!why.empty()) return why;
    if (!capabilities.whyNotHere.empty())
        return std::string("the ") + backendName(capabilities.backend) + " backend cannot run here: " +
               capabilities.whyNotHere;
    return "";
}

bool cpuPredictedFaster(const InputDescription& input, int threads) {
    const auto elements = input.shape.count();
    const bool volume = input.shape.dimensions == 3;
    const double runs =
        double(elements) * (input.runsPerElement >= 0.0 ? input.runsPerElement : kUnsampledRunsPerElement);
    const int used = cpu::threadsFor(elements, threads > 0 ? threads : cpu::defaultThreads());
    const double scale = kCpuSerialFraction + (1.0 - kCpuSerialFraction) / double(used);
    const double cpuMs = (volume ? kCpuVolumeCost : kCpuImageCost).at(double(elements), runs, scale);
    const double gpuMs = (volume ? kGpuVolumeCost : kGpuImageCost).at(double(elements), runs);
    return cpuMs < gpuMs;
}

Route chooseRoute(const InputDescription& input, const LabelOptions& options, Place& place) {
    if (const std::string why = whyThreadsRefused(options.threads); !why.empty())
        throw Error("LabelOptions::threads is " + why);
    auto routeOf = [&](EngineCapabilities engine) {
        Route route;
        route.backend = engine.backend;
        route.pieces = input.streamed || exceedsOneCall(engine, input.shape);
        route.engine = std::move(engine);
        return route;
    };
    if (options.backend != Backend::Auto) {
        EngineCapabilities engine = capabilitiesAt(options.backend, place);
        const std::string why = whyRefused(engine, input, options);
        if (!why.empty()) throw Error(why);
        return routeOf(std::move(engine));
    }
    std::string note;
    std::string reasons;
    for (Backend backend : autoOrder(input, options, place, note)) {
        EngineCapabilities engine = capabilitiesAt(backend, place);
        const std::string why = whyRefused(engine, input, options);
        if (why.empty()) {
            Route route = routeOf(std::move(engine));
            if (backend == Backend::Cpu) route.note = note;
            return route;
        }
        reasons += (reasons.empty() ? "" : "; ") + why;
    }
    throw Error("no backend takes " + std::string(residenceName(input.residence)) + " here: " + reasons);
}

Route chooseRoute(const InputDescription& input, const LabelOptions& options, const ContextInfo* context,
                  const std::string& whyNoContext) {
    return KnownPlace(context, whyNoContext).route(input, options);
}

std::string whyUnavailable(Backend backend, const ContextInfo& context) {
    return backend == Backend::Auto ? "" : capabilitiesOf(backend, &context).whyNotHere;
}

Backend resolveBackend(Backend requested, const ContextInfo& context) {
    if (requested != Backend::Auto) return requested;
    InputDescription texture = InputDescription::texture(1, 1, GL_R8);
    texture.shape = Shape();  // any size
    return KnownPlace(&context).route(texture, LabelOptions{}).backend;
}

bool piecesMakeDesktopContexts(const Route& route) {
    return route.pieces && (route.backend == Backend::Compute || route.backend == Backend::Raster);
}

bool isSoftwareRenderer(const ContextInfo& context) {
    for (const char* name : {"llvmpipe", "softpipe", "SwiftShader", "Software Rasterizer"})
        if (context.renderer.find(name) != std::string::npos) return true;
    return false;
}

}  // namespace glccl
