#pragma once
// The Labeler's engines of textures, one entry per backend: each engine's
// texture engine in a current context (texture_engine.hpp). The engines
// themselves, their declarations and constructors, are the core's registry
// (core/internal/engine_registry.hpp), to which registry.cpp hands the GL
// engines' constructor.

#include <memory>

#include "glccl/backend.hpp"
#include "glccl/context.hpp"

namespace glccl::backends {

class TextureEngine;

struct TextureEngineEntry {
    Backend backend = Backend::Auto;
    // Its texture engine in the current context (the Labeler's,
    // texture_engine.hpp).
    std::unique_ptr<TextureEngine> (*onTextures)(const ContextInfo& context) = nullptr;
};

// The entry of `backend`; throws glccl::Error for auto, which is no engine.
const TextureEngineEntry& textureEngineEntry(Backend backend);

}  // namespace glccl::backends
