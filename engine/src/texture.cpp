#include "glccl/texture.hpp"

#include "gl_error.hpp"
#include "gl_objects.hpp"
#include "glccl/error.hpp"

namespace glccl {

namespace {

constexpr const char* kWhere = "glccl::ImageTexture";

GLenum layoutOf(int channels) { return channels == 1 ? GL_RED : GL_RGBA; }

}  // namespace

struct ImageTexture::Impl {
    gl::Texture texture;
    int channels = 1;
};

ImageTexture::ImageTexture() = default;
ImageTexture::~ImageTexture() = default;
ImageTexture::ImageTexture(ImageTexture&& other) noexcept = default;
ImageTexture& ImageTexture::operator=(ImageTexture&& other) noexcept = default;

ImageTexture::ImageTexture(const Image& image) {
    const std::string where = std::string(kWhere) + ": ";
    if (image.channels != 1 && image.channels != 4)
        throw Error(where + "images have 1 or 4 channels, not " + std::to_string(image.channels));
    if (image.width < 1 || image.height < 1 ||
        image.pixels.size() != std::size_t(image.width) * image.height * image.channels)
        throw Error(where + "the image is empty or its pixel buffer does not match its size");
    GLint largest = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
    if (image.width > largest || image.height > largest)
        throw Error(where + "the image is " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                    " but GL_MAX_TEXTURE_SIZE is " + std::to_string(largest));
    auto impl = std::make_unique<Impl>();
    impl->channels = image.channels;
    impl->texture = gl::Texture::allocate(image.channels == 1 ? GL_R8 : GL_RGBA8, image.width, image.height,
                                          std::string(kWhere) + ": the texture");
    impl->texture.upload(image.pixels.data(), layoutOf(image.channels), GL_UNSIGNED_BYTE);
    checkGlError(std::string(kWhere) + ": uploading the image");
    impl_ = std::move(impl);
}

unsigned ImageTexture::id() const { return impl_ ? impl_->texture.id() : 0; }
int ImageTexture::width() const { return impl_ ? impl_->texture.width() : 0; }
int ImageTexture::height() const { return impl_ ? impl_->texture.height() : 0; }
int ImageTexture::channels() const { return impl_ ? impl_->channels : 0; }

Image ImageTexture::download() const {
    if (!impl_) throw Error(std::string(kWhere) + "::download(): the texture is empty");
    Image image(width(), height(), impl_->channels);
    impl_->texture.download(image.pixels.data(), layoutOf(impl_->channels), GL_UNSIGNED_BYTE);
    checkGlError(std::string(kWhere) + "::download()");
    return image;
}

}  // namespace glccl
