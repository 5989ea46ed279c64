#pragma once
// glccl label on images past one backend call: tiles (glccl/tiled.hpp),
// memory-mapped .npy input, labels streamed into .npy, several workers.

#include <optional>
#include <string>
#include <vector>

namespace glccl::tools {

// The tiled options of `glccl label --help`.
extern const char kTiledLabelHelp[];

// Runs `glccl label ARGS` tiled when it asks for it (--tile, --memory-limit,
// --devices, --label-type) or when its INPUT is a .npy or TIFF larger
// than one call of the backend takes (a side past 32768, or past the GL
// texture size for the GL backends), and returns the exit status; otherwise
// returns nothing and the ordinary label command runs. Throws UsageError and
// glccl::Error as the other commands do.
std::optional<int> runTiledLabelIfNeeded(const std::vector<std::string>& args);

}  // namespace glccl::tools
