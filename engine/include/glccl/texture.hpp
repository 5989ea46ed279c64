#pragma once
// A host image as a GL texture of the current context, for programs that
// hand glccl::Labeler a texture they uploaded themselves (the glccl command,
// the viewer, tests).

#include <memory>

#include "glccl/types.hpp"

namespace glccl {

// Move-only owner of a 2-D texture holding an uploaded Image, in a format
// that keeps every sample value exactly:
//   8-bit:  GL_R8 (1 channel), GL_RGBA8 (4)
//   16-bit: GL_R16 (1 channel), GL_RGBA16 (4); in an OpenGL ES context
//           without EXT_texture_norm16, GL_R16UI (1 channel; 4 channels
//           are refused there)
//   32-bit: GL_R32UI (1 channel only)
//   64-bit: GL_RG32UI (1 channel only: red the low 32 bits, green the high)
// Nearest filtering, one level. A moved-from or
// default-constructed ImageTexture holds texture 0. Destroy it while its
// context is current (the texture is deleted then).
class ImageTexture {
public:
    ImageTexture();
    // Uploads `image` into a new texture of the current context. Throws
    // glccl::Error ("glccl::ImageTexture: ...") on an image whose pixel buffer
    // does not match its size, a channel count other than 1 or 4, a sampleBits
    // other than 8, 16, 32 or 64 (or 32- or 64-bit color), a size beyond
    // GL_MAX_TEXTURE_SIZE, 16-bit color in an OpenGL ES context without
    // EXT_texture_norm16, or a GL error (GL_OUT_OF_MEMORY). Cost:
    // one allocation and one upload of the pixels (below).
    explicit ImageTexture(const Image& image);
    // The same from pixels the caller owns (no pixel-buffer size to check:
    // `image.pixels` must hold image.byteCount() bytes).
    explicit ImageTexture(const ImageView& image);
    // A volume (image.dimensions 3) into a GL_TEXTURE_3D of the same
    // formats, up to GL_MAX_3D_TEXTURE_SIZE a side; the same errors, and
    // "glccl::ImageTexture::volume(): ..." for a 2-D image. The constructors
    // above take 2-D images only.
    static ImageTexture volume(const Image& image);
    // The same from voxels the caller owns (no pixel-buffer size to check).
    static ImageTexture volume(const ImageView& image);
    ~ImageTexture();
    ImageTexture(ImageTexture&& other) noexcept;
    ImageTexture& operator=(ImageTexture&& other) noexcept;
    ImageTexture(const ImageTexture&) = delete;
    ImageTexture& operator=(const ImageTexture&) = delete;

    // Uploads `image` into this texture, which must be non-empty and hold an
    // image of the same width, height, channels and sampleBits (else
    // glccl::Error): one upload, no allocation after the first. The current
    // context must be the texture's.
    //
    // Upload cost. On a GPU with OpenGL 4.4 (or GL_ARB_buffer_storage),
    // images of 1 MiB or more go up in bands through three persistently
    // mapped pixel-unpack buffers of at most 32 MiB each, made on the first
    // upload and kept with the texture; each band is copied into its buffer
    // by several threads (8 MiB and more) while the GPU takes the last one.
    // Elsewhere (older contexts, software rasterizers, small images) it is
    // one glTexSubImage2D from the image. The transfer knobs of the
    // process's Tuning choose otherwise (glccl/tuning.hpp). The pixels have
    // been read when it returns. The host's pixel-store parameters, pixel
    // buffer bindings and texture binding are left as they were.
    void update(const Image& image);
    void update(const ImageView& image);
    // Whether update(image) can take `image`.
    bool fits(const Image& image) const;
    bool fits(const ImageView& image) const;

    unsigned id() const;  // the GL texture name, 0 when empty
    int width() const;
    int height() const;
    int depth() const;             // slices: 1 for a 2-D image
    int channels() const;          // 1 or 4
    int sampleBits() const;             // bits per sample: 8, 16 or 32
    unsigned internalFormat() const;  // GL_R8, GL_RGBA8, GL_R16, GL_R16UI, GL_RGBA16, GL_R32UI or GL_RG32UI; 0 when empty

    // The texture's current content (it may have been rendered into since
    // the upload) as an Image of the same channels and sampleBits. Throws glccl::Error on an
    // empty ImageTexture or a GL error.
    Image download() const;

private:
    struct Impl;
    // The texture of `image`, 2-D or 3-D as image.dimensions says; errors
    // start with `where`.
    static std::unique_ptr<Impl> allocate(const ImageView& image, const std::string& where);
    std::unique_ptr<Impl> impl_;
};

}  // namespace glccl
