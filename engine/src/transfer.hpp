#pragma once
// Whole-texture transfers between host memory and a texture (2-D or 3-D),
// at the bus's speed where the context allows it: pipelined slabs through a
// few persistently mapped pixel buffers, each slab copied by several threads.
//
// A slab is whole rows of whole slices, contiguous in host memory (x, then
// y, then z): several slices where a slice fits the slab size, else a band
// of rows of one slice. A band is a slab of a 2-D image.
//
//   upload (TextureUploader), slab k in buffer k % N:
//     host:  copy 0 | copy 1 | copy 2 | copy 3 |
//     GPU:           | tex 0  | tex 1  | tex 2  | tex 3      (glTexSubImage2D/3D from the buffer)
//   download (TextureDownloader):
//     GPU:   read 0 | read 1 | read 2 | read 3 |            (glGetTextureSubImage into
//     host:           | copy 0 | copy 1 | copy 2 | copy 3     the buffer)
//
// A fence after each slab says when its buffer may be copied out or
// refilled. The buffers are kept from one call to the next (a batch of
// images allocates them once) and bounded by the slab size, never the
// image's: N buffers of at most Tuning::transferBandBytes. A transfer smaller
// than a few bands of that size is cut into a few smaller ones
// (pipelinedBandBytes, parallel_copy.hpp), so that it still overlaps.
//
// Why: NVIDIA's driver moves pageable memory (glTexSubImage2D from it,
// glGetTexImage into it) through its own staging on one thread, far below
// the bus; from and into mapped buffers the bus runs at its own speed and
// the host's copy is ours to split over threads.
//
// The plain path (one glTexSubImage2D / glGetTexImage on host memory) is
// taken where the context lacks buffer storage (OpenGL 4.4 or
// GL_ARB_buffer_storage), on a software rasterizer (its textures are host
// memory already: a band would be one more copy), and in auto mode for
// transfers below kMinBandedBytes, where a fence costs more than it saves,
// and for downloads wherever glGetTextureSubImage (OpenGL 4.5) is missing:
// the other way to read a band, glReadPixels into a pack buffer, stalls
// NVIDIA's driver, where glGetTexImage moves the same labels at the bus's
// speed (bench/transfer_probe.cpp --anatomy).
//
// Download buffers ask for GL_CLIENT_STORAGE_BIT (cached host memory, which
// the host's copies read fastest), upload buffers do not; the host's copies
// store around the caches where the processor can (parallel_copy.hpp).
//
// Settings come from the process's Tuning (glccl/tuning.hpp: transfer,
// transferBandBytes, transferBuffers, copyThreads) at the start of every
// transfer, so that a program (and the transfer probe,
// bench/transfer_probe.cpp) can compare variants between calls.

#include <cstddef>
#include <string>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/tuning.hpp"
#include "parallel_copy.hpp"

namespace glccl::transfer {

// Smaller transfers take the plain path in auto mode.
constexpr std::size_t kMinBandedBytes = std::size_t(1) << 20;

struct Settings {
    enum class Mode { Auto, Plain, Bands };
    Mode mode = Mode::Auto;
    std::size_t bandBytes = Tuning::kDefaultTransferBandBytes;
    int buffers = Tuning::kDefaultTransferBuffers;
    int copyThreads = 1;

