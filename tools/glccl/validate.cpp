// glccl validate: labels each input with every named backend and compares
// the result with the CPU reference, pixel for pixel and row for row of the
// component table.
//
// The GPU backends share one headless GL context and one upload: the input
// becomes a GL texture once, the raster pipeline (glccl::Labeler) labels that
// texture, and the CUDA path reads the very same texture through CUDA-GL
// interop (glccl::cuda::labelGlTexture), so a disagreement can only come
// from the labeling, never from two uploads.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "gl_objects.hpp"
#include "glccl/compare.hpp"
#include "glccl/context.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "glccl/labeler.hpp"
#include "glccl/reference.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl::tools {

const char kValidateHelp[] =
    "usage: glccl validate [INPUT...] [--generate FAMILY@WxH,...] [options]\n"
    "\n"
    "Labels every input with each backend and compares it with the CPU reference:\n"
    "labels byte for byte, the component table row for row, and the partition\n"
    "(the same grouping of pixels, whatever the numbering). The GPU backends label\n"
    "one GL texture, uploaded once per input: raster in GLSL, cuda through\n"
    "CUDA-GL interop. Prints one line per input and connectivity and a summary;\n"
    "the exit status is 1 when any backend differs from the reference or fails.\n"
    "Times are wall times of one labeling call (downloads included; a backend's\n"
    "first call also compiles its shaders or kernels).\n"
    "\n"
    "options:\n"
    "  --backends LIST               comma-separated cpu, raster, cuda (default: all\n"
    "                                built backends; those that cannot run here are\n"
    "                                skipped with the reason). A backend named here\n"
    "                                that cannot run is an error.\n"
    "  --generate LIST               generated inputs FAMILY@WIDTHxHEIGHT, e.g.\n"
    "                                noise50@1024x768,spiral@333x333 (repeatable).\n"
    "                                Families: noise<P>, granularity<G>, large,\n"
    "                                dense_disks, sparse_disks, corridor, spiral, comb,\n"
    "                                rings, staircase, checkerboard, zeros, ones\n"
    "  --connectivity 4|8|both       pixel neighbourhood (default 8)\n"
    "  --criterion C                 binary, segments or threshold:T (default binary;\n"
    "                                see glccl label --help)\n"
    "  --diff-dir DIR                folder for difference images (default: the current\n"
    "                                folder), one per mismatch, named\n"
    "                                validate_diff_<input>_<backend>_c<4|8>.png: red\n"
    "                                where the labels differ, gray where they agree\n"
    "  --force                       overwrite difference images that exist\n"
    "  -h, --help                    show this help\n"
    "\n"
    "examples:\n"
    "  glccl validate --generate noise50@1024x768,spiral@333x333 --connectivity both\n"
    "  glccl validate mask.png --backends raster,cpu --diff-dir /tmp/diffs\n";

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct ValidateOptions {
    std::vector<std::string> files;
    std::vector<GeneratedInput> generated;
    std::vector<Backend> backends;  // the backends compared with the reference (cpu is the reference)
    bool backendsNamed = false;     // --backends was given: a backend that cannot run is an error
    std::vector<Connectivity> connectivities = {Connectivity::Eight};
    Criterion criterion = Criterion::binary();
    std::string diffDir = ".";
    bool diffDirNamed = false;  // a named folder must exist before any work
    bool force = false;
};

std::vector<Backend> builtBackends() {
#ifdef GLCCL_HAVE_CUDA
    return {Backend::Cpu, Backend::Raster, Backend::Cuda};
#else
    return {Backend::Cpu, Backend::Raster};
#endif
}

void addBackends(std::vector<Backend>& backends, const std::string& option, const std::string& list) {
    for (const std::string& name : splitList(option, list)) {
        const Backend backend = parseOptionValue(option, name, parseBackend);
        if (std::find(backends.begin(), backends.end(), backend) == backends.end()) backends.push_back(backend);
    }
}

