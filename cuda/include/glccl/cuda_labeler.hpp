#pragma once
// The CUDA path: Stava & Benes' tiled union-find labeling (GPU Computing Gems,
// ch. 35), past the paper's limits (any size, 4/8-connectivity, all criteria),
// with the same output contract as every other backend.
//
// Built only when a CUDA compiler is found (GLCCL_HAVE_CUDA). All functions
// throw glccl::Error, whose message starts with the entry that was called
// ("glccl::cuda::TextureLabeler::label(): ...") and names the CUDA error;
// available() tells beforehand whether a device and driver are present. This
// header needs no CUDA headers.
//
// Entries. Labeling many images or frames, use an object: it keeps its device
// buffers, its page-locked host buffers, its stream and (for textures) its
// CUDA-GL registrations from one call to the next, so that a call of a size
// it has seen allocates nothing and registers nothing.
//   TextureLabeler  GL texture -> GL label texture, through CUDA-GL interop
//                   (what glccl::Labeler's cuda backend runs)
//   ImageLabeler    host image or volume -> host labels; device image,
//                   batch of images or volume -> device labels, on the
//                   caller's stream (labelDeviceAsync: nothing waited for)
// labelImage() and labelGlTexture() are the one-call forms: each makes and
// destroys such an object, so every call pays for its allocations (and
// registrations) anew.
//
// Cost of one call of a reserved size, beyond the kernels' device time:
// one 4-byte download (the component count) and one download of the table
// (40 bytes per component), each waited for; TextureLabeler adds mapping and
// unmapping both textures (a few tens of microseconds of driver work);
// ImageLabeler adds the upload of the pixels and the download of the labels
// at the bus's speed (pageable host memory: at the speed of the host's copy
// into page-locked chunks, overlapped with the bus). Every call returns when
// its results are complete.
//
// Thread-safety: an object is used by one thread at a time; different
// objects may run on different threads. Every object works on the CUDA
// device that was current when it first allocated.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glccl/capabilities.hpp"
#include "glccl/device_volume.hpp"
#include "glccl/types.hpp"

namespace glccl {
struct RegionTotals;      // glccl/region_properties.hpp
struct TermRequest;       // glccl/region_properties.hpp
struct IntensitySamples;  // glccl/measure.hpp
}  // namespace glccl

namespace glccl::cuda {

// True when a CUDA driver and at least one device are usable; otherwise false
// and, if why is given, the reason ("no CUDA device: ...").
bool available(std::string* why = nullptr);

// Name of the current device ("NVIDIA H200"), for logs.
std::string deviceName();

// False in a build whose kernels' device code is unoptimized
// (GLCCL_CUDA_OPTIMIZE_KERNELS=OFF, a compile check: cuda/CMakeLists.txt).
bool kernelsOptimized();

// What the cuda engine takes (the cuda backend's declaration, which the
// router reads): unsigned samples of 8, 16, 32 and 64 bits, every criterion
// (binary, binary:L, segments, threshold, delta), color (4 channels, for
// threshold) of 8, 16 and 32 bits; images and volumes from host and device
// memory, images from GL textures (GL_R8, GL_R8UI, GL_R16, GL_R32UI,
// GL_RG32UI, GL_RGBA8, GL_RGBA16); up to 2^32 elements a call. whyNotHere
// is available()'s reason. Cheap after the first call.
EngineCapabilities capabilities();

// Whether release builds synchronise after each kernel and check it, so that
// an asynchronous fault is reported by the kernel that caused it (builds
// without NDEBUG always do). Default: whether the environment has
// GLCCL_CUDA_SYNC=1, read once, the library's one read of the environment.
// Holds for every call that starts after it returns; thread-safe.
void setSyncEachKernel(bool sync);
bool syncEachKernel();

// Which kernels label what (chosen per call, nothing to set):
//   block kernels  2-D images: 2 x 2 blocks of pixels as nodes, each patch
//           of 32 x 32 nodes solved in shared memory, the links between
//           patches united in one pass, roots numbered line by line on the
//           device (the compute engine's design, in CUDA); batches of
//           images run as one launch sequence. Their volume siblings label
//           binary volumes over bundle nodes.
//   Stava & Benes' kernels, as the paper has them: 32 x 32 patches in
//           shared memory, their borders merged level by level, then a scan
//           numbers the roots. What the block kernels do not take: images
//           whose keys need more than 31 bits (height x width rounded up to
//           a power of two above 2^31) or wider than 32768 nodes, volumes
//           under segments, threshold or delta, and binary volumes a few
//           voxels wide (more node slots than voxels).
// Every kernel that reads samples is built per sample width and criterion,
// so a labeling compares samples as the CPU reference does, byte for byte
// the same labels and table.

// What an object has allocated and registered since it was made: constant
// from call to call once its sizes are reserved, which is what a host that
// labels frames wants to see (and what the tests check).
struct ResourceCounts {
    std::uint64_t deviceAllocations = 0;  // cudaMalloc
    std::uint64_t hostAllocations = 0;    // cudaMallocHost (page-locked)
    std::uint64_t registrations = 0;      // cudaGraphicsGLRegisterImage

