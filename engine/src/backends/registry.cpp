// The Labeler's engines of textures, one entry per backend (registry.hpp),
// and the GL engines' constructor, handed to the core's registry when this
// library is linked.

#include "backends/registry.hpp"

#include "backends/gl_engines.hpp"
#include "backends/texture_engine.hpp"
#include "engine_registry.hpp"
#include "glccl/error.hpp"
#include "glccl/offscreen.hpp"

namespace glccl::backends {

namespace {

// A GL engine at a place: its own headless context on the place's device
// (which holds the GPU at its compute clock: HeadlessContext).
std::unique_ptr<Engine> glEngineAt(Backend backend, const EnginePlace& place) {
    HeadlessContext::Options context = place.context;
    context.device = eglDeviceOf(place.device);
    auto offscreen = std::make_shared<OffscreenLabeler>(context);
    return makeGlEngine(backend, std::move(offscreen));
}

const TextureEngineEntry kEngines[] = {
    {Backend::Compute, makeComputeEngine},
    {Backend::Raster, makeRasterEngine},
    {Backend::Cuda, makeCudaTextureEngine},
    {Backend::Cpu, [](const ContextInfo&) { return hostEngineOnTextures(makeEngine(Backend::Cpu)); }},
    {Backend::Reference, [](const ContextInfo&) { return hostEngineOnTextures(makeEngine(Backend::Reference)); }},
};

}  // namespace

const TextureEngineEntry& textureEngineEntry(Backend backend) { return engines::entryOf(kEngines, backend); }

}  // namespace glccl::backends

// Set before main, in every program this library is linked into: the
// library's link interface names this symbol (engine/CMakeLists.txt), so the
// linker keeps this file even where nothing else of it is called.
extern "C" {
extern const int glccl_gl_engines;
const int glccl_gl_engines = (glccl::engines::setGlEngineMaker(glccl::backends::glEngineAt), 1);
}
