// An engine of host memory (the cpu engine, the reference) inside the
// Labeler: the texture read back at its own sampleBits (samples
// little-endian, as Image holds them), labeled on the host, its labels
// uploaded into the Labeler's label texture. Binary and segments read the
// red channel of a color texture.

#include "backends/texture_engine.hpp"
#include "glccl/error.hpp"

namespace glccl::backends {

namespace {

class HostEngineOnTextures final : public TextureEngine {
public:
    explicit HostEngineOnTextures(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}

    void reserve(int, int, const LabelOptions&) override {}

    std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, const LabelOptions& options,
                        StageTimer&) override {
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
            case GL_R16UI: sampleBits = 16, layout = GL_RED_INTEGER, type = GL_UNSIGNED_SHORT; break;
            case GL_R32UI: sampleBits = 32, layout = GL_RED_INTEGER, type = GL_UNSIGNED_INT; break;
            // Two 32-bit halves, low first: a little-endian 64-bit sample.
            case GL_RG32UI: sampleBits = 64, layout = GL_RG_INTEGER, type = GL_UNSIGNED_INT; break;
            default:
                throw Error(std::string("the ") + backendName(engine_->backend()) +
                            " backend reads GL_R8, GL_R8UI, GL_R16, GL_R16UI, GL_R32UI, GL_RG32UI, GL_RGBA8 and "
                            "GL_RGBA16 textures");
        }
        const Shape shape = input.target() == GL_TEXTURE_3D
                                ? Shape::volume(input.width(), input.height(), input.depth())
                                : Shape::image(input.width(), input.height());
        if (image_.shape() != shape || image_.channels != channels || image_.sampleBits != sampleBits)
            image_ = Image(shape, channels, sampleBits);
        input.download(image_.pixels.data(), layout, type);
        labels_.resize(std::size_t(shape.count()));
        engine_->label(ImageView(image_), options, labels_.data(), table_);
        labels.upload(labels_.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
        return std::uint32_t(table_.size());
    }

    void components(std::vector<Component>& out, StageTimer&) override { out.assign(table_.begin(), table_.end()); }

    // The labels are still here, in host memory: a copy, not a readback.
    bool downloadLabels(std::uint32_t* out, std::size_t count) override {
        if (count != labels_.size()) return false;
        std::copy(labels_.begin(), labels_.end(), out);
        return true;
    }

private:
    std::unique_ptr<Engine> engine_;
    Image image_;                        // the texture's samples, kept for the next frame of its size
    std::vector<std::uint32_t> labels_;  // the last call's labels
    std::vector<Component> table_;
};

}  // namespace

std::unique_ptr<TextureEngine> hostEngineOnTextures(std::unique_ptr<Engine> engine) {
    return std::make_unique<HostEngineOnTextures>(std::move(engine));
}

}  // namespace glccl::backends
