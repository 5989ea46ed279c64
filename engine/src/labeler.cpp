#include "glccl/labeler.hpp"

#include <array>

#include "backends/registry.hpp"
#include "backends/texture_engine.hpp"
#include "gl.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"
#include "glccl/measure.hpp"
#include "glccl/route.hpp"
#include "measure_terms.hpp"
#include "region_rows.hpp"
#include "stage_timer.hpp"
#include "state_guard.hpp"
#include "transfer.hpp"

namespace glccl {

namespace {

// Runs `step`; a glccl::Error from inside gets the public entry's prefix once.
template <class Step>
auto withPrefix(const char* entry, Step&& step) -> decltype(step()) {
    try {
        return step();
    } catch (const Error& error) {
        throw Error(std::string(entry) + ": " + error.what());
    }
}

// Properties computed from each region's pixels (a crop), which no
// accumulation of terms gives: scikit-image's, measured by the Python
// module from the downloaded labels.
constexpr const char* kCropProperties[] = {"slice",        "image",         "coords",       "coords_scaled",
                                           "image_intensity", "image_filled", "area_filled", "image_convex",
                                           "area_convex",  "solidity",      "feret_diameter_max", "intensity_median"};

// Runs `step`; a glccl::Error whose message starts with `prefix` (the host
// function's own entry) loses it, so that the caller's entry prefixes once.
template <class Step>
auto without(const std::string& prefix, Step&& step) -> decltype(step()) {
    try {
        return step();
    } catch (const Error& error) {
        const std::string what = error.what();
        if (what.compare(0, prefix.size(), prefix) == 0) throw Error(what.substr(prefix.size()));
        throw;
    }
}

// The term properties' names, for the messages that list them.
std::string termPropertyNames() {
    std::string names;
    for (const PropertyDeclaration& d : propertyDeclarations()) names += (names.empty() ? "" : ", ") + std::string(d.name);
    return names;
}

// The texture formats label() reads; throws naming any other. Binary and
// segments read the red channel of GL_RGBA8 (a mask rendered into a color
// target); threshold compares all four channels. GL_RG32UI holds 64-bit
// samples as two halves (ImageTexture); GL_R16UI 16-bit ones where an
// OpenGL ES context has no GL_R16 (no EXT_texture_norm16).
void checkFormat(unsigned format) {
    const bool supported = format == GL_R8 || format == GL_R8UI || format == GL_R16 || format == GL_R16UI ||
                           format == GL_R32F || format == GL_R32UI || format == GL_RG32UI || format == GL_RGBA8 ||
                           format == GL_RGBA16;
    if (!supported)
        throw Error(std::string("the texture is ") + textureFormatName(format) +
                    "; glccl labels GL_R8, GL_R8UI, GL_R16, GL_R16UI, GL_R32UI, GL_RG32UI, GL_R32F, GL_RGBA8 and "
                    "GL_RGBA16 textures");
}

// What label() measures beyond the labeling: the terms, the intensity
// texture they read (0: none).
struct MeasurePlan {
    TermRequest request;
    unsigned intensity = 0;
};

}  // namespace

struct Labeler::Impl {
    ContextInfo info;
    // One texture engine per backend, made on first use.
    std::array<std::unique_ptr<backends::TextureEngine>, kBackendCount> engines;
    gl::Texture labels;  // GL_R32UI, the output of every backend; GL_TEXTURE_3D for a volume
    // Its pixel-pack buffers and framebuffer, kept from one download to the next.
    std::unique_ptr<transfer::TextureDownloader> labelDownloader = std::make_unique<transfer::TextureDownloader>();
    std::unique_ptr<measure::TermGatherer> termGatherer;  // measureTerms()'s programs and buffers, made on first use
    StageTimings timings;
    bool timingsOn = false;
    bool labeled = false;
    Backend last = Backend::Auto;
    // Whether the last labeling joined every pair of adjacent foreground
    // elements (binary, 8-connectivity in 2-D, 26 in 3-D): the measuring
    // passes then tell a region's elements near one of its own from the
    // foreground alone (TermGatherer::setForegroundConnected).
    bool foregroundConnected = false;
    PropertyTable properties;  // of the last label(), what its options.measure named
    std::uint32_t count = 0;   // of the last call
    // regionBuffer()'s rows, its pass and whether they are the last call's.
    gl::Buffer regionRows;
    std::size_t regionRowsBytes = 0;
    std::unique_ptr<measure::RegionRowWriter> rowWriter;
    bool rowsWritten = false;