    bool operator==(const ResourceCounts& o) const {
        return deviceAllocations == o.deviceAllocations && hostAllocations == o.hostAllocations &&
               registrations == o.registrations;
    }
    bool operator!=(const ResourceCounts& o) const { return !(*this == o); }
};

// Labels GL textures in the current GL context through CUDA-GL interop: reads
// the input texture, writes the canonical labels into a GL_R32UI texture of
// the same size, returns the component table. No host copy of the pixels.
//
// Texture lifetime. CUDA reads a GL texture through a registration, made on
// the texture's first label() and kept, keyed by its GL name, width, height
// and internal format. A texture whose size or format changes, or a new
// texture under a name whose size or format differs, is registered anew by
// itself. But GL hands the name of a deleted texture to the next one it
// creates, and CUDA keeps reading the storage it registered, so a host
//   - that deletes a texture it has labeled, or gives it new storage
//     (glTexImage2D, glTexStorage2D on a re-created name, glDeleteTextures),
//     calls forget(texture) before it does so, or destroys the labeler;
//   - that only changes the contents (glTexSubImage2D, rendering into it,
//     copies) needs to do nothing.
// Detected and handled: a name that is no longer a texture (an error, and
// the registration is dropped); a registration that no longer maps, or that
// maps storage of another size or format than the caller states (registered
// once more, then an error if it still does not fit). Not detectable: a
// texture deleted and re-created under the same name with the same size and
// format without forget(); CUDA would read the deleted texture's storage.
//
// Needs the GL context that owns the textures current on the calling thread
// for label(), forget() and destruction (registrations are unregistered then).
class TextureLabeler {
public:
    TextureLabeler();  // makes no CUDA or GL call
    // Unregisters every texture and frees every buffer and the stream.
    ~TextureLabeler();
    TextureLabeler(TextureLabeler&&) noexcept;
    TextureLabeler& operator=(TextureLabeler&&) noexcept;
    TextureLabeler(const TextureLabeler&) = delete;
    TextureLabeler& operator=(const TextureLabeler&) = delete;

    // Allocates the device buffers for width x height textures of `channels`
    // channels (1: GL_R8, 4: GL_RGBA8) now, and page-locked room for tables
    // of up to 65536 components. Reallocates only when the pixel count
    // changes or more bytes per pixel are needed (a texture of deeper
    // samples grows the input buffer on its first label()). Registers
    // nothing (the textures are not known yet): each texture's first
    // label() registers it.
    void reserve(int width, int height, int channels);