ValidateOptions parseValidateOptions(ArgumentCursor& cursor) {
    ValidateOptions options;
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        auto [name, inlineValue] = ArgumentCursor::splitOption(arg);
        if (name == "--backends") {
            addBackends(options.backends, name, cursor.valueOf(name, inlineValue));
            options.backendsNamed = true;
        } else if (name == "--generate") {
            for (const std::string& item : splitList(name, cursor.valueOf(name, inlineValue))) {
                GeneratedInput input = parseGeneratedInput(name, item);
                // An unknown family is a command-line mistake: find it before any work.
                parseOptionValue(name, input.family,
                                 [](const std::string& family) { return generateFamily(family, 1, 1); });
                options.generated.push_back(input);
            }
        } else if (name == "--connectivity") {
            const std::string value = cursor.valueOf(name, inlineValue);
            if (value == "both") {
                options.connectivities = {Connectivity::Four, Connectivity::Eight};
            } else {
                options.connectivities = {parseOptionValue(name, value, parseConnectivity)};
            }
        } else if (name == "--criterion") {
            options.criterion = parseOptionValue(name, cursor.valueOf(name, inlineValue), Criterion::parse);
        } else if (name == "--diff-dir") {
            options.diffDir = cursor.valueOf(name, inlineValue);
            options.diffDirNamed = true;
        } else if (name == "--force" && !inlineValue) {
            options.force = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw UsageError("unknown option '" + arg + "' for validate (see glccl validate --help)");
        } else {
            options.files.push_back(arg);
        }
    }
    if (options.files.empty() && options.generated.empty())
        throw UsageError("validate needs an INPUT image or --generate (see glccl validate --help)");
    if (!options.backendsNamed) options.backends = builtBackends();
    return options;
}

// The GPU side of a run: one headless context, the raster Labeler in it,
// and whether CUDA can run. Whatever cannot run says why.
struct GpuSession {
    std::unique_ptr<HeadlessContext> context;
    std::unique_ptr<Labeler> labeler;
    std::string noContext;      // why there is no context
    std::string noRaster;       // why raster cannot run ("" when it can)
    std::string noCuda;         // why cuda cannot run ("" when it can)
    bool cudaFromHost = false;  // CUDA runs but without a context: it reads the host image

    std::string device() const {
        return context ? context->info().renderer + " (" + context->platform() + ")" : std::string();
    }
    std::string whyNot(Backend backend) const {
        if (backend == Backend::Raster) return noRaster;
        if (backend == Backend::Cuda) return noCuda;
        return {};
    }
};

bool contains(const std::vector<Backend>& backends, Backend backend) {
    return std::find(backends.begin(), backends.end(), backend) != backends.end();
}

std::string cudaUnavailableReason() {
#ifdef GLCCL_HAVE_CUDA
    std::string why;
    if (!cuda::available(&why)) return why.empty() ? "no usable CUDA device" : why;
    return {};
#else
    return "not built into this binary (no CUDA compiler was found at build time)";
#endif
}

GpuSession openGpuSession(const std::vector<Backend>& backends) {
    GpuSession session;
    const bool wantRaster = contains(backends, Backend::Raster);
    const bool wantCuda = contains(backends, Backend::Cuda);
    if (wantCuda) session.noCuda = cudaUnavailableReason();
    if (!wantRaster && (!wantCuda || !session.noCuda.empty())) return session;
    try {
        session.context = std::make_unique<HeadlessContext>();
        loadGlFunctions();
    } catch (const Error& error) {
        session.noContext = std::string("no headless GL context: ") + error.what();
        session.noRaster = session.noContext;
        session.cudaFromHost = wantCuda && session.noCuda.empty();
        return session;
    }
    if (wantRaster) {
        try {
            session.labeler = std::make_unique<Labeler>();
        } catch (const Error& error) {
            session.noRaster = error.what();
        }
    }
    return session;
}

// One input, read or generated on demand so that a long run holds one image at a time.
struct Input {
    std::string name;      // as given, or FAMILY@WxH
    std::string fileStem;  // for difference image names
    std::optional<GeneratedInput> generated;
};

std::string safeFileStem(std::string text) {
    const auto slash = text.find_last_of('/');
    if (slash != std::string::npos) text.erase(0, slash + 1);
    const auto dot = text.find_last_of('.');
    if (dot != std::string::npos && dot > 0) text.erase(dot);
    for (char& c : text) {
        const bool plain =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!plain) c = '_';
    }
    return text.empty() ? "input" : text;
}

