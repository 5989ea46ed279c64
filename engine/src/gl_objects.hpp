#pragma once
// Move-only owners of GL objects. The only place that creates or deletes GL
// names (glGen*/glDelete*). A moved-from or destroyed wrapper holds 0; a
// texture of the host application is wrapped without ownership.

#include <array>
#include <string>
#include <unordered_map>
#include <utility>

#include "gl.hpp"
#include "pixel_store.hpp"

namespace glccl::gl {

template <class Traits>
class Object {
public:
    Object() = default;
    static Object create() { return Object(Traits::create(), true); }
    static Object borrow(GLuint id) { return Object(id, false); }
    static Object adopt(GLuint id) { return Object(id, true); }  // takes ownership of a name made elsewhere
    ~Object() { reset(); }
    Object(Object&& other) noexcept : id_(std::exchange(other.id_, 0)), owned_(other.owned_) {}
    Object& operator=(Object&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, 0);
            owned_ = other.owned_;
        }
        return *this;
    }
    Object(const Object&) = delete;
    Object& operator=(const Object&) = delete;

    GLuint id() const { return id_; }
    explicit operator bool() const { return id_ != 0; }
    void reset() {
        if (id_ != 0 && owned_) Traits::destroy(id_);
        id_ = 0;
    }

private:
    Object(GLuint id, bool owned) : id_(id), owned_(owned) {}
    GLuint id_ = 0;
    bool owned_ = true;
};

struct TextureTraits {
    static GLuint create();
    static void destroy(GLuint id);
};
struct FramebufferTraits {
    static GLuint create();
    static void destroy(GLuint id);
};
struct RenderbufferTraits {
    static GLuint create();
    static void destroy(GLuint id);
};
struct BufferTraits {
    static GLuint create();
    static void destroy(GLuint id);
};
struct QueryTraits {
    static GLuint create();
    static void destroy(GLuint id);
};
struct VertexArrayTraits {
    static GLuint create();
    static void destroy(GLuint id);
};
struct SamplerTraits {
    static GLuint create();
    static void destroy(GLuint id);
};
struct ProgramTraits {
    static GLuint create();
    static void destroy(GLuint id);
};
struct ShaderTraits {
    // Shaders need a type: made with glCreateShader(type) and adopted, see program.cpp.
    static void destroy(GLuint id);
};

using Framebuffer = Object<FramebufferTraits>;
using Renderbuffer = Object<RenderbufferTraits>;
using Buffer = Object<BufferTraits>;
using Query = Object<QueryTraits>;
using VertexArray = Object<VertexArrayTraits>;
using Sampler = Object<SamplerTraits>;

// A 2-D texture (GL_TEXTURE_2D) or a volume (GL_TEXTURE_3D) with its size
// and internal format. Nearest filtering and clamp-to-edge, one mip level:
// glccl reads texels with texelFetch only.
class Texture {
public:
    Texture() = default;
    // Throws glccl::Error (GL_OUT_OF_MEMORY, bad size) naming `what`.
    static Texture allocate(GLenum internalFormat, int width, int height, const std::string& what);
    // A GL_TEXTURE_3D of `depth` slices; the same errors.
    static Texture allocateVolume(GLenum internalFormat, int width, int height, int depth, const std::string& what);
    // Wraps a host texture without taking ownership.
    static Texture borrow(GLuint id, GLenum internalFormat, int width, int height);
    // Wraps a host GL_TEXTURE_3D without taking ownership.
    static Texture borrowVolume(GLuint id, GLenum internalFormat, int width, int height, int depth);

    GLuint id() const { return name_.id(); }
    int width() const { return width_; }
    int height() const { return height_; }
    int depth() const { return depth_; }         // slices: 1 for a 2-D texture
    GLenum target() const { return target_; }    // GL_TEXTURE_2D or GL_TEXTURE_3D
    GLenum internalFormat() const { return internalFormat_; }

    // Whole-image upload and download, rows tightly packed; saves and
    // restores the pixel-store state and texture binding they touch.
    void upload(const void* pixels, GLenum format, GLenum type) const;
    void download(void* pixels, GLenum format, GLenum type) const;

private:
    // allocate() and allocateVolume(): GL_TEXTURE_2D (depth 1) or GL_TEXTURE_3D.
    static Texture allocateOn(GLenum target, GLenum internalFormat, int width, int height, int depth,
                              const std::string& what);

    Object<TextureTraits> name_;
    int width_ = 0, height_ = 0, depth_ = 1;
    GLenum target_ = GL_TEXTURE_2D;
    GLenum internalFormat_ = 0;
};