    // Labels `inputTexture` (GL_TEXTURE_2D, internal format `inputFormat`:
    // GL_R8, GL_R8UI, GL_R16, GL_R32UI or GL_RG32UI (one 64-bit sample, red
    // the low half), or GL_RGBA8 or GL_RGBA16 for the threshold criterion;
    // width x height; read as the integers the texels hold) into
    // `labelTexture` (GL_TEXTURE_2D, GL_R32UI, the same size). Returns the
    // table (label i + 1 at index i), kept by the labeler and valid until
    // its next call. Makes no GL call but glIsTexture: GL state is untouched.
    // GL's later use of either texture is ordered after the CUDA work, and
    // the labels are complete when it returns.
    const std::vector<Component>& label(unsigned inputTexture, unsigned inputFormat, unsigned labelTexture,
                                        int width, int height, Connectivity connectivity, Criterion criterion,
                                        StageTimings* timings = nullptr);

    // The table of the last successful label() (empty before the first).
    const std::vector<Component>& table() const;

    // The labels of the last successful label() (what it wrote into the
    // label texture, from its device buffer, not from the texture) into
    // `count` host labels, row-major; count must be its width x height.
    // Through two page-locked chunks made on the first call and kept, the
    // host's copies split over threads: near the bus's speed, where
    // glGetTexImage of the texture is several times slower.
    void downloadLabels(std::uint32_t* out, std::size_t count);

    // Drops the registration of `texture` (either role), if there is one.
    // Call before deleting or re-specifying a texture that was labeled.
    void forget(unsigned texture);

