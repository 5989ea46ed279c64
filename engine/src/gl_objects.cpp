#include "gl_objects.hpp"

#include <cstdint>
#include <vector>

#include "gl_error.hpp"
#include "glccl/error.hpp"

namespace glccl::gl {

GLuint TextureTraits::create() { GLuint id = 0; glGenTextures(1, &id); return id; }
void TextureTraits::destroy(GLuint id) { glDeleteTextures(1, &id); }
GLuint FramebufferTraits::create() { GLuint id = 0; glGenFramebuffers(1, &id); return id; }
void FramebufferTraits::destroy(GLuint id) { glDeleteFramebuffers(1, &id); }
GLuint RenderbufferTraits::create() { GLuint id = 0; glGenRenderbuffers(1, &id); return id; }
void RenderbufferTraits::destroy(GLuint id) { glDeleteRenderbuffers(1, &id); }
GLuint BufferTraits::create() { GLuint id = 0; glGenBuffers(1, &id); return id; }
void BufferTraits::destroy(GLuint id) { glDeleteBuffers(1, &id); }
GLuint QueryTraits::create() { GLuint id = 0; glGenQueries(1, &id); return id; }
void QueryTraits::destroy(GLuint id) { glDeleteQueries(1, &id); }
GLuint VertexArrayTraits::create() { GLuint id = 0; glGenVertexArrays(1, &id); return id; }
void VertexArrayTraits::destroy(GLuint id) { glDeleteVertexArrays(1, &id); }
GLuint SamplerTraits::create() { GLuint id = 0; glGenSamplers(1, &id); return id; }
void SamplerTraits::destroy(GLuint id) { glDeleteSamplers(1, &id); }
GLuint ProgramTraits::create() { return glCreateProgram(); }
void ProgramTraits::destroy(GLuint id) { glDeleteProgram(id); }
void ShaderTraits::destroy(GLuint id) { glDeleteShader(id); }

namespace {

// The value a transfer sets a pixel-store parameter to: the GL's initial
// one, except alignment 1 (rows of any width tightly packed).
GLint transferValue(const PixelStore& p) {
    return p.name == GL_PACK_ALIGNMENT || p.name == GL_UNPACK_ALIGNMENT ? 1 : p.initial;
}

// Format and type glTexImage2D accepts for an internal format (data unused):
// OpenGL ES accepts only the pairs its table lists for each format.
void transferFormatOf(GLenum internalFormat, GLenum& format, GLenum& type) {
    switch (internalFormat) {
        case GL_R8: format = GL_RED; type = GL_UNSIGNED_BYTE; return;
        case GL_R8UI: format = GL_RED_INTEGER; type = GL_UNSIGNED_BYTE; return;
        case GL_R16: format = GL_RED; type = GL_UNSIGNED_SHORT; return;
        case GL_R16UI: format = GL_RED_INTEGER; type = GL_UNSIGNED_SHORT; return;
        case GL_RGBA8: format = GL_RGBA; type = GL_UNSIGNED_BYTE; return;
        case GL_RGBA16: format = GL_RGBA; type = GL_UNSIGNED_SHORT; return;
        case GL_R32F: format = GL_RED; type = GL_FLOAT; return;
        case GL_RG32F: format = GL_RG; type = GL_FLOAT; return;
        case GL_RGBA32F: format = GL_RGBA; type = GL_FLOAT; return;
        case GL_R32UI: format = GL_RED_INTEGER; type = GL_UNSIGNED_INT; return;
        case GL_RG32UI: format = GL_RG_INTEGER; type = GL_UNSIGNED_INT; return;
        case GL_RGBA32UI: format = GL_RGBA_INTEGER; type = GL_UNSIGNED_INT; return;
        default: format = GL_RED; type = GL_UNSIGNED_BYTE; return;
    }
}

}  // namespace

TransferStateGuard::TransferStateGuard() {
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture_);
    glGetIntegerv(GL_TEXTURE_BINDING_3D, &texture3d_);
    glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &textureArray_);
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpackBuffer_);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &packBuffer_);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &readFramebuffer_);
    es_ = isEs();
    for (std::size_t i = 0; i < kPixelStores.size(); ++i) {
        if (es_ && desktopOnlyPixelStore(kPixelStores[i].name)) continue;
        glGetIntegerv(kPixelStores[i].name, &pixelStore_[i]);
        glPixelStorei(kPixelStores[i].name, transferValue(kPixelStores[i]));
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
}

