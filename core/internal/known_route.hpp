#pragma once
// The router's rule at a context described rather than made: what the tests
// of the rule and the probes in bench/ ask. Not public: a program routes
// through Session or chooseRoute(input, options, place).

#include <string>

#include "glccl/route.hpp"

namespace glccl {

// chooseRoute() where the context is known (KnownPlace): `context`, or none
// with `whyNoContext`.
Route chooseRoute(const InputDescription& input, const LabelOptions& options, const ContextInfo* context,
                  const std::string& whyNoContext = "");

// The backend `requested` stands for on a texture of that context: itself,
// or auto's choice there (compute on a GPU with OpenGL 4.3, raster on an
// older GPU context, cpu on a software rasterizer).
Backend resolveBackend(Backend requested, const ContextInfo& context);

}  // namespace glccl