    ResourceCounts resourceCounts() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Images, batches of images and volumes already in CUDA device memory (for
// example a CuPy array or a torch tensor of shape (depth, height, width)),
// and where their labels go: glccl/device_volume.hpp.
using DeviceVolume = glccl::DeviceVolume;
using DeviceVolumeLabels = glccl::DeviceVolumeLabels;

// Labels host images and volumes, and images and volumes in device memory,
// keeping its buffers from one call to the next.
class ImageLabeler {
public:
    ImageLabeler();  // makes no CUDA call
    ~ImageLabeler();
    ImageLabeler(ImageLabeler&&) noexcept;
    ImageLabeler& operator=(ImageLabeler&&) noexcept;
    ImageLabeler(const ImageLabeler&) = delete;
    ImageLabeler& operator=(const ImageLabeler&) = delete;

    // Allocates the device buffers for width x height x channels images of
    // 8-bit samples, the page-locked staging and room for tables of up to
    // 65536 components now. Reallocates only when the pixel count changes or
    // more bytes per pixel are needed (deeper samples grow the input buffer
    // once); images of a reserved size and depth allocate nothing.
    void reserve(int width, int height, int channels);

    // Labels a host image or volume (1 channel of 8-, 16-, 32- or 64-bit
    // samples, or 4 of 8, 16 or 32 bits for threshold; a volume has
    // dimensions 3 and takes connectivity 6, 18 or 26) into `result`,
    // reusing its storage: a result of the same size is overwritten in
    // place; a volume's table has front, depth and centroidZ. Timings,
    // if given, receive the per-kernel device times keyed by stage name.
    void label(const Image& image, Connectivity connectivity, Criterion criterion, Labeling& result,
               StageTimings* timings = nullptr);

    // The same on raw host memory: width * height * channels bytes of pixels
    // (rows packed) in, width * height labels out (`labels` may be null: the
    // table only). Page-locked memory (cudaMallocHost, cudaHostRegister) is
    // copied directly; pageable memory through the labeler's staging.
    // Returns the table, valid until the next call.
    const std::vector<Component>& label(const std::uint8_t* pixels, int width, int height, int channels,
                                        Connectivity connectivity, Criterion criterion, std::uint32_t* labels,
                                        StageTimings* timings = nullptr);

    // The same on the caller's host memory in an Image's layout (a 2-D
    // image, or a volume with dimensions 3): view.byteCount() bytes in, one
    // label per pixel or voxel out into `labels` (x fastest, then y, then z;
    // may be null: the table only). Returns the table, valid until the next
    // call.
    const std::vector<Component>& label(const ImageView& image, Connectivity connectivity, Criterion criterion,
                                        std::uint32_t* labels, StageTimings* timings = nullptr);

    // Zero-copy entry: labels an image (depth 1, connectivity 4 or 8) or a
    // volume (connectivity 6, 18 or 26) in device memory into labels in
    // device memory (both on this labeler's device; the two may not
    // overlap). The work is ordered after what `stream` holds when it is
    // called (null: the default stream), and done when it returns. The
    // samples are voxels.sampleBits wide (8, 16, 32 or 64; color 8, 16 or
    // 32). Packed arrays (rowPitch == width * channels * sampleBits / 8,
    // resp. width * 4, slices packed, data aligned to an element) are used
    // in place; other layouts cost one device copy each way. Returns the table (a volume's with front, depth,
    // centroidZ), valid until the next call. Throws for more than 2^32 - 2
    // elements (32-bit indices; the tiles layer labels larger volumes in
    // bricks).
    const std::vector<Component>& labelDevice(const DeviceVolume& voxels, const DeviceVolumeLabels& labels,
                                              Connectivity connectivity, Criterion criterion,
                                              CUstream_st* stream = nullptr, StageTimings* timings = nullptr);

    // The same without waiting, on the caller's stream: an image, a batch
    // (depth N with connectivity 4 or 8: N images of width x height, each
    // numbered 1..n_i in its own raster order, as if labeled alone, in one
    // launch sequence) or a volume (6, 18, 26). The work runs on the
    // labeler's stream after what `stream` holds, and `stream`'s later work
    // waits for it through an event: no host wait, no device-wide
    // synchronization. `counts`, if not null, is device memory for one
    // uint32 per image (one for a volume) and receives the counts there.
    // Nothing comes back to the host; tableOf() computes a table when one is
    // wanted. The arrays must stay valid until `stream` gets past the work.
    // Calls of one labeler are ordered on its stream, so they may use
    // different caller streams. Timings, if given, wait for the stream.
    void labelDeviceAsync(const DeviceVolume& voxels, const DeviceVolumeLabels& labels, Connectivity connectivity,
                          Criterion criterion, CUstream_st* stream = nullptr, std::uint32_t* counts = nullptr,
                          StageTimings* timings = nullptr);

    // The component table of image `image` of the last labelDevice() or
    // labelDeviceAsync() (0 for a single image or a volume): waits for the
    // labeling, downloads the counts once, computes the table on the device
    // from the labels where that call wrote them (so they must still be
    // there) and downloads it. Valid until the next call.
    const std::vector<Component>& tableOf(int image);

    // The component counts of the last labelDevice() or labelDeviceAsync()
    // (one per image, one for a volume): downloads them once and waits for
    // the labeling. Valid until the next call.
    const std::vector<std::uint32_t>& componentCounts();

    // The table of the last successful call (empty before the first).
    const std::vector<Component>& table() const;

    // The terms `request` asks of the regions of the last successful
    // label() of a host image or volume, gathered on the GPU from its
    // labels, which stay on the device: gatherTerms() of them and table().
    // Throws glccl::Error as gatherTerms() does, and when the last call was
    // not a host label() (device labels: gatherTerms() on them).
    RegionTotals measureTerms(const TermRequest& request, const IntensitySamples* intensity = nullptr);

    ResourceCounts resourceCounts() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The terms `request` asks (glccl/region_properties.hpp) of labels 1..N of
// an image or volume of `shape` whose labels are in device memory (one
// uint32 per element, x fastest, packed; table[i] describes label i + 1, as
// a labeling's table does), gathered on the GPU, exactly: the totals equal
// glccl::measureTerms' (glccl/measure.hpp) of the same labels, limb for
// limb; finalizeProperties() turns them into columns. Counts and boxes come
// from the table. Moments (every level), perimeter and Crofton classes
// (2-D), Euler sums (2-D and 3-D), and of an integer intensity of one
// channel (`hostIntensity`, host memory of `shape`'s elements, 8 to 64 bits,
// signed or not; uploaded) sums, sums of squares, extrema with their first
// positions and weighted moments. A request for no terms launches nothing.
// The work is ordered after what `stream` holds (null: the default stream)
// and done when it returns. Cost: the intensity's upload, one to five
// passes over the labels (moments, perimeter, intensity, the extrema's
// positions, the 2x2 (2x2x2) windows), one download of the totals (8 bytes a
// word: 4 words a wide sum, 16 (64) sums at moment level 4, 9 words of
// perimeter, Crofton and Euler counts, 4 of extrema, per region).
// Throws glccl::Error for a request of the other dimension, perimeter or
// Crofton terms of a volume, intensity terms without an intensity, of
// several channels or of floating-point samples (measured on the host:
// glccl::measureTerms), an intensity of another shape, sides past 2^24,
// moments past what 256 bits hold, labels past the table, and CUDA errors.
RegionTotals gatherTerms(const std::uint32_t* deviceLabels, const Shape& shape, const std::vector<Component>& table,
                         const TermRequest& request, const IntensitySamples* hostIntensity = nullptr,
                         CUstream_st* stream = nullptr);

// gatherTerms() of an intensity that is in device memory already
// (`deviceIntensity->data` on the labels' device, `shape`'s elements, packed,
// one channel of an integer type of 8 to 64 bits): nothing uploaded, the
// totals the same, limb for limb. The intensity is read in stream order on
// `stream`. Throws as gatherTerms().
RegionTotals gatherTermsOfDeviceIntensity(const std::uint32_t* deviceLabels, const Shape& shape,
                                          const std::vector<Component>& table, const TermRequest& request,
                                          const IntensitySamples* deviceIntensity, CUstream_st* stream = nullptr);

// Labels in device memory made anywhere (a segmentation's output, a
// relabeling, ids past 2^32): integers of 1, 2, 4 or 8 bytes, signed or not,
// packed in C order (x fastest), `shape`'s elements on the current device.
// 0 is the background; every other value is a region, connected or not, the
// values in any order and with gaps. Negative labels are refused.
struct DeviceLabelSamples {
    Shape shape;
    const void* data = nullptr;
    int bytes = 4;
    bool isSigned = false;
};

// The regions of such labels as regionprops sees them: every distinct
// positive label (and 0 too where backgroundIsRegion) is one region, the
// regions in ascending order of label. ids[i] is the label of region i + 1;
// table[i] its element count (area) and box (centroids are left 0: the
// moments give them).
struct DeviceLabelTable {
    std::vector<std::uint64_t> ids;
    std::vector<Component> table;
};

// Numbers the regions of `labels` 1..n in ascending order of their labels
// into `denseLabels` (n = result.ids.size(); device memory, `labels.shape`'s
// uint32 elements, packed; 0 stays 0 unless backgroundIsRegion), and counts
// and boxes them: what gatherTerms() takes. Deterministic: a presence table
// and a prefix sum where the largest label is below about twice the element
// count, else a radix sort of the labels and a binary search; the counts
// and boxes by integer atomics. Cost: one pass to find the largest label
// (and refuse negative ones), the numbering (the table: two passes over
// labels up to the largest; the sort: 16 bytes of scratch per element), one
// pass that writes the numbers and adds each row's runs into the table, and
// the download of ids and table (40 bytes a region). Queued on `stream`
// after what it holds; returns when the table is on the host.
// Throws glccl::Error for negative labels, more than 2^32 - 1 regions, a
// sort of 2^31 elements or more, labels of another width, and CUDA errors.
DeviceLabelTable numberRegions(const DeviceLabelSamples& labels, std::uint32_t* denseLabels,
                               bool backgroundIsRegion = false, CUstream_st* stream = nullptr);

// The terms `request` asks of every region of `labels` (numberRegions()'s
// regions, ascending labels; RegionTotals::labels the labels themselves),
// gathered on the GPU where they are: numberRegions() into scratch device
// memory, then gatherTermsOfDeviceIntensity(). The totals equal
// glccl::measureTerms' (glccl/measure.hpp) of the same labels copied to the
// host, limb for limb; finalizeProperties() turns them into regionprops
// columns. An intensity, if any, is in device memory (as
// gatherTermsOfDeviceIntensity() takes it); floating-point intensities and
// several channels are refused (their sums are double-double sums in the
// host's order: glccl::measureTerms measures them). A shape with no element
// gives no region. Throws as numberRegions() and gatherTerms() do.
RegionTotals measureDeviceLabels(const DeviceLabelSamples& labels, const TermRequest& request,
                                 const IntensitySamples* deviceIntensity = nullptr, bool backgroundIsRegion = false,
                                 CUstream_st* stream = nullptr);

// What sumsByLabel() gathers for each label of a list, bits of `terms`.
namespace LabelSums {
enum : unsigned {
    Count = 1u,     // elements with the label
    Sum = 2u,       // the sum of their values
    Squares = 4u,   // with Sum: the centred sum of squares Σ(v − mean)²
    Extrema = 8u,   // the smallest and largest value, each at its first position in C order
    Centre = 16u,   // with Sum: the centre of mass Σ v·coordinate / Σ v on each axis
};
}

// Where sumsByLabel() writes, device memory of the list's length each (null:
// not written). Positions are flat indices in C order; a label with no
// element gets count 0, sum 0, centred 0, extrema and positions 0 and
// centres 0/0 (NaN), as scipy.ndimage gives for a label absent.
struct LabelSumsOutput {
    long long* counts = nullptr;
    double* sums = nullptr;
    double* centred = nullptr;
    long long* minimums = nullptr;
    long long* minimumAt = nullptr;
    long long* maximums = nullptr;
    long long* maximumAt = nullptr;
    double* centres[3] = {nullptr, nullptr, nullptr};  // one per axis of the array, in its order
};

// scipy.ndimage's reductions over labels for a list of labels, on the GPU
// where labels and values are, in one pass: the labels (any integers of 1,
// 2, 4 or 8 bytes, negative ones too, values in any order) and the values
// (integers or booleans of 1, 2 or 4 bytes; may be null where `terms` is
// Count) have `labels.shape`'s elements (fewer than 2^32) in C order of an
// array of `axes` (1 to 3) axes. sortedList holds listCount distinct labels
// in ascending order, as int64 (as uint64 for labels of uint64), in device
// memory; output i is of sortedList[i]. The totals are exact integers
// (128-bit sums), the same whatever order the GPU adds in; the outputs are
// their double quotients. Cost: one read of labels and values (the list's
// totals in shared memory where they fit, for short lists), then one thread
// per label. Queued on `stream`; throws glccl::Error for arguments outside
// the above.
void sumsByLabel(const DeviceLabelSamples& labels, int axes, const DeviceLabelSamples& values,
                 const void* sortedList, std::size_t listCount, unsigned terms, const LabelSumsOutput& out,
                 CUstream_st* stream = nullptr);

// One call: ImageLabeler::labelDevice on a volume with a new labeler (its
// device buffers are allocated and freed in the call).
std::vector<Component> labelDeviceVolume(const DeviceVolume& voxels, const DeviceVolumeLabels& labels,
                                         Connectivity connectivity, Criterion criterion,
                                         CUstream_st* stream = nullptr, StageTimings* timings = nullptr);

// One call: labels a host image or volume (1 or 4 channels) with a new ImageLabeler.
Labeling labelImage(const Image& image, Connectivity connectivity, Criterion criterion,
                    StageTimings* timings = nullptr);

// One call: TextureLabeler::label with a new labeler (registers and
// unregisters both textures). channels: 1 for GL_R8, 4 for GL_RGBA8.
std::vector<Component> labelGlTexture(unsigned inputTexture, unsigned labelTexture, int width, int height,
                                      int channels, Connectivity connectivity, Criterion criterion,
                                      StageTimings* timings = nullptr);

}  // namespace glccl::cuda
