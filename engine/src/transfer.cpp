#include "transfer.hpp"

#include <algorithm>
#include <cstring>

#include "gl.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"

namespace glccl::transfer {

namespace {

constexpr GLbitfield kPersistent = GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;

bool mentions(const char* text, const char* part) { return text != nullptr && std::strstr(text, part) != nullptr; }

}  // namespace

Settings Settings::current() {
    const Tuning tuning = glccl::tuning();
    Settings settings;
    settings.mode = tuning.transfer == Tuning::Transfer::Plain   ? Mode::Plain
                    : tuning.transfer == Tuning::Transfer::Bands ? Mode::Bands
                                                                 : Mode::Auto;
    settings.bandBytes = tuning.transferBandBytes;
    settings.buffers = tuning.transferBuffers;
    settings.copyThreads = glccl::copyThreads(tuning);
    return settings;
}

std::string Settings::describe() const {
    if (mode == Mode::Plain) return "plain";
    const std::size_t mebibyte = std::size_t(1) << 20;
    const std::string band = bandBytes % mebibyte == 0 ? std::to_string(bandBytes / mebibyte) + "M"
                                                       : std::to_string(bandBytes) + "B";
    return std::string(mode == Mode::Bands ? "bands " : "auto bands ") + band + " x" + std::to_string(buffers) +
           ", " + std::to_string(copyThreads) + (copyThreads == 1 ? " thread" : " threads");
}

Capabilities Capabilities::ofCurrentContext() {
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    const int version = major * 10 + minor;
    Capabilities capabilities;
    // The context's own extension list: GLEW's flags rise whenever entry
    // points load (gl.hpp).
    capabilities.bufferStorage =
        (version >= 44 || gl::hasExtension("GL_ARB_buffer_storage")) && glBufferStorage != nullptr;
    capabilities.textureSubImage =
        (version >= 45 || gl::hasExtension("GL_ARB_get_texture_sub_image")) && glGetTextureSubImage != nullptr;
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    capabilities.softwareRenderer = mentions(renderer, "llvmpipe") || mentions(renderer, "softpipe") ||
                                    mentions(renderer, "swrast") || mentions(renderer, "SWR");
    return capabilities;
}

bool usesBands(const Settings& settings, const Capabilities& capabilities, std::size_t bytes) {
    if (!capabilities.bufferStorage || bytes == 0) return false;
    switch (settings.mode) {
        case Settings::Mode::Plain: return false;
        case Settings::Mode::Bands: return true;
        case Settings::Mode::Auto: break;
    }
    return !capabilities.softwareRenderer && bytes >= kMinBandedBytes;
}

void BufferRing::ensure(GLenum target, std::size_t bytes, int count, GLbitfield access, bool clientStorage,
                        const std::string& what) {
    const GLbitfield flags = access | kPersistent | (clientStorage ? GLbitfield(GL_CLIENT_STORAGE_BIT) : 0);
    if (slots_.size() == std::size_t(count) && bytes_ >= bytes && flags_ == flags && target_ == target) return;
    drain(what);
    slots_.clear();
    bytes_ = 0;
    clearGlErrors();
    std::vector<Slot> slots(static_cast<std::size_t>(count));
    for (Slot& slot : slots) {
        slot.buffer = gl::Buffer::create();
        glBindBuffer(target, slot.buffer.id());
        glBufferStorage(target, GLsizeiptr(bytes), nullptr, flags);
        slot.mapped = static_cast<unsigned char*>(glMapBufferRange(target, 0, GLsizeiptr(bytes), access | kPersistent));
        if (slot.mapped == nullptr) {
            checkGlError(what + ": mapping a pixel buffer of " + std::to_string(bytes) + " bytes");
            throw Error(what + ": glMapBufferRange gave no mapping of a pixel buffer of " + std::to_string(bytes) +
                        " bytes");
        }
    }
    glBindBuffer(target, 0);
    checkGlError(what + ": " + std::to_string(count) + " pixel buffers of " + std::to_string(bytes) + " bytes");
    slots_ = std::move(slots);
    bytes_ = bytes;
    target_ = target;
    flags_ = flags;
}

void BufferRing::drain(const std::string& what) {
    for (Slot& slot : slots_) slot.fence.wait(what);
}

SlabPlan::SlabPlan(int height, int depth, std::size_t rowBytes, std::size_t slabBytes)
    : height_(height), depth_(depth), rowBytes_(rowBytes) {
    if (height < 1 || depth < 1 || rowBytes == 0) return;
    const std::size_t sliceBytes = rowBytes * std::size_t(height);
    wholeSlices_ = sliceBytes <= slabBytes;
    if (wholeSlices_) {
        rowsPerSlab_ = height;
        slicesPerSlab_ = int(std::min<std::size_t>(slabBytes / sliceBytes, std::size_t(depth)));
        count_ = (depth + slicesPerSlab_ - 1) / slicesPerSlab_;
    } else {
        rowsPerSlab_ = int(std::clamp<std::size_t>(slabBytes / rowBytes, 1, std::size_t(height)));
        bandsPerSlice_ = (height + rowsPerSlab_ - 1) / rowsPerSlab_;
        count_ = depth * bandsPerSlice_;
    }
}

Slab SlabPlan::operator[](int k) const {
    Slab slab;
    if (wholeSlices_) {
        slab.z = k * slicesPerSlab_;
        slab.slices = std::min(slicesPerSlab_, depth_ - slab.z);
        slab.rows = height_;
        return slab;
    }
    slab.z = k / bandsPerSlice_;
    slab.y = (k % bandsPerSlice_) * rowsPerSlab_;
    slab.rows = std::min(rowsPerSlab_, height_ - slab.y);
    return slab;
}

namespace {

// Writes `slab` of the texture bound to its target from `pixels` (the
// bound unpack buffer's offset when one is bound).
void texSubImage(const gl::Texture& texture, const Slab& slab, GLenum format, GLenum type, const void* pixels) {
    if (texture.target() == GL_TEXTURE_3D)
        glTexSubImage3D(GL_TEXTURE_3D, 0, 0, slab.y, slab.z, texture.width(), slab.rows, slab.slices, format, type,
                        pixels);
    else
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, slab.y, texture.width(), slab.rows, format, type, pixels);
}

}  // namespace

