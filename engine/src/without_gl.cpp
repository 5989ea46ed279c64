// The GL engine's doors in a glccl built without OpenGL (GLCCL_WITH_GL=OFF):
// the same public headers, so that a program written for both builds
// compiles in either, and every door refuses with one message. No context
// can be made, so the router's places have none and say why
// (glccl::Session: "no headless GL context: <this message>"); auto and the
// cpu and reference backends label host memory as in any build, and the
// engines' declarations (core/src/engine_registry.cpp) say that compute and
// raster are not built.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glccl/context.hpp"
#include "glccl/error.hpp"
#include "glccl/labeler.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/texture.hpp"

namespace glccl {

namespace {

const char* const kWithoutGl = "glccl is built without OpenGL (GLCCL_WITH_GL=OFF)";

[[noreturn]] void refuse(const char* entry) { throw Error(std::string(entry) + ": " + kWithoutGl); }

}  // namespace

// --- glccl/context.hpp ----------------------------------------------------
std::vector<HeadlessDevice> headlessDevices(std::string* why) {
    if (why) *why = kWithoutGl;
    return {};
}
int headlessDeviceCount() { return 0; }
void loadGlFunctions() { refuse("glccl::loadGlFunctions"); }
ContextInfo currentContextInfo() { refuse("glccl::currentContextInfo"); }
void releaseCurrentContext() {}

struct HeadlessContext::Impl {};
HeadlessContext::HeadlessContext() { refuse("glccl::HeadlessContext"); }
HeadlessContext::HeadlessContext(const Options&) { refuse("glccl::HeadlessContext"); }
HeadlessContext::~HeadlessContext() = default;
void HeadlessContext::makeCurrent() { refuse("glccl::HeadlessContext"); }
const ContextInfo& HeadlessContext::info() const { refuse("glccl::HeadlessContext"); }
const std::string& HeadlessContext::platform() const { refuse("glccl::HeadlessContext"); }

// --- glccl/texture.hpp ----------------------------------------------------
struct ImageTexture::Impl {};
ImageTexture::ImageTexture() = default;
ImageTexture::ImageTexture(const Image&) { refuse("glccl::ImageTexture"); }
ImageTexture::ImageTexture(const ImageView&) { refuse("glccl::ImageTexture"); }
ImageTexture ImageTexture::volume(const Image&) { refuse("glccl::ImageTexture"); }
ImageTexture ImageTexture::volume(const ImageView&) { refuse("glccl::ImageTexture"); }
ImageTexture::~ImageTexture() = default;
ImageTexture::ImageTexture(ImageTexture&&) noexcept = default;
ImageTexture& ImageTexture::operator=(ImageTexture&&) noexcept = default;
void ImageTexture::update(const Image&) { refuse("glccl::ImageTexture"); }
void ImageTexture::update(const ImageView&) { refuse("glccl::ImageTexture"); }
bool ImageTexture::fits(const Image&) const { return false; }
bool ImageTexture::fits(const ImageView&) const { return false; }
unsigned ImageTexture::id() const { return 0; }
int ImageTexture::width() const { return 0; }
int ImageTexture::height() const { return 0; }
int ImageTexture::depth() const { return 0; }
int ImageTexture::channels() const { return 0; }
int ImageTexture::sampleBits() const { return 0; }
unsigned ImageTexture::internalFormat() const { return 0; }
Image ImageTexture::download() const { refuse("glccl::ImageTexture"); }

// --- glccl/labeler.hpp ----------------------------------------------------
struct Labeler::Impl {};
Labeler::Labeler() { refuse("glccl::Labeler"); }
Labeler::~Labeler() = default;
void Labeler::reserve(int, int, const LabelOptions&) { refuse("glccl::Labeler"); }
std::uint32_t Labeler::label(unsigned, const LabelOptions&) { refuse("glccl::Labeler"); }
std::uint32_t Labeler::label(unsigned, const Route&, const LabelOptions&) { refuse("glccl::Labeler"); }
std::uint32_t Labeler::label(unsigned, int, int, unsigned, const LabelOptions&) { refuse("glccl::Labeler"); }
const PropertyTable& Labeler::properties() const { refuse("glccl::Labeler"); }
unsigned Labeler::regionBuffer() { refuse("glccl::Labeler"); }
unsigned Labeler::labelTexture() const { refuse("glccl::Labeler"); }
std::vector<Component> Labeler::components() { refuse("glccl::Labeler"); }
void Labeler::components(std::vector<Component>&) { refuse("glccl::Labeler"); }
std::vector<std::uint32_t> Labeler::downloadLabels() { refuse("glccl::Labeler"); }
void Labeler::downloadLabels(std::vector<std::uint32_t>&) { refuse("glccl::Labeler"); }
void Labeler::downloadLabels(std::uint32_t*, std::size_t) { refuse("glccl::Labeler"); }
Labeling Labeler::result() { refuse("glccl::Labeler"); }
void Labeler::result(Labeling&) { refuse("glccl::Labeler"); }
RegionTotals Labeler::measureTerms(const TermRequest&, unsigned) { refuse("glccl::Labeler"); }
RegionTotals Labeler::measureTerms(const TermRequest&, unsigned, const std::vector<Component>*) {
    refuse("glccl::Labeler");
}
void Labeler::forget(unsigned) {}
Backend Labeler::backend() const { return Backend::Auto; }
const StageTimings& Labeler::stageTimings() const { refuse("glccl::Labeler"); }
const ContextInfo& Labeler::contextInfo() const { refuse("glccl::Labeler"); }

// --- glccl/offscreen.hpp --------------------------------------------------
struct OffscreenLabeler::Impl {};
OffscreenLabeler::OffscreenLabeler(const HeadlessContext::Options&) { refuse("glccl::HeadlessContext"); }
OffscreenLabeler::~OffscreenLabeler() = default;
void OffscreenLabeler::label(const ImageView&, Backend, const LabelOptions&, std::uint32_t*, std::vector<Component>&,
                             StageTimings*) {
    refuse("glccl::OffscreenLabeler");
}
Labeler& OffscreenLabeler::labeler() { refuse("glccl::OffscreenLabeler"); }
void OffscreenLabeler::makeCurrent() { refuse("glccl::OffscreenLabeler"); }
const HeadlessContext& OffscreenLabeler::context() const { refuse("glccl::OffscreenLabeler"); }
std::string OffscreenLabeler::device() const { refuse("glccl::OffscreenLabeler"); }

std::unique_ptr<Engine> makeEngine(Backend backend, std::shared_ptr<OffscreenLabeler>) {
    throw Error(std::string("the ") + backendName(backend) + " backend cannot run here: " + kWithoutGl);
}

}  // namespace glccl