    // The label texture and the engine's resources for this size.
    void reserve(int width, int height, const LabelOptions& options, Backend backend) {
        // The Labeler labels 2-D textures: a 3-D connectivity would be
        // read as 8 by the shaders and silently mislabel.
        const std::string misfit = whyConnectivityDoesNotFit(options.connectivity, Shape::image(width, height));
        if (!misfit.empty()) throw Error(misfit);
        const int largest = std::min(info.maxTextureSize, kLargestTextureSide);
        if (width < 1 || height < 1 || width > largest || height > largest)
            throw Error(std::to_string(width) + "x" + std::to_string(height) + " is outside 1.." +
                        std::to_string(largest) + " (GL_MAX_TEXTURE_SIZE is " + std::to_string(info.maxTextureSize) +
                        ")");
        if (labels.width() != width || labels.height() != height || labels.target() != GL_TEXTURE_2D) {
            forget(labels.id());  // GL may give the next texture the same name
            labels = {};
            labels = gl::Texture::allocate(GL_R32UI, width, height, "the label texture");
        }
        engine(backend).reserve(width, height, options);
        checkGlError("reserving " + std::to_string(width) + "x" + std::to_string(height));
    }

    // The 3-D label texture of a volume; the engine reserves its own
    // resources in label(), from the input's depth.
    void reserveVolume(int width, int height, int depth, const LabelOptions& options) {
        const Shape shape = Shape::volume(width, height, depth);
        const std::string misfit = whyConnectivityDoesNotFit(options.connectivity, shape);
        if (!misfit.empty()) throw Error(misfit);
        if (labels.width() != width || labels.height() != height || labels.depth() != depth ||
            labels.target() != GL_TEXTURE_3D) {
            forget(labels.id());
            labels = {};
            labels = gl::Texture::allocateVolume(GL_R32UI, width, height, depth, "the label texture");
        }
        checkGlError("reserving " + std::to_string(width) + "x" + std::to_string(height) + "x" +
                     std::to_string(depth));
    }

    void forget(unsigned texture) {
        if (texture == 0) return;
        for (auto& engine : engines)
            if (engine) engine->forget(texture);
    }

    backends::TextureEngine& engine(Backend backend) {
        auto& slot = engines[std::size_t(backend)];
        if (!slot) {
            const std::string why = whyUnavailable(backend, info);
            if (!why.empty()) throw Error(std::string("the ") + backendName(backend) + " backend cannot run here: " + why);
            slot = backends::textureEngineEntry(backend).onTextures(info);
        }
        return *slot;
    }

    // The Labeler's one question to the router, for label() and reserve():
    // the context is this one, current.
    Route route(const InputDescription& input, const LabelOptions& options) {
        return KnownPlace(&info).route(input, options);
    }

