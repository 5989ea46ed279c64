#include "glccl/offscreen.hpp"

#include <algorithm>
#include <vector>

#include "gl_error.hpp"
#include "gl_objects.hpp"
#include "glccl/error.hpp"
#include "glccl/labeler.hpp"
#include "program.hpp"
#include "stage_timer.hpp"
#include "state_guard.hpp"

namespace glccl {

struct OffscreenLabeler::Impl {
    HeadlessContext context;
    Labeler labeler;
    explicit Impl(const HeadlessContext::Options& options) : context(options) {}
};

OffscreenLabeler::OffscreenLabeler(const HeadlessContext::Options& options) : impl_(std::make_unique<Impl>(options)) {}
OffscreenLabeler::~OffscreenLabeler() = default;

const HeadlessContext& OffscreenLabeler::context() const { return impl_->context; }

Labeler& OffscreenLabeler::labeler() { return impl_->labeler; }

Labeling OffscreenLabeler::label(const Image& image, Connectivity connectivity, Criterion criterion,
                                 StageTimings* timings) {
    LabelOptions options;
    options.connectivity = connectivity;
    options.criterion = criterion;
    return label(image, options, timings);
}

Labeling OffscreenLabeler::label(const Image& image, const LabelOptions& requested, StageTimings* timings) {
    const Criterion criterion = requested.criterion;
    if (image.width < 1 || image.height < 1 || image.pixels.size() != std::size_t(image.width) * image.height * image.channels)
        throw Error("glccl::OffscreenLabeler::label(): the image is empty or its pixel buffer does not match its size");
    if (image.channels != 1 && image.channels != 4)
        throw Error("glccl::OffscreenLabeler::label(): images have 1 or 4 channels, not " + std::to_string(image.channels));
    if (image.channels == 4 && criterion.kind != Criterion::Kind::Threshold)
        throw Error("glccl::OffscreenLabeler::label(): the " + criterion.toString() +
                    " criterion needs a 1-channel image; convert color to gray first");
    const int largest = impl_->context.info().maxTextureSize;
    if (image.width > largest || image.height > largest)
        throw Error("glccl::OffscreenLabeler::label(): the image is " + std::to_string(image.width) + "x" +
                    std::to_string(image.height) + " but GL_MAX_TEXTURE_SIZE is " + std::to_string(largest));
    impl_->context.makeCurrent();
    const bool gray = image.channels == 1;
    auto input = gl::Texture::allocate(gray ? GL_R8 : GL_RGBA8, image.width, image.height, "glccl::OffscreenLabeler::label()");
    input.upload(image.pixels.data(), gray ? GL_RED : GL_RGBA, GL_UNSIGNED_BYTE);

    LabelOptions options = requested;
    options.timings = options.timings || timings != nullptr;
    impl_->labeler.label(input.id(), options);
    Labeling labeling = impl_->labeler.result();
    if (timings) *timings = impl_->labeler.stageTimings();
    return labeling;
}

double OffscreenLabeler::fullscreenPassMilliseconds(int width, int height, int reps) {
    const std::string what = "glccl::OffscreenLabeler::fullscreenPassMilliseconds()";
    const int largest = impl_->context.info().maxTextureSize;
    if (width < 1 || height < 1 || width > largest || height > largest || reps < 1)
        throw Error(what + ": " + std::to_string(width) + "x" + std::to_string(height) + " is outside 1.." +
                    std::to_string(largest) + " (or reps < 1)");
    impl_->context.makeCurrent();
    StateGuard guard;
    auto source = gl::RenderTarget::allocate(GL_R32F, width, height, what);
    auto target = gl::RenderTarget::allocate(GL_R32F, width, height, what);
    auto program = gl::ProgramBuilder("fullscreen_pass")
                       .vertex("fullscreen.vert")
                       .fragmentSource("uniform sampler2D source;\nout vec4 fragColor;\n"
                                       "void main() { fragColor = texelFetch(source, ivec2(gl_FragCoord.xy), 0); }\n")
                       .output("fragColor")
                       .build();
    auto vertexArray = gl::VertexArray::create();
    glBindVertexArray(vertexArray.id());
    program.set("quadDepth", 0.0f);
    program.set("source", 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, source.texture.id());
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.framebuffer.id());
    glViewport(0, 0, width, height);
    std::vector<double> times;
    for (int i = 0; i <= reps; ++i) {
        StageTimer timer(true);
        {
            auto scope = timer.scope("fullscreen_pass");
            glDrawArrays(GL_TRIANGLES, 0, 3);
        }
        if (i > 0) times.push_back(timer.collect().front().milliseconds);
    }
    checkGlError(what);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace glccl
