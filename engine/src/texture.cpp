#include "glccl/texture.hpp"

#include "gl.hpp"
#include "gl_error.hpp"
#include "gl_objects.hpp"
#include "glccl/error.hpp"
#include "transfer.hpp"

namespace glccl {

// What ImageTexture::Impl keeps of layoutOf()'s choice (outside the unnamed
// namespace, as a member's type of a class with external linkage).
struct TextureLayout {
    GLenum internalFormat = 0, format = 0, type = 0;
};

namespace {

constexpr const char* kWhere = "glccl::ImageTexture";

// How an Image of each channel count and sampleBits travels to the GPU. Every
// format keeps the exact sample values: 8- and 16-bit samples as normalized
// integers (a 16-bit value v reads as v / 65535 in a float, and the shaders'
// round(x * 65535) gives v back exactly), 32-bit samples as unsigned
// integers (a float holds only 24 bits exactly), and 64-bit samples as two
// unsigned 32-bit halves, red the low and green the high one (GL has no
// 64-bit integer texel; a little-endian uint64 is those halves in order).
// OpenGL ES has 16-bit normalized formats only with EXT_texture_norm16:
// without it a 16-bit gray image goes up as GL_R16UI (core ES 3.0), read as
// the unsigned integers it holds, and 16-bit color has no format (the
// engines compare the channels of a color texture as normalized values).
// Errors start with `where`.
TextureLayout layoutOf(int channels, int sampleBits, const std::string& where) {
    const bool gray = channels == 1;
    switch (sampleBits) {
        case 8: return {gray ? GLenum(GL_R8) : GLenum(GL_RGBA8), gray ? GLenum(GL_RED) : GLenum(GL_RGBA), GL_UNSIGNED_BYTE};
        case 16:
            if (gl::isEs() && !gl::hasExtension("GL_EXT_texture_norm16")) {
                if (gray) return {GL_R16UI, GL_RED_INTEGER, GL_UNSIGNED_SHORT};
                const auto* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
                throw Error(where + "16-bit color images need GL_RGBA16, which an OpenGL ES context has only with "
                            "EXT_texture_norm16, and this one (" + std::string(version ? version : "OpenGL ES") +
                            ") lacks it (16-bit gray images go up as GL_R16UI there; color has no such way)");
            }
            return {gray ? GLenum(GL_R16) : GLenum(GL_RGBA16), gray ? GLenum(GL_RED) : GLenum(GL_RGBA), GL_UNSIGNED_SHORT};
        case 32: return {GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT};
        default: return {GL_RG32UI, GL_RG_INTEGER, GL_UNSIGNED_INT};
    }
}

// An Image as a view, once its pixel buffer is known to match its fields.
ImageView checkedView(const Image& image) {
    if (image.pixelBufferMismatched())
        throw Error(std::string(kWhere) + ": the image's pixel buffer does not match its size");
    return ImageView(image);
}

}  // namespace

struct ImageTexture::Impl {
    gl::Texture texture;
    int channels = 1;
    int sampleBits = 8;
    TextureLayout layout;  // the texture's, chosen for its context when it was made
    // Kept with the texture: update() after update() reuses its buffers.
    transfer::TextureUploader uploader;

