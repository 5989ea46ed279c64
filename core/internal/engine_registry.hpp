#pragma once
// The engines of glccl, one entry each: what the router (route.cpp) and
// makeEngine() know of an engine, its declaration and its constructor. Its
// name and its place in summaries are the host's (host/src/backend.cpp).
// The GL engines' constructors are the GL engine library's
// (engine/src/backends/registry.cpp), handed here when it is linked; the
// Labeler's engines of textures are listed there too.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "glccl/backend.hpp"
#include "glccl/capabilities.hpp"
#include "glccl/context_info.hpp"
#include "glccl/engine.hpp"
#include "glccl/error.hpp"

namespace glccl::engines {

// An engine's rank among auto's candidates for each kind of input, lowest
// first (chooseRoute's rule, glccl/route.hpp); kNotAuto where auto never
// takes it.
constexpr int kNotAuto = -1;
struct AutoRanks {
    int hostMemory = kNotAuto;
    int glTexture = kNotAuto;        // a texture of a GPU's context
    int softwareTexture = kNotAuto;  // a texture of a software rasterizer's context
    int cudaDevice = kNotAuto;

    bool any() const {
        return hostMemory != kNotAuto || glTexture != kNotAuto || softwareTexture != kNotAuto ||
               cudaDevice != kNotAuto;
    }
};

struct EngineEntry {
    Backend backend = Backend::Auto;
    // Labels in a GL context: the router asks the place for it, and auto
    // takes the engine for host memory only where that context is a GPU's.
    bool gl = false;
    // Its declaration (capabilitiesOf, glccl/route.hpp): `context` null
    // where none could be made, `whyNoContext` saying why.
    EngineCapabilities (*declaration)(const ContextInfo* context, const std::string& whyNoContext) = nullptr;
    // An engine of it at a place (makeEngine, glccl/engine.hpp); null for
    // the GL engines, whose constructor is glEngineMaker()'s.
    std::unique_ptr<Engine> (*make)(const EnginePlace& place) = nullptr;
    // For host memory auto takes an engine ranked before the last only
    // where it runs: a GL engine on a GPU's context, any other where its
    // declaration says so.
    AutoRanks autoRanks;
    // Its own host memory while it labels one call, besides the labels and
    // table it hands back, in bytes an element and a component: what tiles
    // budget for each of their workers (tiles/src/tiled.cpp, memoryBound).
    struct HostMemory {
        std::uint64_t perElement = 0, perComponent = 0;
    } hostMemory;
};

// The entry of `backend`; throws glccl::Error for auto, which is no engine.
const EngineEntry& engineEntry(Backend backend);

// The entry of `backend` in a table with one entry per engine (this
// registry's, the GL engine's of texture engines); throws glccl::Error for
// auto, which is no engine, and for a backend the table lacks.
template <class Entry, std::size_t Count>
const Entry& entryOf(const Entry (&table)[Count], Backend backend) {
    for (const Entry& entry : table)
        if (entry.backend == backend) return entry;
    if (backend == Backend::Auto) throw Error("auto is not an engine: resolve it with chooseRoute()");
    throw Error(std::string("the ") + backendName(backend) + " backend has no engine entry");
}

// The constructor of the GL engines (compute, raster) at a place: the GL
// engine library's, set once when it is linked (before main); null in a
// build without it, where those engines are not built.
using GlEngineMaker = std::unique_ptr<Engine> (*)(Backend backend, const EnginePlace& place);
void setGlEngineMaker(GlEngineMaker maker);
GlEngineMaker glEngineMaker();

// Why the GL engines cannot run in this build, "" where they are built.
std::string whyNoGlEngines();

}  // namespace glccl::engines
