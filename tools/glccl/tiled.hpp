#pragma once
// glccl label on images past one backend call: tiles (glccl/tiled.hpp),
// memory-mapped .npy input, labels streamed into .npy, several workers.

#include <optional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "glccl/session.hpp"

namespace glccl::tools {

// The tiled options of `glccl label --help`.
extern const char kTiledLabelHelp[];

// Whether `glccl label ARGS` asks for tiled labeling by an option only it
// has (--tile, --memory-limit, --devices, --label-type).
bool asksForTiles(const std::vector<std::string>& args);

// Runs `glccl label ARGS` tiled, as such an option asks, routed once (as
// streamed) by a Session of its own, and returns the exit status. Throws
// UsageError and glccl::Error as the other commands do.
int runTiledLabel(const std::vector<std::string>& args);

// The route of INPUT, an .npy or TIFF, chosen from its header before it is
// read, by `session` for `command`'s options: where it goes in pieces, the
// tiles read it from the file (runTiledLabel below); otherwise it is read
// whole and labeled by the same route. Files past what readImage reads
// whole, or past what one piece should take of the memory, always go in
// pieces. Nothing for other files, and for smaller ones (an image up to
// 16384 a side, a volume up to 2048 a side and 2^31 voxels: the smallest
// limits of the GPU engines' one call), which are routed as the image read,
// so that a GL context is made only where one may be needed; nothing too
// where no backend takes a file read whole, so that the ordinary command
// says why in its words. Throws glccl::Error where no backend takes a file
// that must go in pieces, and for a TIFF too large to read whole that the
// tiles cannot read either.
struct FileRoute {
    Route route;
    InputDescription input;  // the file as routed
};
std::optional<FileRoute> routeFile(Session& session, const std::string& input, const LabelCommand& command);

// Runs `glccl label ARGS`, whose one INPUT goes in pieces by `route`
// (routeFile), tiled, and returns the exit status.
int runTiledLabel(const std::vector<std::string>& args, Session& session, const Route& route);

}  // namespace glccl::tools