Image loadInput(const Input& input, const Criterion& criterion) {
    if (input.generated)
        return generateFamily(input.generated->family, input.generated->width, input.generated->height);
    // As glccl label reads files: color is luma except for the threshold criterion.
    const ChannelMode mode = criterion.kind == Criterion::Kind::Threshold ? ChannelMode::Natural : ChannelMode::Gray;
    return readImage(input.name, mode);
}

// The outcome of one backend on one input and connectivity.
struct Outcome {
    enum class Kind { Identical, Renumbered, Different, Failed };
    Kind kind = Kind::Failed;
    std::string text;
    double milliseconds = 0.0;
};

Outcome judge(const Labeling& expected, const Labeling& actual) {
    const Comparison comparison = compareLabelings(expected, actual);
    Outcome outcome;
    if (comparison.identical()) {
        outcome.kind = Outcome::Kind::Identical;
        outcome.text = "identical";
    } else if (!comparison.sameSize) {
        outcome.kind = Outcome::Kind::Different;
        outcome.text = "DIFFERENT: size " + std::to_string(actual.width) + "x" + std::to_string(actual.height);
    } else if (comparison.identicalLabels) {
        std::size_t row = 0;
        while (row < expected.count() && row < actual.count() && expected.components[row] == actual.components[row])
            ++row;
        outcome.kind = Outcome::Kind::Different;
        outcome.text = "DIFFERENT: component table, first at label " + std::to_string(row + 1);
    } else if (comparison.samePartition) {
        outcome.kind = Outcome::Kind::Renumbered;
        outcome.text = "same partition, numbered differently";
    } else {
        outcome.kind = Outcome::Kind::Different;
        outcome.text = "DIFFERENT: " + std::to_string(comparison.differingPixels) +
                       (comparison.differingPixels == 1 ? " pixel, first at (" : " pixels, first at (") +
                       std::to_string(comparison.firstX) + "," + std::to_string(comparison.firstY) + ")";
    }
    return outcome;
}

// The input's textures in the session's context: the image, uploaded once
// for both GPU backends and every connectivity, and the label texture the
// CUDA path writes through interop.
struct InputTextures {
    gl::Texture image;
    gl::Texture cudaLabels;
};

InputTextures uploadInput(const Image& image) {
    InputTextures textures;
    const bool gray = image.channels == 1;
    textures.image = gl::Texture::allocate(gray ? GL_R8 : GL_RGBA8, image.width, image.height, "glccl validate");
    textures.image.upload(image.pixels.data(), gray ? GL_RED : GL_RGBA, GL_UNSIGNED_BYTE);
    return textures;
}

Labeling labelWithRaster(Labeler& labeler, const gl::Texture& image, Connectivity connectivity, Criterion criterion) {
    LabelOptions options;
    options.connectivity = connectivity;
    options.criterion = criterion;
    labeler.label(image.id(), options);
    Labeling labeling;
    labeling.width = image.width();
    labeling.height = image.height();
    labeling.components = labeler.components();
    labeling.labels = labeler.downloadLabels();
    return labeling;
}

