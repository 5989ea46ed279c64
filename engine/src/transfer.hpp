#pragma once
// Whole-texture transfers between host memory and a texture, at the bus's
// speed where the context allows it: pipelined bands through a few
// persistently mapped pixel buffers, each band copied by several threads.
//
//   upload (TextureUploader), band k in buffer k % N:
//     host:  copy 0 | copy 1 | copy 2 | copy 3 |
//     GPU:           | tex 0  | tex 1  | tex 2  | tex 3      (glTexSubImage2D from the buffer)
//   download (TextureDownloader):
//     GPU:   read 0 | read 1 | read 2 | read 3 |            (glGetTextureSubImage, or
//     host:           | copy 0 | copy 1 | copy 2 | copy 3     glReadPixels, into the buffer)
//
// A fence after each band says when its buffer may be copied out or
// refilled. The buffers are kept from one call to the next (a batch of
// images allocates them once) and bounded by the band size, never the
// image's: N buffers of at most Tuning::transferBandBytes.
//
// Why: on NVIDIA's driver, glTexSubImage2D from pageable memory runs at
// 6.9 GB/s and glGetTexImage into pageable memory at 1-4 GB/s, each one
// thread copying through the driver's own staging; from and into mapped
// buffers the bus runs at 50 GB/s and the host's copy is ours to split.
//
// The plain path (one glTexSubImage2D / glGetTexImage on host memory) is
// taken where the context lacks buffer storage (OpenGL 4.4 or
// GL_ARB_buffer_storage), on a software rasterizer (its textures are host
// memory already: a band would be one more copy), and in auto mode for
// transfers below kMinBandedBytes, where a fence costs more than it saves,
// and for downloads where glGetTextureSubImage (OpenGL 4.5) is missing:
// glReadPixels into a pack buffer stalls NVIDIA's driver (0.84 s for an
// R32UI texture of 2048^2 on the H200), so it runs only when asked for.
//
// Settings come from the process's Tuning (glccl/tuning.hpp: transfer,
// transferReadback, transferBandBytes, transferBuffers,
// transferClientStorage, copyThreads, copyStores) at the start of every
// transfer, so that a program (and the device probe,
// tools/device/transfer_probe.cpp) can compare variants between calls.

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
    enum class Readback { ReadPixels, TextureSubImage };
    Mode mode = Mode::Auto;
    Readback readback = Readback::TextureSubImage;
    std::size_t bandBytes = Tuning::kDefaultTransferBandBytes;
    int buffers = Tuning::kDefaultTransferBuffers;
    int copyThreads = 1;
    bool streamingStores = false;  // Tuning::copyStores, where the processor has them
    bool clientStorageUpload = false;
    bool clientStorageDownload = true;

    // The settings the process's Tuning asks for (glccl::tuning()).
    static Settings current();
    // "bands 32M x3, subimage, 16 threads streaming" or "plain", for reports.
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
    // Uploads `pixels` (rows tightly packed, row 0 first, bytesPerPixel
    // bytes a pixel in `format`/`type`) into level 0 of `texture`. Leaves the
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
// stream of downloads); its buffers and framebuffer are kept between calls.
class TextureDownloader {
public:
    // Downloads level 0 of `texture` into `pixels` (rows tightly packed,
    // row 0 first), waiting for the GPU work that writes it. `texture` must
    // be color-renderable for the readpixels readback (every format the
    // engine downloads is). Leaves the GL state as it found it. Throws
    // glccl::Error naming `what` on a GL error.
    void download(const gl::Texture& texture, void* pixels, GLenum format, GLenum type, std::size_t bytesPerPixel,
                  const std::string& what);
    std::size_t bufferBytes() const { return ring_.totalBytes(); }

private:
    BufferRing ring_;
    gl::Framebuffer framebuffer_;
    CopyThreads copier_;
};

}  // namespace glccl::transfer
