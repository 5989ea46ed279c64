#pragma once
// The library's tuning knobs, in one place: how whole-texture transfers move
// pixels, how many threads copy on the host and how they store, where the
// compute engine keeps its parents, and whether the CUDA engine synchronises
// after each kernel. None of them changes a result, only how it is reached;
// the defaults are the fastest measured choice, so most programs never set
// any.
//
// One Tuning holds for the whole process (setTuning, tuning): these are
// process-level choices, read by every labeler and by the copy threads.
//
//   glccl::Tuning tuning = glccl::tuning();
//   tuning.transfer = glccl::Tuning::Transfer::Plain;
//   tuning.copyThreads = 4;
//   glccl::setTuning(tuning);
//
// The library reads one environment variable, a debug switch:
// GLCCL_CUDA_SYNC=1 makes the default of cudaSyncEachKernel true (read once,
// the first time a Tuning is made). It reads no other.
//
// Lives in the host library, the one below both the engine and the CUDA
// library (which the engine links), so that both read the same Tuning.

#include <cstddef>
#include <string>

namespace glccl {

struct Tuning {
    // Whole-texture transfers between host memory and a texture.
    enum class Transfer {
        Auto,   // bands where they pay (buffer storage, a hardware renderer,
                // at least 1 MiB), one plain call elsewhere
        Plain,  // one glTexSubImage2D / glGetTexImage on host memory
        Bands,  // pipelined bands through persistently mapped pixel buffers
                // wherever the context has buffer storage, even for small
                // transfers and software renderers (tests use it)
    };
    // How a band of a download is read out of the texture.
    enum class Readback {
        TextureSubImage,  // glGetTextureSubImage per band (OpenGL 4.5)
        ReadPixels,       // the texture on a framebuffer, glReadPixels per
                          // band: stalls some drivers, so only when asked for
    };
    // Which pixel buffers ask for GL_CLIENT_STORAGE_BIT (cached host memory).
    enum class ClientStorage { Download, Upload, Both, None };
    // How the host copies of large blocks store.
    enum class CopyStores {
        Stream,  // around the caches (non-temporal stores), where the
                 // processor has them; plain stores elsewhere
        Plain,   // through the caches (memcpy)
    };
    // Where the compute engine keeps the parents of its node grid.
    enum class ComputeParents {
        Auto,    // the faster storage buffer where it fits, else an image
        Buffer,  // the storage buffer; an image too large for it is an error
        Image,   // an R32UI image
    };

    // How the compute engine labels binary volumes.
    enum class ComputeVolumes {
        Grid,   // the node grid's passes (<stage>_volume_grid.comp), which
                // every criterion takes
        Nodes,  // bundle nodes (<stage>_volume.comp, the CUDA engine's
                // design), the default; other criteria and narrow volumes
                // keep the grid
    };

    // Which kernels the CUDA engine labels 2-D images with.
    enum class CudaKernels {
        Blocks,  // 2x2 blocks through the compute engine's passes
        Tiles,   // Stava & Benes' tiles solved in shared memory, then merged
    };

    static constexpr std::size_t kDefaultTransferBandBytes = std::size_t(32) << 20;
    static constexpr int kDefaultTransferBuffers = 3;
    static constexpr int kMaxTransferBuffers = 8;
    static constexpr int kMaxCopyThreads = 64;

    // Transfers: auto (default), plain or bands.
    Transfer transfer = Transfer::Auto;
    // Downloads in bands: subimage (default) or readpixels.
    Readback transferReadback = Readback::TextureSubImage;
    // Bytes per band, at least 1 (a band holds at least one row); default
    // 32 MiB. The pixel buffers hold this much each, never the whole image.
    std::size_t transferBandBytes = kDefaultTransferBandBytes;
    // Pixel buffers per direction, 2..8; default 3.
    int transferBuffers = kDefaultTransferBuffers;
    // Buffers in cached host memory: download (default), upload, both, none.
    ClientStorage transferClientStorage = ClientStorage::Download;
    // Threads of the large host copies (transfer bands, CUDA staging) and of
    // the decoding of large component tables: 1..64, or 0 (default) for the
    // machine's hardware threads, at most 16 (memory bandwidth, not cores,
    // bounds a copy past that).
    int copyThreads = 0;
    // Stores of those copies: stream (default) or plain.
    CopyStores copyStores = CopyStores::Stream;
    // The compute engine's parents: auto (default), buffer or image.
    ComputeParents computeParents = ComputeParents::Auto;
    // The compute engine's binary volumes: nodes (default) or grid.
    ComputeVolumes computeVolumes = ComputeVolumes::Nodes;
    // Release builds of the CUDA engine synchronise after each kernel and
    // check it, so that an asynchronous fault is reported by the kernel that
    // caused it (builds without NDEBUG always do). Default: whether the
    // environment has GLCCL_CUDA_SYNC=1.
    bool cudaSyncEachKernel = debugSyncRequested();
    // The CUDA engine's 2-D kernels: blocks (default) or tiles. A labeler's
    // own setKernels() takes precedence.
    CudaKernels cudaKernels = CudaKernels::Blocks;

    // Sets one knob from text, as a command line gives it: name is a field
    // above ("transfer", "transferBandBytes", ...), value one of the values
    // it lists ("bands"; a byte count such as "16777216", "64K", "32M" or
    // "1G"; "auto" for copyThreads 0; "0" or "1" for cudaSyncEachKernel;
    // "grid" or "nodes" for computeVolumes; "blocks" or "tiles" for
    // cudaKernels).
    // Throws glccl::Error("glccl::Tuning::set(): transfer is 'fast';
    // expected auto, plain or bands") for an unknown name or a malformed or
    // out-of-range value, leaving the Tuning as it was.
    void set(const std::string& name, const std::string& value);

    // "transfer=auto transferReadback=subimage ...": every knob, in the form
    // set() takes.
    std::string describe() const;

    // Whether GLCCL_CUDA_SYNC is 1 in the environment, read once per
    // process: the library's one read of the environment.
    static bool debugSyncRequested();
};

// Makes `tuning` the process's Tuning, for every call that starts after
// this one returns. Throws glccl::Error("glccl::setTuning(): ...") where a
// value is out of range (transferBandBytes 0, transferBuffers outside 2..8,
// copyThreads outside 0..64), leaving the current Tuning. Thread-safe.
void setTuning(const Tuning& tuning);

// A copy of the process's Tuning: the defaults until setTuning is called.
// Thread-safe; costs one uncontended lock.
Tuning tuning();

}  // namespace glccl
