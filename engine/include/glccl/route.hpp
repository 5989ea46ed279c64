#pragma once
// The router: which engine labels an input, and whether the input must go
// in pieces. Every engine declares what it takes (EngineCapabilities); one
// function, chooseRoute(), resolves the backend of a call from that
// declaration and the input. Labeler, OffscreenLabeler, the tiles, the
// command line and the Python module all ask it, once per call.
//
//   input (where it lives, shape, channels, sample bits)
//     + options (backend, criterion, connectivity)
//     + the context (or none)      --chooseRoute-->  Route { backend, pieces }

#include <cstdint>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/context.hpp"
#include "glccl/labeler.hpp"
#include "glccl/types.hpp"

namespace glccl {

// The largest side of a texture the GL engines label, whatever the context
// allows: their IDs and keys keep 15 bits per coordinate (common.glsl).
constexpr int kLargestTextureSide = 32768;

// Where an input lives when it is handed to glccl.
enum class Residence { GlTexture, HostMemory, CudaDevice };

// "a GL texture", "host memory", "CUDA device memory".
const char* residenceName(Residence residence);
// "GL_R8", "GL_RGBA16", ... for a texture's internal format (a GLenum).
const char* textureFormatName(unsigned format);

// What the router knows of an input.
struct InputDescription {
    Residence residence = Residence::HostMemory;
    // A shape of no elements (Shape's default) stands for "any size": the
    // backend is resolved but no pieces are decided (tiles asking which
    // backend their pieces go to).
    Shape shape;
    int channels = 1;
    int sampleBits = 8;
    // GlTexture only: the texture's internal format (a GLenum).
    unsigned textureFormat = 0;

    static InputDescription hostImage(int width, int height, int channels, int sampleBits);
    static InputDescription texture(int width, int height, unsigned internalFormat);
    // A GL_TEXTURE_3D: a volume of `depth` slices.
    static InputDescription volumeTexture(int width, int height, int depth, unsigned internalFormat);
    static InputDescription cudaDeviceImage(int width, int height, int channels, int sampleBits);
};

// What one engine takes, in a context (or with none).
struct EngineCapabilities {
    Backend backend = Backend::Cpu;
    // Why it cannot run here at all ("" when it can): not built, no device,
    // an older OpenGL, no GL context.
    std::string whyNotHere;
    // Where the input may live for the engine to read it in place. Host
    // memory also reaches an engine that reads GL textures, by an upload,
    // where a context exists (hostUpload).
    std::vector<Residence> residences;
    bool hostUpload = false;
    // Bits of the samples it compares, of an input in host or device memory.
    std::vector<int> sampleBits;
    // Texture formats it reads (GLenums); empty: every format the Labeler
    // accepts.
    std::vector<unsigned> textureFormats;
    // Channels per criterion: 1 for binary and segments, 1 or 4 for threshold.
    std::vector<int> channels;
    std::vector<int> thresholdChannels;
    // A binary level other than 0 (binaryAbove); false: binary is nonzero.
    bool binaryLevel = true;
    // The delta criterion (Criterion::withinDelta).
    bool delta = true;
    // Connectivities it labels. Whether a connectivity fits the input's
    // dimensions is the entries' question (their own words), not the router's.
    std::vector<Connectivity> connectivities;
    std::vector<int> dimensions;
    // Where a volume may live, where that is narrower than `residences`
    // (empty: wherever the engine reads).
    std::vector<Residence> volumeResidences;
    // The largest extent along any axis, and the most elements, of one call.
    std::int64_t largestExtent = 0;
    std::uint64_t largestCount = 0;
    // The same for a volume, where the engine labels volumes (its 3-D
    // textures and keys have limits of their own).
    std::int64_t largestVolumeExtent = 0;
    std::uint64_t largestVolumeCount = 0;

    bool takes(Residence residence) const;
    bool takes(Connectivity connectivity) const;
};

// The declaration of `backend` (not auto). `context`: the GL context the
// call labels in, nullptr where none could be made; then the GL engines
// cannot run, `whyNoContext` (e.g. "no headless GL context: <EGL's error>")
// says why, and their largest extent is 0. Cheap after the first call for
// cuda (the CUDA driver is asked once per process). Thread-safe.
EngineCapabilities capabilitiesOf(Backend backend, const ContextInfo* context, const std::string& whyNoContext = "");

// Why `capabilities` cannot label `input` with `options` in one call or in
// pieces ("" when it can): the engine does not run here, or it does not
// take the input's residence, samples, channels or criterion. The message
// has no entry prefix; callers add theirs.
std::string whyRefused(const EngineCapabilities& capabilities, const InputDescription& input,
                       const LabelOptions& options);

// Does the input exceed one call of the engine (an extent or the element
// count past its largest)?
bool exceedsOneCall(const EngineCapabilities& capabilities, const Shape& shape);

struct Route {
    Backend backend = Backend::Cpu;  // never auto
    // The input exceeds one call of the backend: label it through tiles.
    bool pieces = false;
    // A line for the user where the choice is not the obvious one (auto on
    // a machine without a GL context: "<whyNoContext>; auto runs the cpu
    // backend"), "" otherwise.
    std::string note;
};

// The one place that resolves a backend. Auto takes, in this order, the
// first engine that runs here and takes the input: cpu on a software
// rasterizer (isSoftwareRenderer), compute (OpenGL 4.3), raster, cpu, and
// cuda (the only engine for CUDA device memory). A named backend is taken
// as named, or refused. Throws glccl::Error "the <name> backend cannot run
// here: <why>" where the backend does not run here, or whyRefused()'s words
// where it does not take the input; callers add their entry's prefix.
Route chooseRoute(const InputDescription& input, const LabelOptions& options, const ContextInfo* context,
                  const std::string& whyNoContext = "");

}  // namespace glccl