    void upload(const ImageView& image, const std::string& what) {
        // Samples are little-endian in the Image, the GL's native order on
        // the hosts glccl runs on.
        uploader.upload(texture, image.pixels, layout.format, layout.type,
                        std::size_t(image.channels) * std::size_t(image.sampleBits / 8), what);
    }
};

ImageTexture::ImageTexture() = default;
ImageTexture::~ImageTexture() = default;
ImageTexture::ImageTexture(ImageTexture&& other) noexcept = default;
ImageTexture& ImageTexture::operator=(ImageTexture&& other) noexcept = default;

ImageTexture::ImageTexture(const Image& image) : ImageTexture(checkedView(image)) {}

ImageTexture::ImageTexture(const ImageView& image) {
    const std::string where = std::string(kWhere) + ": ";
    if (image.dimensions == 3)
        throw Error(where + "the image is a volume (" + std::to_string(image.width) + "x" +
                    std::to_string(image.height) + "x" + std::to_string(image.depth) +
                    "); an ImageTexture holds a 2-D image (ImageTexture::volume takes volumes)");
    impl_ = allocate(image, where);
}

ImageTexture ImageTexture::volume(const Image& image) { return volume(checkedView(image)); }

ImageTexture ImageTexture::volume(const ImageView& view) {
    const std::string where = std::string(kWhere) + "::volume(): ";
    if (view.dimensions != 3)
        throw Error(where + "the image is 2-D (" + std::to_string(view.width) + "x" + std::to_string(view.height) +
                    "): a volume has dimensions 3");
    ImageTexture texture;
    texture.impl_ = allocate(view, where);
    return texture;
}

std::unique_ptr<ImageTexture::Impl> ImageTexture::allocate(const ImageView& image, const std::string& where) {
    if (image.channels != 1 && image.channels != 4)
        throw Error(where + "images have 1 or 4 channels, not " + std::to_string(image.channels));
    if (!Image::isSampleBits(image.sampleBits))
        throw Error(where + "images have 8-, 16-, 32- or 64-bit samples, not " + std::to_string(image.sampleBits) +
                    "-bit");
    if (image.sampleBits == 32 && image.channels == 4)
        throw Error(where + "32-bit color images are not uploaded (32-bit images are 1 channel: GL_R32UI)");
    if (image.sampleBits == 64 && image.channels == 4)
        throw Error(where + "64-bit color images are not uploaded (64-bit images are 1 channel: GL_RG32UI)");
    if (image.width < 1 || image.height < 1 || image.pixels == nullptr)
        throw Error(where + "the image is empty");
    const bool volume = image.dimensions == 3;
    GLint largest = 0;
    glGetIntegerv(volume ? GL_MAX_3D_TEXTURE_SIZE : GL_MAX_TEXTURE_SIZE, &largest);
    if (image.width > largest || image.height > largest || (volume && image.depth > largest))
        throw Error(where + (volume ? "the volume is " : "the image is ") + std::to_string(image.width) + "x" +
                    std::to_string(image.height) + (volume ? "x" + std::to_string(image.depth) : "") + " but " +
                    (volume ? "GL_MAX_3D_TEXTURE_SIZE" : "GL_MAX_TEXTURE_SIZE") + " is " + std::to_string(largest));
    const TextureLayout layout = layoutOf(image.channels, image.sampleBits, where);
    auto impl = std::make_unique<Impl>();
    impl->channels = image.channels;
    impl->sampleBits = image.sampleBits;
    impl->layout = layout;
    const std::string what = std::string(kWhere) + ": the texture";
    impl->texture = volume ? gl::Texture::allocateVolume(layout.internalFormat, image.width, image.height,
                                                         image.depth, what)
                           : gl::Texture::allocate(layout.internalFormat, image.width, image.height, what);
    impl->upload(image, std::string(kWhere) + ": uploading the image");
    return impl;
}

bool ImageTexture::fits(const Image& image) const { return image.isConsistent() && fits(ImageView(image)); }

bool ImageTexture::fits(const ImageView& image) const {
    const bool volume = impl_ && impl_->texture.target() == GL_TEXTURE_3D;
    return impl_ && image.width == impl_->texture.width() && image.height == impl_->texture.height() &&
           (image.dimensions == 3) == volume && image.depth == impl_->texture.depth() &&
           image.channels == impl_->channels && image.sampleBits == impl_->sampleBits && image.pixels != nullptr;
}

void ImageTexture::update(const Image& image) { update(checkedView(image)); }

void ImageTexture::update(const ImageView& image) {
    if (!fits(image))
        throw Error(std::string(kWhere) + "::update(): the image is " + std::to_string(image.width) + "x" +
                    std::to_string(image.height) + ", " + std::to_string(image.channels) + " channel(s) of " +
                    std::to_string(image.sampleBits) + " bits, not the texture's " + std::to_string(width()) + "x" +
                    std::to_string(height()) + ", " + std::to_string(channels()) + " of " + std::to_string(sampleBits()));
    impl_->upload(image, std::string(kWhere) + "::update(): uploading the image");
}

unsigned ImageTexture::id() const { return impl_ ? impl_->texture.id() : 0; }
int ImageTexture::width() const { return impl_ ? impl_->texture.width() : 0; }
int ImageTexture::height() const { return impl_ ? impl_->texture.height() : 0; }
int ImageTexture::depth() const { return impl_ ? impl_->texture.depth() : 0; }
int ImageTexture::channels() const { return impl_ ? impl_->channels : 0; }
int ImageTexture::sampleBits() const { return impl_ ? impl_->sampleBits : 0; }
unsigned ImageTexture::internalFormat() const { return impl_ ? impl_->texture.internalFormat() : 0; }

Image ImageTexture::download() const {
    if (!impl_) throw Error(std::string(kWhere) + "::download(): the texture is empty");
    const bool volume = impl_->texture.target() == GL_TEXTURE_3D;
    Image image(volume ? Shape::volume(width(), height(), depth()) : Shape::image(width(), height()), impl_->channels,
                impl_->sampleBits);
    impl_->texture.download(image.pixels.data(), impl_->layout.format, impl_->layout.type);
    checkGlError(std::string(kWhere) + "::download()");
    return image;
}

}  // namespace glccl
