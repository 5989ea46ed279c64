#pragma once
// A host image as a GL texture of the current context, for programs that
// hand glccl::Labeler a texture they uploaded themselves (the glccl command,
// the viewer, tests).

#include <memory>

#include "glccl/types.hpp"

namespace glccl {

// Move-only owner of a 2-D texture holding an uploaded Image: GL_R8 for 1
// channel, GL_RGBA8 for 4; nearest filtering, one level. A moved-from or
// default-constructed ImageTexture holds texture 0. Destroy it while its
// context is current (the texture is deleted then).
class ImageTexture {
public:
    ImageTexture();
    // Uploads `image` into a new texture of the current context. Throws
    // glccl::Error ("glccl::ImageTexture: ...") on an image whose pixel buffer
    // does not match its size, a channel count other than 1 or 4, a size
    // beyond GL_MAX_TEXTURE_SIZE, or a GL error (GL_OUT_OF_MEMORY). Cost:
    // one allocation and one upload of the pixels.
    explicit ImageTexture(const Image& image);
    ~ImageTexture();
    ImageTexture(ImageTexture&& other) noexcept;
    ImageTexture& operator=(ImageTexture&& other) noexcept;
    ImageTexture(const ImageTexture&) = delete;
    ImageTexture& operator=(const ImageTexture&) = delete;

    unsigned id() const;  // the GL texture name, 0 when empty
    int width() const;
    int height() const;
    int channels() const;  // 1 (GL_R8) or 4 (GL_RGBA8)

    // The texture's current content (it may have been rendered into since
    // the upload) as an Image of the same channels. Throws glccl::Error on an
    // empty ImageTexture or a GL error.
    Image download() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace glccl