#ifdef GLCCL_HAVE_CUDA
Labeling labelWithCuda(InputTextures& textures, int channels, Connectivity connectivity, Criterion criterion) {
    const gl::Texture& image = textures.image;
    if (textures.cudaLabels.id() == 0)
        textures.cudaLabels = gl::Texture::allocate(GL_R32UI, image.width(), image.height(), "glccl validate");
    Labeling labeling;
    labeling.width = image.width();
    labeling.height = image.height();
    labeling.components = cuda::labelGlTexture(image.id(), textures.cudaLabels.id(), image.width(), image.height(),
                                               channels, connectivity, criterion);
    labeling.labels.resize(std::size_t(image.width()) * image.height());
    textures.cudaLabels.download(labeling.labels.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
    return labeling;
}
#endif

std::string padRight(const std::string& text, std::size_t width) {
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string padLeft(const std::string& text, std::size_t width) {
    return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

struct Tally {
    int comparisons = 0, identical = 0, different = 0, failed = 0;
};

class Validation {
public:
    Validation(const ValidateOptions& options, GpuSession& session) : options_(options), session_(session) {
        for (const Backend backend : options_.backends)
            if (backend != Backend::Cpu) compared_.push_back(backend);
    }

    void run(const std::vector<Input>& inputs) {
        for (const Input& input : inputs) nameWidth_ = std::max(nameWidth_, input.name.size());
        steps_ = inputs.size() * options_.connectivities.size();
        for (const Input& input : inputs) validateInput(input);
        progress_.clear();
    }

    const Tally& tally() const { return tally_; }

private:
    void validateInput(const Input& input) {
        progress_.update(
            "[" + std::to_string(step_ + 1) + "/" + std::to_string(steps_) + "] " + input.name + " loading", false);
        const Image image = loadInput(input, options_.criterion);
        currentStem_ = input.fileStem;

        // Backends that cannot run here were named by default: a skip line says why.
        for (const Backend backend : compared_) {
            const std::string why = session_.whyNot(backend);
            if (why.empty()) continue;
            progress_.clear();
            std::cout << input.name << ": " << backendName(backend) << " skipped: " << why << '\n';
        }

        std::optional<InputTextures> textures;
        std::string uploadError;
        if (session_.context) {
            try {
                textures = uploadInput(image);
            } catch (const Error& error) {
                uploadError = error.what();
            }
        }
        for (const Connectivity connectivity : options_.connectivities) {
            ++step_;
            validateConnectivity(input, image, textures ? &*textures : nullptr, uploadError, connectivity);
        }
    }

    void validateConnectivity(const Input& input, const Image& image, InputTextures* textures,
                              const std::string& uploadError, Connectivity connectivity) {
        const std::string where = "[" + std::to_string(step_) + "/" + std::to_string(steps_) + "] " + input.name +
                                  " c" + std::to_string(int(connectivity));
        progress_.update(where, isLongStep(image));
        const auto start = Clock::now();
        const Labeling reference = labelReference(image, connectivity, options_.criterion);
        const double referenceMs = millisecondsSince(start);

        const std::string size = std::to_string(image.width) + "x" + std::to_string(image.height);
        const std::string count = std::to_string(reference.count());
        std::string line = padRight(input.name, nameWidth_) + "  " + padRight(size, 11) + "  c" +
                           std::to_string(int(connectivity)) + "  " + padLeft(count, 8) +
                           (reference.count() == 1 ? " component " : " components") + "  cpu " +
                           formatted("%.2f", referenceMs) + " ms";
        std::vector<std::string> notes;
        for (const Backend backend : compared_) {
            if (!session_.whyNot(backend).empty()) continue;
            progress_.update(where + " " + backendName(backend), false);
            Outcome outcome = runAndJudge(backend, image, textures, uploadError, connectivity, reference);
            ++tally_.comparisons;
            switch (outcome.kind) {
                case Outcome::Kind::Identical:
                    ++tally_.identical;
                    break;
                case Outcome::Kind::Renumbered:
                case Outcome::Kind::Different:
                    ++tally_.different;
                    break;
                case Outcome::Kind::Failed:
                    ++tally_.failed;
                    break;
            }
            line += "  " + std::string(backendName(backend)) + " " + outcome.text;
            if (outcome.kind != Outcome::Kind::Failed) line += " " + formatted("%.2f", outcome.milliseconds) + " ms";
            if (!lastDiff_.empty()) notes.push_back(lastDiff_);
        }
        progress_.clear();
        std::cout << line << '\n';
        for (const std::string& note : notes) std::cout << "  " << note << '\n';
        std::cout.flush();
    }

    // The host image is read only by cuda without a GL context (cudaFromHost).
    Outcome runAndJudge(Backend backend, [[maybe_unused]] const Image& image, InputTextures* textures,
                        const std::string& uploadError, Connectivity connectivity, const Labeling& reference) {
        lastDiff_.clear();
        Labeling actual;
        const auto start = Clock::now();
        try {
            if (!uploadError.empty()) throw Error(uploadError);
            if (backend == Backend::Raster) {
                actual = labelWithRaster(*session_.labeler, textures->image, connectivity, options_.criterion);
            } else {
#ifdef GLCCL_HAVE_CUDA
                actual = session_.cudaFromHost
                             ? cuda::labelImage(image, connectivity, options_.criterion)
                             : labelWithCuda(*textures, image.channels, connectivity, options_.criterion);
#endif
            }
        } catch (const Error& error) {
            Outcome failed;
            failed.text = std::string("FAILED: ") + error.what();
            return failed;
        }
        const double milliseconds = millisecondsSince(start);
        Outcome outcome = judge(reference, actual);
        outcome.milliseconds = milliseconds;
        if (outcome.kind != Outcome::Kind::Identical && actual.width == reference.width &&
            actual.height == reference.height)
            lastDiff_ = writeDiff(backend, connectivity, reference, actual);
        return outcome;
    }

    // Writes the difference image; returns the note printed under the line.
    std::string writeDiff(Backend backend, Connectivity connectivity, const Labeling& reference,
                          const Labeling& actual) {
        const std::string folder = options_.diffDir == "." ? "" : options_.diffDir + "/";
        const std::string path = folder + "validate_diff_" + currentStem_ + "_" + backendName(backend) + "_c" +
                                 std::to_string(int(connectivity)) + ".png";
        if (!options_.force && access(path.c_str(), F_OK) == 0)
            return "no difference image: '" + path + "' exists; use --force to overwrite it";
        try {
            writePng(path, diffImage(reference, actual), options_.force);
            return "wrote " + path;
        } catch (const Error& error) {
            return std::string("no difference image: ") + error.what();
        }
    }

    const ValidateOptions& options_;
    GpuSession& session_;
    std::vector<Backend> compared_;
    ProgressLine progress_;
    Tally tally_;
    std::size_t nameWidth_ = 0, steps_ = 0, step_ = 0;
    std::string currentStem_, lastDiff_;
};

}  // namespace

int runValidate(const std::vector<std::string>& args) {
    if (hasHelpFlag(args)) {
        std::cout << kValidateHelp;
        return 0;
    }
    ArgumentCursor cursor(args);
    const ValidateOptions options = parseValidateOptions(cursor);

    // Every file must be readable and the diff folder writable before any work.
    std::vector<Input> inputs;
    for (const std::string& file : options.files) {
        if (access(file.c_str(), R_OK) != 0) throw Error("cannot read input '" + file + "': " + std::strerror(errno));
        inputs.push_back({file, safeFileStem(file), std::nullopt});
    }
    for (const GeneratedInput& generated : options.generated)
        inputs.push_back({generated.name(),
                          safeFileStem(generated.family + "_" + std::to_string(generated.width) + "x" +
                                       std::to_string(generated.height)),
                          generated});
    if (options.diffDirNamed) checkOutputFolder(options.diffDir);

    GpuSession session = openGpuSession(options.backends);
    std::string header = "reference: cpu";
    for (const Backend backend : options.backends) {
        if (backend == Backend::Cpu) continue;
        const std::string why = session.whyNot(backend);
        if (!why.empty() && options.backendsNamed)
            throw Error(std::string("the ") + backendName(backend) + " backend cannot run here: " + why);
        header += std::string("; ") + backendName(backend);
        if (!why.empty()) {
            header += " skipped";
        } else if (backend == Backend::Raster) {
            header += " on " + session.device();
        } else {
#ifdef GLCCL_HAVE_CUDA
            header += " on " + cuda::deviceName() +
                      (session.cudaFromHost ? " from host memory (" + session.noContext + ")"
                                            : ", reading the GL texture through CUDA-GL interop");
#endif
        }
    }
    std::cout << header << '\n';

    Validation validation(options, session);
    validation.run(inputs);
    const Tally& tally = validation.tally();
    std::cout << inputs.size() << (inputs.size() == 1 ? " input, " : " inputs, ") << tally.comparisons
              << (tally.comparisons == 1 ? " comparison: " : " comparisons: ") << tally.identical << " identical, "
              << tally.different << " different";
    if (tally.failed > 0) std::cout << ", " << tally.failed << " failed";
    std::cout << '\n';
    return tally.different == 0 && tally.failed == 0 ? 0 : 1;
}

}  // namespace glccl::tools