    // The settings the process's Tuning asks for (glccl::tuning()).
    static Settings current();
    // "bands 32M x3, 16 threads" or "plain", for reports.
    std::string describe() const;
};

// What the current context offers for banded transfers.
struct Capabilities {
    bool bufferStorage = false;     // OpenGL 4.4 or GL_ARB_buffer_storage
    bool textureSubImage = false;   // OpenGL 4.5 or GL_ARB_get_texture_sub_image
    bool softwareRenderer = false;  // llvmpipe, softpipe, swrast
    static Capabilities ofCurrentContext();
};

// Whether a transfer of `bytes` goes in bands with these settings here.
bool usesBands(const Settings& settings, const Capabilities& capabilities, std::size_t bytes);

// Rows [y, y + rows) of slices [z, z + slices); rows is the whole height
// whenever slices > 1, so that a slab is one run of host memory.
struct Slab {
    int y = 0, rows = 0;
    int z = 0, slices = 1;
};

// How a level of `depth` slices of `height` rows of `rowBytes` each splits
// into slabs of at most `slabBytes` where one row allows (a row is never
// split): as many whole slices as fit, or else bands of as many rows as fit
// of one slice. A 2-D image (depth 1) gets bands of max(1, slabBytes /
// rowBytes) rows, or one band when it fits whole. Slabs are numbered in
// memory order; the plan allocates nothing.
class SlabPlan {
public:
    SlabPlan(int height, int depth, std::size_t rowBytes, std::size_t slabBytes);
    int count() const { return count_; }
    Slab operator[](int k) const;
    // Where slab k starts in the host's pixels, and its bytes.
    std::size_t offset(const Slab& slab) const {
        return (std::size_t(slab.z) * std::size_t(height_) + std::size_t(slab.y)) * rowBytes_;
    }
    std::size_t bytes(const Slab& slab) const {
        return std::size_t(slab.rows) * std::size_t(slab.slices) * rowBytes_;
    }
    // The largest slab's bytes: the size of a buffer that takes any of them.
    std::size_t largestBytes() const { return count_ == 0 ? 0 : bytes((*this)[0]); }

private:
    int height_ = 0, depth_ = 1;
    std::size_t rowBytes_ = 0;
    bool wholeSlices_ = true;  // else bands of rows of one slice
    int rowsPerSlab_ = 0;      // the whole height when slabs are whole slices
    int slicesPerSlab_ = 1;    // 1 when slabs are bands
    int bandsPerSlice_ = 1;
    int count_ = 0;
};

// N persistently mapped buffers of one size with a fence each: the ring
// both directions share the shape of.
class BufferRing {
public:
    struct Slot {
        gl::Buffer buffer;
        unsigned char* mapped = nullptr;
        gl::Fence fence;  // the last command that reads or writes the buffer
    };
    // Makes (or keeps) `count` buffers of at least `bytes` each for
    // `target`, mapped with `access` (GL_MAP_READ_BIT or GL_MAP_WRITE_BIT),
    // with GL_CLIENT_STORAGE_BIT when `clientStorage`. Waits for the old
    // buffers' fences before it drops them.
    void ensure(GLenum target, std::size_t bytes, int count, GLbitfield access, bool clientStorage,
                const std::string& what);
    Slot& operator[](std::size_t i) { return slots_[i]; }
    std::size_t size() const { return slots_.size(); }
    std::size_t bytes() const { return bytes_; }
    // Waits for every fence (before the ring goes, or the buffers change).
    void drain(const std::string& what);
    // Host memory the buffers hold (for reports).
    std::size_t totalBytes() const { return bytes_ * slots_.size(); }

private:
    std::vector<Slot> slots_;
    std::size_t bytes_ = 0;
    GLenum target_ = 0;
    GLbitfield flags_ = 0;
};

// Uploads whole images into a texture. One per texture or per stream of
// same-sized images; its buffers are kept between calls. The current
// context must be the one it was first used in.
class TextureUploader {
public:
    // Uploads `pixels` (rows tightly packed, row 0 of slice 0 first,
    // bytesPerPixel bytes a pixel in `format`/`type`) into level 0 of
    // `texture`, 2-D or 3-D. Leaves the
    // GL state as it found it (TransferStateGuard). The pixels have been
    // read when it returns; the texture's new contents are ordered before
    // any later GL command. Throws glccl::Error naming `what` on a GL error.
    void upload(const gl::Texture& texture, const void* pixels, GLenum format, GLenum type,
                std::size_t bytesPerPixel, const std::string& what);
    // Host memory its buffers hold now.
    std::size_t bufferBytes() const { return ring_.totalBytes(); }

private:
    BufferRing ring_;
    CopyThreads copier_;
};

// Downloads whole textures into host memory. One per label texture (or any
// stream of downloads); its buffers are kept between calls.
class TextureDownloader {
public:
    // Downloads level 0 of `texture` (2-D or 3-D) into `pixels` (rows
    // tightly packed, row 0 of slice 0 first), waiting for the GPU work that
    // writes it; in slabs through glGetTextureSubImage, else in one
    // glGetTexImage. Leaves the GL state as it found it. Throws glccl::Error
    // naming `what` on a GL error.
    void download(const gl::Texture& texture, void* pixels, GLenum format, GLenum type, std::size_t bytesPerPixel,
                  const std::string& what);
    std::size_t bufferBytes() const { return ring_.totalBytes(); }

private:
    BufferRing ring_;
    CopyThreads copier_;
};

}  // namespace glccl::transfer
