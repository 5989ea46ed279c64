#include "transfer.hpp"

#include <algorithm>
#include <cstring>

#include "gl.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"

namespace glccl::transfer {

namespace {

constexpr GLbitfield kPersistent = GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;

bool contains(const char* text, const char* part) { return text != nullptr && std::strstr(text, part) != nullptr; }

}  // namespace

Settings Settings::current() {
    const Tuning tuning = glccl::tuning();
    Settings settings;
    settings.mode = tuning.transfer == Tuning::Transfer::Plain   ? Mode::Plain
                    : tuning.transfer == Tuning::Transfer::Bands ? Mode::Bands
                                                                 : Mode::Auto;
    settings.readback =
        tuning.transferReadback == Tuning::Readback::ReadPixels ? Readback::ReadPixels : Readback::TextureSubImage;
    settings.bandBytes = tuning.transferBandBytes;
    settings.buffers = tuning.transferBuffers;
    const Tuning::ClientStorage client = tuning.transferClientStorage;
    settings.clientStorageUpload = client == Tuning::ClientStorage::Upload || client == Tuning::ClientStorage::Both;
    settings.clientStorageDownload = client == Tuning::ClientStorage::Download || client == Tuning::ClientStorage::Both;
    settings.copyThreads = glccl::copyThreads(tuning);
    settings.streamingStores = glccl::streamingStores(tuning);
    return settings;
}

std::string Settings::describe() const {
    if (mode == Mode::Plain) return "plain";
    const std::size_t mebibyte = std::size_t(1) << 20;
    const std::string band = bandBytes % mebibyte == 0 ? std::to_string(bandBytes / mebibyte) + "M"
                                                       : std::to_string(bandBytes) + "B";
    return std::string(mode == Mode::Bands ? "bands " : "auto bands ") + band + " x" + std::to_string(buffers) +
           ", " + (readback == Readback::ReadPixels ? "readpixels" : "subimage") + ", " +
           std::to_string(copyThreads) + (copyThreads == 1 ? " thread" : " threads") +
           (streamingStores ? " streaming" : " plain") +
           ", client storage " +
           (clientStorageUpload ? (clientStorageDownload ? "both" : "upload") : (clientStorageDownload ? "download" : "none"));
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
    capabilities.softwareRenderer = contains(renderer, "llvmpipe") || contains(renderer, "softpipe") ||
                                    contains(renderer, "swrast") || contains(renderer, "SWR");
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

void TextureUploader::upload(const gl::Texture& texture, const void* pixels, GLenum format, GLenum type,
                             std::size_t bytesPerPixel, const std::string& what) {
    const Settings settings = Settings::current();
    const int width = texture.width(), height = texture.height();
    const std::size_t rowBytes = std::size_t(width) * bytesPerPixel;
    const std::size_t total = rowBytes * std::size_t(height);
    gl::TransferStateGuard guard;
    glBindTexture(GL_TEXTURE_2D, texture.id());
    if (!usesBands(settings, Capabilities::ofCurrentContext(), total)) {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, format, type, pixels);
        checkGlError(what);
        return;
    }
    const int bandRows = int(std::clamp<std::size_t>(settings.bandBytes / rowBytes, 1, std::size_t(height)));
    ring_.ensure(GL_PIXEL_UNPACK_BUFFER, std::size_t(bandRows) * rowBytes, settings.buffers, GL_MAP_WRITE_BIT,
                 settings.clientStorageUpload, what);
    const auto* source = static_cast<const unsigned char*>(pixels);
    for (int y = 0, band = 0; y < height; y += bandRows, ++band) {
        const int rows = std::min(bandRows, height - y);
        BufferRing::Slot& slot = ring_[std::size_t(band) % ring_.size()];
        // The buffer's last upload (of this call or an earlier one) has left it.
        slot.fence.wait(what);
        copier_.copy(slot.mapped, source + std::size_t(y) * rowBytes, std::size_t(rows) * rowBytes,
                     settings.copyThreads);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, slot.buffer.id());
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, y, width, rows, format, type, nullptr);
        slot.fence = gl::Fence::insert();
        glFlush();  // the GPU starts on this band while the host fills the next
    }
    checkGlError(what);
}

