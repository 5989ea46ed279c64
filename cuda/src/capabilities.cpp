// The cuda engine's declaration: what it takes (host/internal/
// cuda_inputs.hpp, a build without CUDA declares the same) and whether
// CUDA runs here, read by the router (core/src/route.cpp) and by this
// library's own entries (whySamplesAreRefused, pipeline.cpp).

#include "cuda_inputs.hpp"
#include "glccl/cuda_labeler.hpp"

namespace glccl::cuda {

namespace {

// The declaration, made once per process: whether CUDA runs does not
// change, and the first question costs a driver initialisation.
EngineCapabilities declaration() {
    EngineCapabilities engine = detail::cudaInputs();
    if (!available(&engine.whyNotHere) && engine.whyNotHere.empty()) engine.whyNotHere = "no usable CUDA device";
    return engine;
}

}  // namespace

EngineCapabilities capabilities() {
    static const EngineCapabilities declared = declaration();  // thread-safe static initialisation
    return declared;
}

}  // namespace glccl::cuda