TransferStateGuard::~TransferStateGuard() {
    glBindTexture(GL_TEXTURE_2D, GLuint(texture_));
    glBindTexture(GL_TEXTURE_3D, GLuint(texture3d_));
    glBindTexture(GL_TEXTURE_2D_ARRAY, GLuint(textureArray_));
    for (std::size_t i = 0; i < kPixelStores.size(); ++i)
        if (!es_ || !desktopOnlyPixelStore(kPixelStores[i].name)) glPixelStorei(kPixelStores[i].name, pixelStore_[i]);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, GLuint(unpackBuffer_));
    glBindBuffer(GL_PIXEL_PACK_BUFFER, GLuint(packBuffer_));
    glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(readFramebuffer_));
}

Fence Fence::insert() {
    Fence fence;
    fence.sync_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    return fence;
}

void Fence::wait(const std::string& what) {
    if (sync_ == nullptr) return;
    // The first wait flushes the commands before the fence, so that the GPU
    // starts on them; a driver answers a long wait in slices.
    GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
    for (;;) {
        const GLenum status = glClientWaitSync(sync_, flags, GLuint64(1000000000));
        if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED) break;
        if (status == GL_WAIT_FAILED) {
            reset();
            checkGlError(what + ": waiting for a fence");
            throw Error(what + ": waiting for a fence failed");
        }
        flags = 0;
    }
    reset();
}

void Fence::reset() {
    if (sync_ != nullptr) glDeleteSync(sync_);
    sync_ = nullptr;
}

Texture Texture::allocate(GLenum internalFormat, int width, int height, const std::string& what) {
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    if (width < 1 || height < 1) throw Error(what + ": texture size " + size + " is empty");
    return allocateOn(GL_TEXTURE_2D, internalFormat, width, height, 1, what + ": allocating a " + size + " texture");
}

Texture Texture::allocateVolume(GLenum internalFormat, int width, int height, int depth, const std::string& what) {
    const std::string size = std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(depth);
    if (width < 1 || height < 1 || depth < 1) throw Error(what + ": texture size " + size + " is empty");
    return allocateOn(GL_TEXTURE_3D, internalFormat, width, height, depth,
                      what + ": allocating a " + size + " volume texture");
}

Texture Texture::allocateOn(GLenum target, GLenum internalFormat, int width, int height, int depth,
                            const std::string& what) {
    clearGlErrors();
    TransferStateGuard guard;
    Texture texture;
    texture.name_ = Object<TextureTraits>::create();
    texture.width_ = width;
    texture.height_ = height;
    texture.depth_ = depth;
    texture.target_ = target;
    texture.internalFormat_ = internalFormat;
    GLenum format = 0, type = 0;
    transferFormatOf(internalFormat, format, type);
    glBindTexture(target, texture.id());
    // OpenGL ES binds only immutable textures to image units (the compute
    // engine's): there the storage is allocated once, by glTexStorage.
    if (isEs() && target == GL_TEXTURE_3D)
        glTexStorage3D(target, 1, internalFormat, width, height, depth);
    else if (isEs())
        glTexStorage2D(target, 1, internalFormat, width, height);
    else if (target == GL_TEXTURE_3D)
        glTexImage3D(target, 0, GLint(internalFormat), width, height, depth, 0, format, type, nullptr);
    else
        glTexImage2D(target, 0, GLint(internalFormat), width, height, 0, format, type, nullptr);
    for (const auto& [name, value] : {std::pair<GLenum, GLint>{GL_TEXTURE_MIN_FILTER, GL_NEAREST},
                                      {GL_TEXTURE_MAG_FILTER, GL_NEAREST},
                                      {GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE},
                                      {GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE},
                                      {GL_TEXTURE_MAX_LEVEL, 0}})
        glTexParameteri(target, name, value);
    if (target == GL_TEXTURE_3D) glTexParameteri(target, GL_TEXTURE_WRAP_R, GL_CLAMP_TO_EDGE);
    checkGlError(what);
    return texture;
}

Texture Texture::borrow(GLuint id, GLenum internalFormat, int width, int height) {
    Texture texture;
    texture.name_ = Object<TextureTraits>::borrow(id);
    texture.width_ = width;
    texture.height_ = height;
    texture.internalFormat_ = internalFormat;
    return texture;
}

