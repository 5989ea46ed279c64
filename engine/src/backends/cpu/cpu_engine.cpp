// The cpu backend: the reference labeler (host/) on a download of the
// texture, its labels uploaded into the Labeler's label texture. Slow and
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
        const GLenum format = input.internalFormat();
        const bool color = format == GL_RGBA8;
        if (format != GL_R8 && format != GL_R8UI && !color)
            throw Error("the cpu backend reads 8-bit textures (GL_R8, GL_R8UI, GL_RGBA8)");
        Image image(input.width(), input.height(), color ? 4 : 1);
        // Binary and segments read the red channel of a color texture.
        if (color && options.criterion.kind != Criterion::Kind::Threshold) image = Image(input.width(), input.height(), 1);
        const GLenum layout = image.channels == 4 ? GL_RGBA : (format == GL_R8UI ? GL_RED_INTEGER : GL_RED);
        input.download(image.pixels.data(), layout, GL_UNSIGNED_BYTE);
        labeling_ = labelReference(image, options.connectivity, options.criterion);
        labels.upload(labeling_.labels.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
        return std::uint32_t(labeling_.count());
    }
    std::vector<Component> components(StageTimer&) override { return labeling_.components; }

private:
    Labeling labeling_;
};

}  // namespace

std::unique_ptr<Engine> makeCpuEngine(const ContextInfo&) { return std::make_unique<CpuEngine>(); }

}  // namespace glccl::backends