void TextureDownloader::download(const gl::Texture& texture, void* pixels, GLenum format, GLenum type,
                                 std::size_t bytesPerPixel, const std::string& what) {
    const Settings settings = Settings::current();
    const int width = texture.width(), height = texture.height();
    const std::size_t rowBytes = std::size_t(width) * bytesPerPixel;
    const std::size_t total = rowBytes * std::size_t(height);
    gl::TransferStateGuard guard;
    const Capabilities capabilities = Capabilities::ofCurrentContext();
    // Bands are read with glGetTextureSubImage (OpenGL 4.5); where it is
    // missing, auto mode takes one glGetTexImage. glReadPixels into a pack
    // buffer is used only when asked for by name (GLCCL_TRANSFER=bands, or
    // GLCCL_TRANSFER_READBACK=readpixels): on the H200 (NVIDIA 580) it moved
    // an R32UI texture of 2048^2 in 0.84 s and did not end within 25 s at
    // 8192^2, where glGetTexImage takes 43 ms and bands of
    // glGetTextureSubImage bring a whole labeling call at 8192^2 from 66 to
    // 15 ms (tools/device/transfer_probe.cpp --anatomy, glccl bench).
    const bool banded = usesBands(settings, capabilities, total) &&
                       (settings.mode == Settings::Mode::Bands ||
                        (settings.readback == Settings::Readback::TextureSubImage && capabilities.textureSubImage));
    if (!banded) {
        glBindTexture(GL_TEXTURE_2D, texture.id());
        glGetTexImage(GL_TEXTURE_2D, 0, format, type, pixels);
        checkGlError(what);
        return;
    }
    const int bandRows = int(std::clamp<std::size_t>(settings.bandBytes / rowBytes, 1, std::size_t(height)));
    ring_.ensure(GL_PIXEL_PACK_BUFFER, std::size_t(bandRows) * rowBytes, settings.buffers, GL_MAP_READ_BIT,
                 settings.clientStorageDownload, what);
    // glGetTexImage reads whole levels only: a band is read either from the
    // texture on a framebuffer (any OpenGL) or with glGetTextureSubImage (4.5).
    const bool subImage = settings.readback == Settings::Readback::TextureSubImage && capabilities.textureSubImage;
    if (!subImage) {
        if (!framebuffer_) framebuffer_ = gl::Framebuffer::create();
        glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer_.id());
        glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture.id(), 0);
        glReadBuffer(GL_COLOR_ATTACHMENT0);
        const GLenum status = glCheckFramebufferStatus(GL_READ_FRAMEBUFFER);
        if (status != GL_FRAMEBUFFER_COMPLETE) {
            glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
            throw Error(what + ": the texture cannot be read through a framebuffer (status " + std::to_string(status) +
                        ")");
        }
    }
    const int bands = (height + bandRows - 1) / bandRows;
    const int slots = int(ring_.size());
    const auto issue = [&](int band) {
        const int y = band * bandRows;
        const int rows = std::min(bandRows, height - y);
        BufferRing::Slot& slot = ring_[std::size_t(band % slots)];
        glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer.id());
        if (subImage)
            glGetTextureSubImage(texture.id(), 0, 0, y, 0, width, rows, 1, format, type,
                                 GLsizei(std::size_t(rows) * rowBytes), nullptr);
        else
            glReadPixels(0, y, width, rows, format, type, nullptr);
        slot.fence = gl::Fence::insert();
        glFlush();  // the GPU starts on this band while the host copies the last
    };
    // slots - 1 bands in flight while the host copies one out.
    for (int band = 0; band < std::min(bands, slots - 1); ++band) issue(band);
    auto* destination = static_cast<unsigned char*>(pixels);
    for (int band = 0; band < bands; ++band) {
        if (band + slots - 1 < bands) issue(band + slots - 1);
        BufferRing::Slot& slot = ring_[std::size_t(band % slots)];
        slot.fence.wait(what);
        const int y = band * bandRows;
        const int rows = std::min(bandRows, height - y);
        copier_.copy(destination + std::size_t(y) * rowBytes, slot.mapped, std::size_t(rows) * rowBytes,
                     settings.copyThreads);
    }
    // The framebuffer keeps no texture alive: a label texture deleted later
    // must free its storage.
    if (!subImage) glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
    checkGlError(what);
}

}  // namespace glccl::transfer