Texture Texture::borrowVolume(GLuint id, GLenum internalFormat, int width, int height, int depth) {
    Texture texture = borrow(id, internalFormat, width, height);
    texture.depth_ = depth;
    texture.target_ = GL_TEXTURE_3D;
    return texture;
}

void Texture::upload(const void* pixels, GLenum format, GLenum type) const {
    TransferStateGuard guard;
    glBindTexture(target_, id());
    if (target_ == GL_TEXTURE_3D)
        glTexSubImage3D(GL_TEXTURE_3D, 0, 0, 0, 0, width_, height_, depth_, format, type, pixels);
    else
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, format, type, pixels);
    checkGlError("glccl: texture upload");
}

namespace {

// Bytes a pixel of `format` and `type` takes in client memory (the formats
// and types the engines read back).
std::size_t pixelBytes(GLenum format, GLenum type) {
    const std::size_t channels = format == GL_RGBA || format == GL_RGBA_INTEGER ? 4
                                 : format == GL_RG || format == GL_RG_INTEGER   ? 2
                                                                                : 1;
    const std::size_t bytes = type == GL_UNSIGNED_BYTE || type == GL_BYTE         ? 1
                              : type == GL_UNSIGNED_SHORT || type == GL_SHORT     ? 2
                                                                                  : 4;
    return channels * bytes;
}

}  // namespace

void Texture::download(void* pixels, GLenum format, GLenum type) const {
    // ES has no glGetTexImage: a 2-D texture is read from a framebuffer, a
    // volume a slice at a time.
    if (target_ == GL_TEXTURE_2D && isEs()) {
        readTextureRect(*this, 0, 0, width(), height(), format, type, pixels);
        return;
    }
    if (target_ == GL_TEXTURE_3D && isEs()) {
        const std::size_t slice = std::size_t(width()) * std::size_t(height()) * pixelBytes(format, type);
        for (int z = 0; z < depth(); ++z)
            readTextureLayerRect(id(), z, 0, 0, width(), height(), format, type,
                                 static_cast<unsigned char*>(pixels) + slice * std::size_t(z));
        return;
    }
    TransferStateGuard guard;
    glBindTexture(target_, id());
    glGetTexImage(target_, 0, format, type, pixels);
    checkGlError("glccl: texture download");
}

namespace {

// glReadPixels of the read framebuffer's color attachment 0. ES reads one
// channel of a 32-bit target only through the implementation's own format:
// the guaranteed one (RGBA, RGBA_INTEGER) is read and its first channel
// kept.
void readAttachment(int x, int y, int width, int height, GLenum format, GLenum type, void* pixels) {
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    const bool oneChannel = format == GL_RED || format == GL_RED_INTEGER;
    const bool fourBytes = type == GL_FLOAT || type == GL_UNSIGNED_INT || type == GL_INT;
    if (oneChannel && fourBytes && isEs()) {
        std::vector<std::uint32_t> texels(std::size_t(width) * std::size_t(height) * 4);
        glReadPixels(x, y, width, height, format == GL_RED ? GL_RGBA : GL_RGBA_INTEGER, type, texels.data());
        auto* out = static_cast<std::uint32_t*>(pixels);
        for (std::size_t i = 0; i < texels.size() / 4; ++i) out[i] = texels[i * 4];
    } else {
        glReadPixels(x, y, width, height, format, type, pixels);
    }
}

// Reads a rectangle of the texture image that `attach` attaches to the read
// framebuffer's first color attachment; the read binding is restored.
template <class Attach>
void readAttachedRect(Attach&& attach, int x, int y, int width, int height, GLenum format, GLenum type,
                      void* pixels, const char* what) {
    if (width <= 0 || height <= 0) return;
    TransferStateGuard guard;
    GLint previousRead = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previousRead);
    Framebuffer framebuffer = Framebuffer::create();
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer.id());
    attach();
    readAttachment(x, y, width, height, format, type, pixels);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(previousRead));
    checkGlError(what);
}

}  // namespace

void readTextureRect(const Texture& texture, int x, int y, int width, int height, GLenum format, GLenum type,
                     void* pixels) {
    readAttachedRect(
        [&] { glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture.id(), 0); }, x,
        y, width, height, format, type, pixels, "glccl: reading back a texture rectangle");
}