    // A texture of the current context, as the router describes it; binds
    // it to unit 0 (`target` says which target it took).
    InputDescription describe(unsigned texture, GLenum& target);
    // The same for a 2-D texture of the size and format the caller gives.
    InputDescription describe(unsigned texture, int width, int height, unsigned format);
    std::uint32_t run(unsigned texture, GLenum target, const InputDescription& described, const Route& route,
                      const LabelOptions& options);
    // The terms options.measure needs of a labeling of `described`
    // (bound as `target`), checked before anything is labeled.
    MeasurePlan plan(const LabelOptions& options, unsigned texture, GLenum target, const InputDescription& described);
    // label(): routed, planned, run and measured. The router refuses what
    // the backend cannot label (the cuda engine's samples and criteria, a
    // volume for a 2-D engine) before anything is reserved for it.
    std::uint32_t labelDescribed(Labeler& labeler, unsigned texture, GLenum target, const InputDescription& described,
                                 const LabelOptions& options) {
        const Route routed = route(described, options);
        const bool measuring = !options.measure.properties.empty();
        const MeasurePlan measured = measuring ? plan(options, texture, target, described) : MeasurePlan{};
        const std::uint32_t count = run(texture, target, described, routed, options);
        if (measuring)
            properties = finalizeProperties(labeler.measureTerms(measured.request, measured.intensity), options.measure);
        return count;
    }
};

MeasurePlan Labeler::Impl::plan(const LabelOptions& options, unsigned texture, GLenum target,
                                const InputDescription& described) {
    const PropertyOptions& measure = options.measure;
    const int dimensions = target == GL_TEXTURE_3D ? 3 : 2;
    bool intensityNeeded = false;
    for (const std::string& name : measure.properties) {
        const PropertyDeclaration* declaration = findProperty(name);
        if (!declaration) {
            for (const char* crop : kCropProperties)
                if (name == crop)
                    throw Error("property '" + name +
                                "' is computed from each region's pixels, which the Labeler does not measure "
                                "(glccl.regionprops of the Python module does); it measures " + termPropertyNames());
            throw Error("unknown property '" + name + "' (properties: " + termPropertyNames() + ")");
        }
        if (dimensions == 3 && !declaration->in3d)
            throw Error("property '" + name + "' is defined for 2-D images only, the texture is a volume");
        if (declaration->needsIntensity && options.intensity == 0)
            throw Error("property '" + name + "' needs an intensity texture (LabelOptions::intensity)");
        intensityNeeded = intensityNeeded || declaration->needsIntensity;
    }
    MeasurePlan plan;
    int bits = 8;
    if (intensityNeeded) {
        if (info.major < 4 || (info.major == 4 && info.minor < 3))
            throw Error("intensity properties are measured in OpenGL 4.3 contexts, this is " + info.version +
                        (info.es ? " (measure them in a desktop context or with the cpu backend)" : ""));
        // Checked against the input, whose size and target the labels take.
        const Shape& shape = described.shape;
        const gl::Texture input =
            target == GL_TEXTURE_3D
                ? gl::Texture::borrowVolume(texture, GLenum(described.textureFormat), int(shape.width), int(shape.height),
                                            int(shape.depth))
                : gl::Texture::borrow(texture, GLenum(described.textureFormat), int(shape.width), int(shape.height));
        bits = measure::intensityOf(options.intensity, input).bits;
        plan.intensity = options.intensity;
    }
    plan.request = without("glccl::termsFor(): ", [&] {
        return termsFor(measure.properties, dimensions, intensityNeeded ? 1 : 0, SampleKind::Unsigned, bits);
    });
    // The spacing and what finalizeProperties() refuses of it, on no regions.
    without("glccl::finalizeProperties(): ",
            [&] { finalizeProperties(tableTotals(described.shape, {}, plan.request), measure); });
    return plan;
}

Labeler::Labeler() : impl_(std::make_unique<Impl>()) {
    withPrefix("glccl::Labeler", [&] {
        loadGlFunctions();
        impl_->info = currentContextInfo();
        const ContextInfo& info = impl_->info;
        // OpenGL ES 3.0 is the raster engine's other floor (WebGL2's level).
        const bool supported = info.es ? info.major >= 3 : info.major > 3 || (info.major == 3 && info.minor >= 3);
        if (!supported)
            throw Error("needs OpenGL 3.3 or OpenGL ES 3.0 or newer, the current context is " + info.version);
    });
}

Labeler::~Labeler() {
    if (!impl_) return;
    StateGuard guard;
    for (auto& engine : impl_->engines) engine.reset();
    impl_->labelDownloader.reset();
    impl_->termGatherer.reset();
    impl_->rowWriter.reset();
    impl_->regionRows = {};
    impl_->labels = {};
    clearGlErrors();
}

void Labeler::reserve(int width, int height, const LabelOptions& options) {
    withPrefix("glccl::Labeler::reserve()", [&] {
        StateGuard guard;
        InputDescription texture = InputDescription::texture(width, height, GL_R8);
        texture.shape = Shape();  // the engine for a texture of any size and format
        impl_->reserve(width, height, options, impl_->route(texture, options).backend);
    });
}

InputDescription Labeler::Impl::describe(unsigned texture, GLenum& target) {
    if (texture == 0 || !glIsTexture(texture))
        throw Error("texture " + std::to_string(texture) + " is not a texture of the current context");
    GLint width = 0, height = 0, depth = 1, format = 0;
    glActiveTexture(GL_TEXTURE0);
    // A texture binds to the target it was made for only: GL_TEXTURE_2D
    // for an image, else GL_TEXTURE_3D for a volume.
    target = GL_TEXTURE_2D;
    glBindTexture(GL_TEXTURE_2D, texture);
    if (glGetError() != GL_NO_ERROR) {
        target = GL_TEXTURE_3D;
        glBindTexture(GL_TEXTURE_3D, texture);
        if (glGetError() != GL_NO_ERROR)
            throw Error("texture " + std::to_string(texture) + " is neither a 2-D nor a 3-D texture");
    }
    clearGlErrors();
    // WebGL2 has no such query at all (Emscripten gives no function).
    if (glGetTexLevelParameteriv == nullptr)
        throw Error("this context cannot say a texture's size and format (glGetTexLevelParameteriv is OpenGL ES "
                    "3.1); pass them: label(texture, width, height, internalFormat, options)");
    glGetTexLevelParameteriv(target, 0, GL_TEXTURE_WIDTH, &width);
    glGetTexLevelParameteriv(target, 0, GL_TEXTURE_HEIGHT, &height);
    if (target == GL_TEXTURE_3D) glGetTexLevelParameteriv(target, 0, GL_TEXTURE_DEPTH, &depth);
    glGetTexLevelParameteriv(target, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
    if (glGetError() != GL_NO_ERROR) {
        if (info.es && info.major == 3 && info.minor == 0)
            throw Error("an OpenGL ES 3.0 context cannot say a texture's size and format (glGetTexLevelParameteriv "
                        "is OpenGL ES 3.1)");
        throw Error("texture " + std::to_string(texture) + " is not a 2-D texture");
    }
    checkFormat(unsigned(format));
    if (width < 1 || height < 1 || depth < 1) throw Error("the texture has no level 0 image");
    return target == GL_TEXTURE_3D ? InputDescription::volumeTexture(width, height, depth, unsigned(format))
                                   : InputDescription::texture(width, height, unsigned(format));
}

InputDescription Labeler::Impl::describe(unsigned texture, int width, int height, unsigned format) {
    if (texture == 0 || !glIsTexture(texture))
        throw Error("texture " + std::to_string(texture) + " is not a texture of the current context");
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, texture);
    if (glGetError() != GL_NO_ERROR) throw Error("texture " + std::to_string(texture) + " is not a 2-D texture");
    checkFormat(format);
    if (width < 1 || height < 1)
        throw Error("a texture of " + std::to_string(width) + "x" + std::to_string(height) + " was given");
    return InputDescription::texture(width, height, format);
}

std::uint32_t Labeler::Impl::run(unsigned texture, GLenum target, const InputDescription& described,
                                 const Route& route, const LabelOptions& options) {
    const Backend backend = route.backend;
    const Shape& shape = described.shape;
    const int width = int(shape.width), height = int(shape.height), depth = int(shape.depth);
    const bool volume = target == GL_TEXTURE_3D;
    if (volume && route.pieces)
        throw Error(std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(depth) +
                    " is past one call of the " + backendName(backend) + " backend (sides up to " +
                    std::to_string(capabilitiesOf(backend, &info).largestVolumeExtent) +
                    ", GL_MAX_3D_TEXTURE_SIZE is " + std::to_string(info.max3DTextureSize) +
                    "; at most 2^30 voxels): label it in bricks");
    if (volume) {
        reserveVolume(width, height, depth, options);
        engine(backend);  // a backend that cannot run here says so before anything else
    } else {
        reserve(width, height, options, backend);
    }
    labeled = false;
    rowsWritten = false;
    properties = {};
    const GLenum format = GLenum(described.textureFormat);
    auto input = volume ? gl::Texture::borrowVolume(texture, format, width, height, depth)
                        : gl::Texture::borrow(texture, format, width, height);
    // Timings measure the labeling alone: the host's pending work (an
    // upload into the texture, say) would otherwise count in the first
    // stage, since the GPU runs it first.
    if (options.timings) glFinish();
    StageTimer timer(options.timings);
    const std::uint32_t count = engine(backend).label(input, labels, options, timer);
    timings = timer.collect();
    timingsOn = options.timings;
    labeled = true;
    this->count = count;
    last = backend;
    foregroundConnected = !options.neighbourhood && options.criterion.kind == Criterion::Kind::Binary &&
                          options.connectivity == (volume ? Connectivity::TwentySix : Connectivity::Eight);
    checkGlError(std::string("the ") + backendName(backend) + " backend");
    return count;
}

std::uint32_t Labeler::label(unsigned texture, const LabelOptions& options) {
    return withPrefix("glccl::Labeler::label()", [&] {
        StateGuard guard;
        clearGlErrors();
        GLenum target = GL_TEXTURE_2D;
        const InputDescription described = impl_->describe(texture, target);
        return impl_->labelDescribed(*this, texture, target, described, options);
    });
}

std::uint32_t Labeler::label(unsigned texture, int width, int height, unsigned internalFormat,
                             const LabelOptions& options) {
    return withPrefix("glccl::Labeler::label()", [&] {
        StateGuard guard;
        clearGlErrors();
        const InputDescription described = impl_->describe(texture, width, height, internalFormat);
        return impl_->labelDescribed(*this, texture, GL_TEXTURE_2D, described, options);
    });
}

std::uint32_t Labeler::label(unsigned texture, const Route& route, const LabelOptions& options) {
    return withPrefix("glccl::Labeler::label()", [&] {
        StateGuard guard;
        clearGlErrors();
        GLenum target = GL_TEXTURE_2D;
        const InputDescription described = impl_->describe(texture, target);
        if (route.backend == Backend::Auto) throw Error("a route names a backend, not auto");
        if (!options.measure.properties.empty()) throw Error(kMeasuredByLabelerAlone);
        const std::string why = whyRefused(route.engine, described, options);
        if (!why.empty()) throw Error(why);
        return impl_->run(texture, target, described, route, options);
    });
}

unsigned Labeler::labelTexture() const { return impl_->labels.id(); }

const PropertyTable& Labeler::properties() const {
    if (!impl_->labeled) throw Error("glccl::Labeler::properties(): nothing was labeled yet");
    return impl_->properties;
}

void Labeler::components(std::vector<Component>& out) {
    withPrefix("glccl::Labeler::components()", [&] {
        if (!impl_->labeled) throw Error("nothing was labeled yet");
        StateGuard guard;
        StageTimer timer(impl_->timingsOn);
        impl_->engine(impl_->last).components(out, timer);
        for (const StageTime& t : timer.collect()) addStageTime(impl_->timings, t.stage, t.milliseconds, t.measured);
        checkGlError(std::string("the ") + backendName(impl_->last) + " backend's table");
    });
}

std::vector<Component> Labeler::components() {
    std::vector<Component> table;
    components(table);
    return table;
}

void Labeler::downloadLabels(std::vector<std::uint32_t>& out) {
    withPrefix("glccl::Labeler::downloadLabels()", [&] {
        if (!impl_->labeled) throw Error("nothing was labeled yet");
        // Every element is overwritten: a vector of this size already is
        // reused as it is (resize() would zero-fill only a new size).
        const gl::Texture& labels = impl_->labels;
        const std::size_t count =
            std::size_t(labels.width()) * std::size_t(labels.height()) * std::size_t(labels.depth());
        if (out.size() != count) out.resize(count);
    });
    downloadLabels(out.data(), out.size());
}

void Labeler::downloadLabels(std::uint32_t* out, std::size_t count) {
    withPrefix("glccl::Labeler::downloadLabels()", [&] {
        if (!impl_->labeled) throw Error("nothing was labeled yet");
        const gl::Texture& labels = impl_->labels;
        const std::size_t expected =
            std::size_t(labels.width()) * std::size_t(labels.height()) * std::size_t(labels.depth());
        if (count != expected || out == nullptr)
            throw Error("room for " + std::to_string(count) + " labels given, the labels are " +
                        std::to_string(labels.width()) + "x" + std::to_string(labels.height()) +
                        (labels.target() == GL_TEXTURE_3D ? "x" + std::to_string(labels.depth()) : ""));
        StateGuard guard;
        if (impl_->engine(impl_->last).downloadLabels(out, count)) return;
        impl_->labelDownloader->download(labels, out, GL_RED_INTEGER, GL_UNSIGNED_INT, sizeof(std::uint32_t),
                                         "downloading the labels");
    });
}

std::vector<std::uint32_t> Labeler::downloadLabels() {
    std::vector<std::uint32_t> pixels;
    downloadLabels(pixels);
    return pixels;
}

void Labeler::result(Labeling& out) {
    components(out.components);
    downloadLabels(out.labels);
    out.width = impl_->labels.width();
    out.height = impl_->labels.height();
    out.depth = impl_->labels.depth();
    out.dimensions = impl_->labels.target() == GL_TEXTURE_3D ? 3 : 2;
}

Labeling Labeler::result() {
    Labeling labeling;
    result(labeling);
    return labeling;
}

RegionTotals Labeler::measureTerms(const TermRequest& request, unsigned intensity) {
    return measureTerms(request, intensity, nullptr);
}

RegionTotals Labeler::measureTerms(const TermRequest& request, unsigned intensity,
                                   const std::vector<Component>* given) {
    const char* entry = "glccl::Labeler::measureTerms()";
    const bool compute = withPrefix(entry, [&] {
        if (!impl_->labeled) throw Error("nothing was labeled yet");
        const gl::Texture& texture = impl_->labels;
        measure::checkRequest(request, texture.target() == GL_TEXTURE_3D ? 3 : 2, intensity != 0);
        const ContextInfo& info = impl_->info;
        // The terms of the labels alone are gathered by compute shaders in
        // OpenGL ES 3.1 too; the intensity's image formats are desktop's.
        const bool esCompute = info.es && (info.major > 3 || (info.major == 3 && info.minor >= 1));
        const bool here = info.major > 4 || (info.major == 4 && info.minor >= 3) || (esCompute && intensity == 0);
        if (!here && intensity != 0)
            throw Error("intensity terms are gathered in OpenGL 4.3 contexts, this is " + info.version +
                        (info.es ? " (measure them in a desktop context or with the cpu backend)" : ""));
        return here;
    });
    if (!compute) {
        // No compute shaders: the host's accumulator on the downloaded labels.
        const std::vector<std::uint32_t> labels = downloadLabels();
        const gl::Texture& texture = impl_->labels;
        LabelSamples samples;
        samples.shape = texture.target() == GL_TEXTURE_3D
                            ? Shape::volume(texture.width(), texture.height(), texture.depth())
                            : Shape::image(texture.width(), texture.height());
        samples.data = labels.data();
        return withPrefix(entry, [&] { return glccl::measureTerms(samples, nullptr, request, 0); });
    }
    std::vector<Component> downloaded;
    if (!given) components(downloaded);
    const std::vector<Component>& table = given ? *given : downloaded;
    return withPrefix(entry, [&] {
        if (table.size() != impl_->count)
            throw Error("the table given holds " + std::to_string(table.size()) + " regions, the labeling " +
                        std::to_string(impl_->count));
        StateGuard guard;
        if (!impl_->termGatherer) impl_->termGatherer = std::make_unique<measure::TermGatherer>();
        impl_->termGatherer->setForegroundConnected(impl_->foregroundConnected);
        const measure::Intensity samples =
            intensity ? measure::intensityOf(intensity, impl_->labels) : measure::Intensity{};
        // The measuring passes are stages of the labeling's timings, after its own.
        StageTimer timer(impl_->timingsOn);
        RegionTotals totals = impl_->termGatherer->gather(impl_->labels, table, request, samples, &timer);
        for (const StageTime& t : timer.collect()) addStageTime(impl_->timings, t.stage, t.milliseconds, t.measured);
        totals.gatheredBy = impl_->last;
        return totals;
    });
}

unsigned Labeler::regionBuffer() {
    const char* entry = "glccl::Labeler::regionBuffer()";
    Impl& impl = *impl_;
    withPrefix(entry, [&] {
        if (!impl.labeled) throw Error("nothing was labeled yet");
    });
    if (impl.rowsWritten) return impl.regionRows.id();
    const gl::Texture& labels = impl.labels;
    const int dimensions = labels.target() == GL_TEXTURE_3D ? 3 : 2;
    const backends::TextureEngine::GpuTable table = impl.engine(impl.last).gpuTable();
    const bool compute = impl.info.major > 4 || (impl.info.major == 4 && impl.info.minor >= 3);
    if (table.texture != 0 && compute) {
        withPrefix(entry, [&] {
            StateGuard guard;
            if (!impl.termGatherer) impl.termGatherer = std::make_unique<measure::TermGatherer>();
            if (!impl.rowWriter) impl.rowWriter = std::make_unique<measure::RegionRowWriter>();
            impl.termGatherer->setForegroundConnected(impl.foregroundConnected);
            StageTimer timer(impl.timingsOn);
            impl.rowWriter->writeOnGpu(labels, table.texture, table.volume, impl.count, *impl.termGatherer,
                                       impl.regionRows, impl.regionRowsBytes, &timer);
            for (const StageTime& t : timer.collect()) addStageTime(impl.timings, t.stage, t.milliseconds, t.measured);
            checkGlError("writing the region rows");
        });
    } else {
        // The table is on the host (or no compute shaders run here): the
        // rows are finalized there and uploaded.
        PropertyOptions rows;
        rows.properties = measure::RegionRowWriter::rowProperties(dimensions);
        const PropertyTable properties =
            finalizeProperties(measureTerms(termsFor(rows.properties, dimensions, 0)), rows);
        withPrefix(entry, [&] {
            StateGuard guard;
            measure::RegionRowWriter::upload(measure::RegionRowWriter::rowsOf(properties, dimensions), impl.regionRows,
                                             impl.regionRowsBytes);
        });
    }
    impl.rowsWritten = true;
    return impl.regionRows.id();
}

void Labeler::forget(unsigned texture) {
    withPrefix("glccl::Labeler::forget()", [&] { impl_->forget(texture); });
}

Backend Labeler::backend() const { return impl_->last; }
const StageTimings& Labeler::stageTimings() const { return impl_->timings; }
const ContextInfo& Labeler::contextInfo() const { return impl_->info; }

}  // namespace glccl