void TextureUploader::upload(const gl::Texture& texture, const void* pixels, GLenum format, GLenum type,
                             std::size_t bytesPerPixel, const std::string& what) {
    const Settings settings = Settings::current();
    const int height = texture.height(), depth = texture.depth();
    const std::size_t rowBytes = std::size_t(texture.width()) * bytesPerPixel;
    const std::size_t total = rowBytes * std::size_t(height) * std::size_t(depth);
    gl::TransferStateGuard guard;
    glBindTexture(texture.target(), texture.id());
    if (!usesBands(settings, Capabilities::ofCurrentContext(), total)) {
        texSubImage(texture, Slab{0, height, 0, depth}, format, type, pixels);
        checkGlError(what);
        return;
    }
    const SlabPlan plan(height, depth, rowBytes, pipelinedBandBytes(total, settings.bandBytes));
    ring_.ensure(GL_PIXEL_UNPACK_BUFFER, plan.largestBytes(), settings.buffers, GL_MAP_WRITE_BIT, false, what);
    const auto* source = static_cast<const unsigned char*>(pixels);
    for (int k = 0; k < plan.count(); ++k) {
        const Slab slab = plan[k];
        BufferRing::Slot& slot = ring_[std::size_t(k) % ring_.size()];
        // The buffer's last upload (of this call or an earlier one) has left it.
        slot.fence.wait(what);
        copier_.copy(slot.mapped, source + plan.offset(slab), plan.bytes(slab), settings.copyThreads);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, slot.buffer.id());
        texSubImage(texture, slab, format, type, nullptr);
        slot.fence = gl::Fence::insert();
        glFlush();  // the GPU starts on this slab while the host fills the next
    }
    checkGlError(what);
}

void TextureDownloader::download(const gl::Texture& texture, void* pixels, GLenum format, GLenum type,
                                 std::size_t bytesPerPixel, const std::string& what) {
    const Settings settings = Settings::current();
    const int width = texture.width(), height = texture.height(), depth = texture.depth();
    const std::size_t rowBytes = std::size_t(width) * bytesPerPixel;
    const std::size_t total = rowBytes * std::size_t(height) * std::size_t(depth);
    gl::TransferStateGuard guard;
    const Capabilities capabilities = Capabilities::ofCurrentContext();
    // glGetTexImage reads whole levels only: slabs are read with
    // glGetTextureSubImage (OpenGL 4.5), and without it the whole level in
    // one call (the top of transfer.hpp says why not glReadPixels).
    if (texture.target() == GL_TEXTURE_2D && gl::isEs()) {
        // ES has no glGetTexImage: the texture is read from a framebuffer.
        gl::readTextureRect(texture, 0, 0, width, height, format, type, pixels);
        checkGlError(what);
        return;
    }
    if (texture.target() == GL_TEXTURE_3D && gl::isEs()) {
        // A volume a slice at a time.
        const std::size_t sliceBytes = rowBytes * std::size_t(height);
        for (int z = 0; z < depth; ++z)
            gl::readTextureLayerRect(texture.id(), z, 0, 0, width, height, format, type,
                                     static_cast<unsigned char*>(pixels) + sliceBytes * std::size_t(z));
        checkGlError(what);
        return;
    }
    if (!capabilities.textureSubImage || !usesBands(settings, capabilities, total)) {
        glBindTexture(texture.target(), texture.id());
        glGetTexImage(texture.target(), 0, format, type, pixels);
        checkGlError(what);
        return;
    }
    const SlabPlan plan(height, depth, rowBytes, pipelinedBandBytes(total, settings.bandBytes));
    ring_.ensure(GL_PIXEL_PACK_BUFFER, plan.largestBytes(), settings.buffers, GL_MAP_READ_BIT, true, what);
    const int slabs = plan.count();
    const int slots = int(ring_.size());
    const auto issue = [&](int k) {
        const Slab slab = plan[k];
        BufferRing::Slot& slot = ring_[std::size_t(k % slots)];
        glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer.id());
        glGetTextureSubImage(texture.id(), 0, 0, slab.y, slab.z, width, slab.rows, slab.slices, format, type,
                             GLsizei(plan.bytes(slab)), nullptr);
        slot.fence = gl::Fence::insert();
        glFlush();  // the GPU starts on this slab while the host copies the last
    };
    // slots - 1 slabs in flight while the host copies one out.
    for (int k = 0; k < std::min(slabs, slots - 1); ++k) issue(k);
    auto* destination = static_cast<unsigned char*>(pixels);
    for (int k = 0; k < slabs; ++k) {
        if (k + slots - 1 < slabs) issue(k + slots - 1);
        BufferRing::Slot& slot = ring_[std::size_t(k % slots)];
        slot.fence.wait(what);
        const Slab slab = plan[k];
        copier_.copy(destination + plan.offset(slab), slot.mapped, plan.bytes(slab), settings.copyThreads);
    }
    checkGlError(what);
}

}  // namespace glccl::transfer