void readTextureLayerRect(GLuint texture, int layer, int x, int y, int width, int height, GLenum format, GLenum type,
                          void* pixels) {
    readAttachedRect([&] { glFramebufferTextureLayer(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, texture, 0, layer); },
                     x, y, width, height, format, type, pixels, "glccl: reading back a texture layer");
}

GLint Program::location(const char* uniform) {
    auto found = locations_.find(uniform);
    if (found != locations_.end()) return found->second;
    const GLint where = glGetUniformLocation(name_.id(), uniform);
    locations_.emplace(uniform, where);
    return where;
}

// GL 3.3 sets uniforms of the program in use (glProgramUniform is 4.1), so
// each setter makes its program current first.
void Program::set(const char* uniform, int value) { use(); glUniform1i(location(uniform), value); }
void Program::set(const char* uniform, int x, int y) { use(); glUniform2i(location(uniform), x, y); }
void Program::set(const char* uniform, int x, int y, int z) { use(); glUniform3i(location(uniform), x, y, z); }
void Program::set(const char* uniform, unsigned value) { use(); glUniform1ui(location(uniform), value); }
void Program::set(const char* uniform, unsigned x, unsigned y, unsigned z) {
    use();
    glUniform3ui(location(uniform), x, y, z);
}
void Program::set(const char* uniform, float value) { use(); glUniform1f(location(uniform), value); }
void Program::set(const char* uniform, float x, float y) { use(); glUniform2f(location(uniform), x, y); }

}  // namespace glccl::gl

namespace glccl::gl {

namespace {

const char* framebufferStatusName(GLenum status) {
    switch (status) {
        case GL_FRAMEBUFFER_COMPLETE: return "GL_FRAMEBUFFER_COMPLETE";
        case GL_FRAMEBUFFER_UNDEFINED: return "GL_FRAMEBUFFER_UNDEFINED";
        case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
        case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
        case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
        case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE: return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
        default: return "unknown framebuffer status";
    }
}

void checkComplete(const std::string& what) {
    const GLenum status = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) throw Error(what + ": framebuffer incomplete: " + framebufferStatusName(status));
}

}  // namespace

RenderTarget RenderTarget::allocate(GLenum internalFormat, int width, int height, const std::string& what,
                                    GLuint depthRenderbuffer, GLenum depthAttachment) {
    RenderTarget target;
    target.texture = Texture::allocate(internalFormat, width, height, what);
    const Texture* textures[] = {&target.texture};
    target.framebuffer = multipleTargetFramebuffer(textures, 1, what);
    if (depthRenderbuffer != 0) {
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.framebuffer.id());
        glFramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, depthAttachment, GL_RENDERBUFFER, depthRenderbuffer);
        checkComplete(what);
    }
    return target;
}

Framebuffer multipleTargetFramebuffer(const Texture* const* textures, int count, const std::string& what,
                                      GLuint depthRenderbuffer) {
    Framebuffer framebuffer = Framebuffer::create();
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer.id());
    GLenum buffers[16] = {};
    for (int i = 0; i < count; ++i) {
        glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GLenum(GL_COLOR_ATTACHMENT0 + i), GL_TEXTURE_2D, textures[i]->id(), 0);
        buffers[i] = GLenum(GL_COLOR_ATTACHMENT0 + i);
    }
    glDrawBuffers(count, buffers);
    if (depthRenderbuffer != 0)
        glFramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depthRenderbuffer);
    checkComplete(what);
    checkGlError(what + ": creating a framebuffer");
    return framebuffer;
}

void attachColor(const Framebuffer& framebuffer, const Texture& texture, const std::string& what) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer.id());
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture.id(), 0);
    checkComplete(what);
}

Renderbuffer allocateRenderbuffer(GLenum internalFormat, int width, int height, const std::string& what) {
    Renderbuffer renderbuffer = Renderbuffer::create();
    GLint previous = 0;
    glGetIntegerv(GL_RENDERBUFFER_BINDING, &previous);
    glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer.id());
    glRenderbufferStorage(GL_RENDERBUFFER, internalFormat, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, GLuint(previous));
    checkGlError(what + ": allocating a " + std::to_string(width) + "x" + std::to_string(height) + " renderbuffer");
    return renderbuffer;
}

}  // namespace glccl::gl