// Saves the state a texture transfer touches and sets what transfers assume;
// restores it on destruction. Saved: the 2-D, 3-D and 2-D array texture
// bindings of the active unit, every pixel pack and unpack parameter (set to the GL defaults, with
// alignment 1: rows tightly packed), the pixel pack/unpack buffer bindings
// (set to 0) and the read framebuffer binding. The host's values of these
// would shift or redirect a transfer; ImageTexture and the Labeler's label
// download run inside one, so a host's context is left as it was.
class TransferStateGuard {
public:
    TransferStateGuard();
    ~TransferStateGuard();
    TransferStateGuard(const TransferStateGuard&) = delete;
    TransferStateGuard& operator=(const TransferStateGuard&) = delete;

private:
    GLint texture_ = 0, texture3d_ = 0, textureArray_ = 0, unpackBuffer_ = 0, packBuffer_ = 0, readFramebuffer_ = 0;
    std::array<GLint, kPixelStores.size()> pixelStore_{};
    bool es_ = false;  // ES lacks some pixel stores (gl_objects.cpp)
};

// A fence in the GL command stream (glFenceSync), waited for by the host.
// Move-only; a moved-from or default-constructed fence holds none.
class Fence {
public:
    Fence() = default;
    // A fence after every command issued so far.
    static Fence insert();
    ~Fence() { reset(); }
    Fence(Fence&& other) noexcept : sync_(std::exchange(other.sync_, nullptr)) {}
    Fence& operator=(Fence&& other) noexcept {
        if (this != &other) {
            reset();
            sync_ = std::exchange(other.sync_, nullptr);
        }
        return *this;
    }
    Fence(const Fence&) = delete;
    Fence& operator=(const Fence&) = delete;

    explicit operator bool() const { return sync_ != nullptr; }
    // Flushes and blocks until the GPU has passed the fence, then drops it.
    // Throws glccl::Error naming `what` when the wait fails.
    void wait(const std::string& what);
    void reset();

private:
    GLsync sync_ = nullptr;
};

// Reads a rectangle of color attachment 0 of a texture through a temporary
// framebuffer (glReadPixels), rows tightly packed.
void readTextureRect(const Texture& texture, int x, int y, int width, int height, GLenum format, GLenum type,
                     void* pixels);
// The same of one layer of a 3-D or 2-D array texture (glFramebufferTextureLayer),
// as OpenGL ES, which has no glGetTexImage, reads a volume slice by slice.
void readTextureLayerRect(GLuint texture, int layer, int x, int y, int width, int height, GLenum format, GLenum type,
                          void* pixels);

// A linked program with cached uniform locations.
class Program {
public:
    Program() = default;
    explicit Program(Object<ProgramTraits> name, std::string stage) : name_(std::move(name)), stage_(std::move(stage)) {}
    GLuint id() const { return name_.id(); }
    const std::string& stage() const { return stage_; }

    void use() const { glUseProgram(name_.id()); }
    // Setters make this program current; a uniform the driver optimised away is ignored.
    void set(const char* uniform, int value);
    void set(const char* uniform, int x, int y);
    void set(const char* uniform, int x, int y, int z);
    void set(const char* uniform, unsigned value);
    void set(const char* uniform, unsigned x, unsigned y, unsigned z);
    void set(const char* uniform, float value);
    void set(const char* uniform, float x, float y);

private:
    GLint location(const char* uniform);
    Object<ProgramTraits> name_;
    std::string stage_;
    std::unordered_map<std::string, GLint> locations_;
};

}  // namespace glccl::gl

namespace glccl::gl {

// A texture with a framebuffer that renders into it (color attachment 0),
// optionally with a depth or depth-stencil renderbuffer shared with others.
struct RenderTarget {
    Texture texture;
    Framebuffer framebuffer;

    static RenderTarget allocate(GLenum internalFormat, int width, int height, const std::string& what,
                                 GLuint depthRenderbuffer = 0, GLenum depthAttachment = GL_DEPTH_ATTACHMENT);
    int width() const { return texture.width(); }
    int height() const { return texture.height(); }
};

// `texture` attached again as `framebuffer`'s color target 0, checked
// complete: a texture's name may now stand for another texture than at the
// last attachment (one deleted and a new one made), and the attachment holds
// the object, not the name.
void attachColor(const Framebuffer& framebuffer, const Texture& texture, const std::string& what);

// A framebuffer over several color textures (draw buffers 0..n-1), checked complete.
// With a depth renderbuffer where depthRenderbuffer is not 0.
Framebuffer multipleTargetFramebuffer(const Texture* const* textures, int count, const std::string& what,
                                      GLuint depthRenderbuffer = 0);

// A renderbuffer of the given format and size.
Renderbuffer allocateRenderbuffer(GLenum internalFormat, int width, int height, const std::string& what);

}  // namespace glccl::gl
