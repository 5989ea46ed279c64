// The cpu backend: the reference labeler (host/) on a download of the
// texture (2-D or 3-D), its labels uploaded into the Labeler's label texture. Slow and
// obviously right: the oracle, on the same texture as the GPU engines.

#include "backends/engine.hpp"
#include "glccl/error.hpp"
#include "glccl/reference.hpp"

namespace glccl::backends {

namespace {

class CpuEngine final : public Engine {
public:
    void reserve(int, int, const LabelOptions&) override {}
    std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, const LabelOptions& options,
                        StageTimer&) override {
        // The texture read back at its own sampleBits (samples little-endian, as
        // Image holds them); binary and segments read the red channel of a
        // color texture.
        const GLenum format = input.internalFormat();
        const bool color = format == GL_RGBA8 || format == GL_RGBA16;
        const bool threshold = options.criterion.kind == Criterion::Kind::Threshold;
        const int channels = color && threshold ? 4 : 1;
        int sampleBits = 8;
        GLenum layout = channels == 4 ? GL_RGBA : GL_RED, type = GL_UNSIGNED_BYTE;
        switch (format) {
            case GL_R8:
            case GL_RGBA8: break;
            case GL_R8UI: layout = GL_RED_INTEGER; break;
            case GL_R16:
            case GL_RGBA16: sampleBits = 16, type = GL_UNSIGNED_SHORT; break;
            case GL_R32UI: sampleBits = 32, layout = GL_RED_INTEGER, type = GL_UNSIGNED_INT; break;
            // Two 32-bit halves, low first: a little-endian 64-bit sample.
            case GL_RG32UI: sampleBits = 64, layout = GL_RG_INTEGER, type = GL_UNSIGNED_INT; break;
            default:
                throw Error("the cpu backend reads GL_R8, GL_R8UI, GL_R16, GL_R32UI, GL_RG32UI, GL_RGBA8 and GL_RGBA16 "
                            "textures");
        }
        const Shape shape = input.target() == GL_TEXTURE_3D
                                ? Shape::volume(input.width(), input.height(), input.depth())
                                : Shape::image(input.width(), input.height());
        Image image(shape, channels, sampleBits);
        input.download(image.pixels.data(), layout, type);
        labeling_ = labelReference(image, options.connectivity, options.criterion);
        labels.upload(labeling_.labels.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
        return std::uint32_t(labeling_.count());
    }
    void components(std::vector<Component>& out, StageTimer&) override { out = labeling_.components; }

private:
    Labeling labeling_;
};

}  // namespace

std::unique_ptr<Engine> makeCpuEngine(const ContextInfo&) { return std::make_unique<CpuEngine>(); }

}  // namespace glccl::backends
