#pragma once
// What an engine takes: the declaration every engine makes of itself, and
// what the router (glccl/route.hpp) reads, and nothing else, to decide which
// engine labels an input. Each engine's library makes its own declaration
// (glccl::cpu::capabilities(), glccl::cuda::capabilities(), the GL engines'
// from their context), so that the rule of what an engine compares is
// written once, beside the engine.

#include <cstdint>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/types.hpp"

namespace glccl {

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
    // backend is resolved but no pieces are decided.
    Shape shape;
    int channels = 1;
    int sampleBits = 8;
    // GlTexture only: the texture's internal format (a GLenum).
    unsigned textureFormat = 0;
    // A file read piece by piece (too large for host memory, or asked to
    // go in tiles): labeled in tiles or bricks, whatever the engine takes.
    bool streamed = false;
    // Host memory whose samples were looked at (sampleRunsPerElement): the
    // runs per element, what the cpu engine's time grows with beyond the
    // element count. Negative: not looked at.
    double runsPerElement = -1.0;

    static InputDescription hostImage(int width, int height, int channels, int sampleBits);
    // A GL_TEXTURE_2D of that internal format (a GLenum: channels and
    // sample bits follow from it).
    static InputDescription texture(int width, int height, unsigned internalFormat);
    // A GL_TEXTURE_3D: a volume of `depth` slices.
    static InputDescription volumeTexture(int width, int height, int depth, unsigned internalFormat);
    // An image (Shape::image) or a volume (Shape::volume) in host memory.
    static InputDescription host(const Shape& shape, int channels, int sampleBits);
    static InputDescription cudaDeviceImage(int width, int height, int channels, int sampleBits);
    static InputDescription cudaDevice(const Shape& shape, int channels, int sampleBits);
};

// What one engine takes, where it runs (in a context, on a device, or on
// the CPU).
struct EngineCapabilities {
    Backend backend = Backend::Cpu;
    // Why it cannot run here at all ("" when it can): not built, no device,
    // an older OpenGL, no GL context.
    std::string whyNotHere;
    // Where the input may live for the engine to read it in place.
    std::vector<Residence> residences;
    // Host memory also reaches an engine that reads GL textures by an upload
    // into a texture of a context of its own (the GL engines).
    bool hostUpload = false;
    // A GL texture also reaches an engine that reads host memory by a
    // download of the texture (the cpu engine and the reference).
    bool textureDownload = false;
    // Bits of the samples it compares, of an input in host or device memory.
    std::vector<int> sampleBits;
    // Texture formats it reads (GLenums); empty: every format the Labeler
    // accepts.
    std::vector<unsigned> textureFormats;
    // Channels per criterion: 1 for binary and segments, 1 or 4 for threshold.
    std::vector<int> channels;
    std::vector<int> thresholdChannels;
    // Bits of the samples of color (4-channel) input in host or device
    // memory, where fewer than sampleBits (empty: as sampleBits).
    std::vector<int> colorSampleBits;
    // A binary level other than 0 (binaryAbove); false: binary is nonzero.
    bool binaryLevel = true;
    // The delta criterion (Criterion::withinDelta).
    bool delta = true;
    // Connectivities it labels. Whether a connectivity fits the input's
    // dimensions is the entries' question (their own words), not the router's.
    std::vector<Connectivity> connectivities;
    // Neighbourhoods other than the named connectivities
    // (LabelOptions::neighbourhood: a vertical line, a diagonal, ...).
    bool neighbourhoods = false;
    std::vector<int> dimensions;
    // Where a volume may live, where that is narrower than `residences`
    // (empty: wherever the engine reads).
    std::vector<Residence> volumeResidences;
    // The largest extent along any axis, and the most elements, of one call.
    std::int64_t largestExtent = 0;
    std::uint64_t largestCount = 0;
    // The same for a volume, where the engine labels volumes (its 3-D
    // textures and keys have limits of their own; 0: as for images).
    std::int64_t largestVolumeExtent = 0;
    std::uint64_t largestVolumeCount = 0;

    bool takes(Residence residence) const;
    bool takes(Connectivity connectivity) const;
    bool takesSampleBits(int bits) const;
    // Samples of `bits` bits in color input (colorSampleBits, else sampleBits).
    bool takesColorSampleBits(int bits) const;
    bool takesDimensions(int count) const;
    // Reads input that lives there: in place, or by an upload or a download.
    bool reaches(Residence residence) const;
};

// Does the input exceed one call of the engine (an extent or the element
// count past its largest)?
bool exceedsOneCall(const EngineCapabilities& capabilities, const Shape& shape);

// The runs per element of a sample of the image's rows (at most
// kRunSampleRows of them, spread evenly over all rows of all slices, and of
// each at most kRunSampleWidth elements, spread over the width): a run
// starts at an element that belongs to a component and does not join its
// left neighbour under the criterion (foreground after background for
// binary; for segments and delta a nonzero value other than its left
// neighbour's; for threshold a first channel that steps by more than T).
// Reads a few rows, not the image: what auto's host-memory rule needs.
constexpr int kRunSampleRows = 64;
constexpr int kRunSampleWidth = 256;
double sampleRunsPerElement(const ImageView& image, const Criterion& criterion);

}  // namespace glccl
