// glccl validate: labels each input with every named backend and compares
// the result with the CPU reference, pixel for pixel and row for row of the
// component table.
//
// Every backend labels the same texture: the input becomes a GL texture of
// one headless context once, and one glccl::Labeler runs each backend on it
// through LabelOptions::backend (compute and raster in GLSL, cuda through
// CUDA-GL interop, cpu on a download of it), so a disagreement can only come
// from the labeling, never from two uploads. The reference labels the host
// image.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backends.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "glccl/backend.hpp"
#include "glccl/compare.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "glccl/output_transaction.hpp"
#include "glccl/reference.hpp"
#include "glccl/route.hpp"
#include "glccl/texture.hpp"

namespace glccl::tools {

const char kValidateHelp[] =
    "usage: glccl validate [INPUT...] [--generate FAMILY@WxH[xD],...] [options]\n"
    "\n"
    "Labels every input with each backend and compares it with the reference (the\n"
    "oracle: labels byte for byte, the component table row for row, and the\n"
    "partition: the same grouping of pixels, whatever the numbering). Each backend\n"
    "labels the input where it reads it: the cpu engine the host image, compute\n"
    "and raster one GL texture uploaded once per input (through one\n"
    "glccl::Labeler), cuda that texture through CUDA-GL interop (its volumes, and\n"
    "its images where no GL context can be made, from host memory).\n"
    "Prints one line per input and connectivity and a summary; the exit status is\n"
    "1 when any backend differs from the reference or fails, or when nothing could\n"
    "be compared (no backend runs here, or no criterion applies to any input; the\n"
    "reasons are printed).\n"
    "Times are wall times of one labeling call (downloads included; a backend's\n"
    "first call also compiles its shaders or kernels).\n"
    "\n"
    "options:\n"
    "  --backends LIST               comma-separated compute, raster, cuda, cpu, auto\n"
    "                                (the reference is what they are compared with)\n"
    "                                (default: every backend; those that cannot run\n"
    "                                here are skipped with the reason). A backend\n"
    "                                named here that cannot run is an error.\n"
    "  --generate LIST               generated inputs FAMILY@WIDTHxHEIGHT, e.g.\n"
    "                                noise50@1024x768,spiral@333x333 (repeatable).\n"
    "                                Families: noise<P>, granularity<G>, large,\n"
    "                                dense_disks, sparse_disks, corridor, spiral, comb,\n"
    "                                rings, staircase, checkerboard, zeros, ones.\n"
    "                                FAMILY@WxHxD is a volume: noise<P>, blobs, balls,\n"
    "                                hilbert (e.g. noise30@96x80x64)\n"
    "  --random COUNT@SIDE           COUNT random images (repeatable), each of a random\n"
    "                                size up to SIDE x SIDE and a random density; the\n"
    "                                same COUNT@SIDE gives the same images every run\n"
    "  --random-volumes COUNT@SIDE   COUNT random volumes (repeatable), each of a random\n"
    "                                size up to SIDE a side and a random density\n"
    "  --threads LIST                thread counts of the cpu engine, e.g. 1,2,3,7,16,all\n"
    "                                (all: every core this process may run on, the\n"
    "                                default): each count labels every input, a\n"
    "                                comparison of its own (its labels are the same for\n"
    "                                every count)\n"
    "  --repeat N                    label every input N times with each backend; every\n"
    "                                repetition must equal the reference (races in a\n"
    "                                GPU backend's atomics show up here; default 1)\n"
    "  --connectivity C              4, 8 or both for 2-D images (default 8); 6, 18, 26\n"
    "                                or all3d for volumes (default 26); repeatable, one\n"
    "                                of each. Volumes go to the backends that take them\n"
    "                                (the others are listed as skipped on the line)\n"
    "  --criterion LIST              comma-separated criteria, each a comparison of its\n"
    "                                own: binary, binary:L, segments, threshold:T or\n"
    "                                delta:D (default binary; see glccl label --help)\n"
    "  --sample-bits LIST            comma-separated 8, 16, 32, 64: every input is also\n"
    "                                labeled widened to each of these sample widths, 0\n"
    "                                kept 0 and a nonzero value v of an n-bit input\n"
    "                                becoming 2^bits - 2^n + v, at the top of the range\n"
    "                                (values past 2^63 at 64 bits), so that nonzero\n"
    "                                values differ as in the input (default: each\n"
    "                                input's own width; an input wider than a width\n"
    "                                listed is labeled at its own)\n"
    "  --diff-dir DIR                folder for difference images (default: the current\n"
    "                                folder; made with the first one when it does not\n"
    "                                exist), one per mismatch, named\n"
    "                                validate_diff_<input>_<backend>_c<4|8>.png: red\n"
    "                                where the labels differ, gray where they agree\n"
    "  --force                       overwrite difference images that exist\n"
    "  --gl desktop|es               the GL context compute and raster label in: desktop,\n"
    "                                OpenGL core profile (default), or es, OpenGL ES 3.0\n"
    "                                or newer, where raster runs, and compute from ES 3.1\n"
    "                                with image atomics; the header names the context\n"
    "  -h, --help                    show this help\n"
    "\n"
    "examples:\n"
    "  glccl validate --generate noise50@1024x768,spiral@333x333 --connectivity both\n"
    "  glccl validate mask.png --backends raster,cpu --diff-dir /tmp/diffs\n"
    "  glccl validate --generate spiral@333x333 --backends raster --gl es --sample-bits 8,16\n"
    "  glccl validate --random 500@1200 --repeat 20 --backends compute --connectivity both\n"
    "  glccl validate --random-volumes 300@160 --repeat 10 --connectivity all3d\n";

namespace {

using Clock = std::chrono::steady_clock;

// COUNT random images of sides up to SIDE (--random COUNT@SIDE).
struct RandomInputs {
    int count = 0, side = 0;
};

// A generated volume (--generate FAMILY@WxHxD).
struct GeneratedVolume {
    std::string family;
    int width = 0, height = 0, depth = 0;
    std::string name() const {
        return family + "@" + std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(depth);
    }
};

// FAMILY@WxHxD, or nothing when the size has no third extent (an image).
std::optional<GeneratedVolume> parseGeneratedVolume(const std::string& option, const std::string& text) {
    const auto at = text.find('@');
    if (at == std::string::npos) return std::nullopt;
    const std::string size = text.substr(at + 1);
    const auto first = size.find('x'), second = size.find('x', first == std::string::npos ? 0 : first + 1);
    if (first == std::string::npos || second == std::string::npos) return std::nullopt;
    GeneratedVolume volume;
    volume.family = text.substr(0, at);
    volume.width = parseInteger(option, size.substr(0, first), 1, 32768);
    volume.height = parseInteger(option, size.substr(first + 1, second - first - 1), 1, 32768);
    volume.depth = parseInteger(option, size.substr(second + 1), 1, 32768);
    return volume;
}

struct ValidateOptions {
    std::vector<std::string> files;
    std::vector<GeneratedInput> generated;
    std::vector<GeneratedVolume> generatedVolumes;
    std::vector<RandomInputs> random;
    std::vector<RandomInputs> randomVolumes;
    int repeat = 1;
    // --threads: the counts the cpu engine labels every input with, each a
    // comparison of its own (0: every core this process may run on).
    std::vector<int> threads = {0};
    std::vector<Backend> backends;  // the backends compared with the reference (auto resolved later)
    bool backendsNamed = false;     // --backends was given: a backend that cannot run is an error
    std::vector<Connectivity> connectivities = {Connectivity::Eight};
    std::vector<Connectivity> volumeConnectivities = {Connectivity::TwentySix};
    std::vector<Criterion> criteria = {Criterion::binary()};
    std::vector<int> sampleBits;  // --sample-bits: the widths every input is widened to (empty: as it is)
    std::string diffDir = ".";
    bool diffDirNamed = false;  // a named folder must exist before any work
    bool force = false;
    GlApi gl = GlApi::Desktop;  // --gl
    bool glNamed = false;
};

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
                if (const auto volume = parseGeneratedVolume(name, item)) {
                    parseOptionValue(name, volume->family,
                                     [](const std::string& family) { return generateVolumeFamily(family, 1, 1, 1); });
                    options.generatedVolumes.push_back(*volume);
                    continue;
                }
                GeneratedInput input = parseGeneratedInput(name, item);
                // An unknown family is a command-line mistake: find it before any work.
                parseOptionValue(name, input.family,
                                 [](const std::string& family) { return generateFamily(family, 1, 1); });
                options.generated.push_back(input);
            }
        } else if (name == "--random" || name == "--random-volumes") {
            const std::string value = cursor.valueOf(name, inlineValue);
            const auto at = value.find('@');
            if (at == std::string::npos)
                throw UsageError(name + " takes COUNT@SIDE, e.g. 500@1200, not '" + value + "'");
            RandomInputs random;
            random.count = parseInteger(name, value.substr(0, at), 1, 1000000);
            random.side = parseInteger(name, value.substr(at + 1), 1, name == "--random" ? 32768 : 2048);
            (name == "--random" ? options.random : options.randomVolumes).push_back(random);
        } else if (name == "--repeat") {
            options.repeat = parseInteger(name, cursor.valueOf(name, inlineValue), 1, 100000);
        } else if (name == "--threads") {
            options.threads.clear();
            for (const std::string& count : splitList(name, cursor.valueOf(name, inlineValue)))
                options.threads.push_back(count == "all" ? 0 : parseInteger(name, count, 1, kMostThreads));
        } else if (name == "--connectivity") {
            const std::string value = cursor.valueOf(name, inlineValue);
            if (value == "both") {
                options.connectivities = {Connectivity::Four, Connectivity::Eight};
            } else if (value == "all3d") {
                options.volumeConnectivities = {Connectivity::Six, Connectivity::Eighteen, Connectivity::TwentySix};
            } else {
                const Connectivity connectivity = parseOptionValue(name, value, parseConnectivity);
                (dimensionsOf(connectivity) == 3 ? options.volumeConnectivities : options.connectivities) = {connectivity};
            }
        } else if (name == "--criterion") {
            options.criteria.clear();
            for (const std::string& text : splitList(name, cursor.valueOf(name, inlineValue)))
                options.criteria.push_back(parseOptionValue(name, text, Criterion::parse));
        } else if (name == "--sample-bits") {
            options.sampleBits.clear();
            for (const std::string& text : splitList(name, cursor.valueOf(name, inlineValue))) {
                const int bits = parseInteger(name, text, 8, 64);
                if (!Image::isSampleBits(bits))
                    throw UsageError(name + " takes 8, 16, 32 or 64, not '" + text + "'");
                options.sampleBits.push_back(bits);
            }
        } else if (name == "--diff-dir") {
            options.diffDir = cursor.valueOf(name, inlineValue);
            options.diffDirNamed = true;
        } else if (name == "--force" && !inlineValue) {
            options.force = true;
        } else if (name == "--gl") {
            if (options.glNamed) throw UsageError("option --gl is given twice");
            options.gl = parseGlApi(name, cursor.valueOf(name, inlineValue));
            options.glNamed = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw unknownOption(arg, "validate",
                                {"--backends", "--generate", "--random", "--random-volumes", "--threads", "--repeat",
                                 "--connectivity", "--criterion", "--sample-bits", "--diff-dir", "--force", "--gl",
                                 "--help"});
        } else {
            options.files.push_back(arg);
        }
    }
    if (options.files.empty() && options.generated.empty() && options.random.empty() &&
        options.generatedVolumes.empty() && options.randomVolumes.empty())
        throw UsageError(
            "validate needs an INPUT image, --generate, --random or --random-volumes (see glccl validate --help)");
    if (!options.backendsNamed) options.backends = concreteBackends();
    return options;
}

// A random image: its size, density and seed, drawn when the run starts.
struct RandomImage {
    int width = 0, height = 0;
    double density = 0.5;
    int levels = 2;    // distinct values, 0 included (segments and threshold use more)
    int channels = 1;  // 4 for half of the threshold images
    std::uint64_t seed = 0;
};

// A volume, generated (family) or random (no family): its size, and the
// density, levels and seed of a random one.
struct VolumeInput {
    std::string family;
    int width = 0, height = 0, depth = 0;
    double density = 0.5;
    int levels = 2;
    std::uint64_t seed = 0;
};

// One input, read or generated on demand so that a long run holds one image at a time.
struct Input {
    std::string name;      // as given, FAMILY@WxH[xD], or random<i>@WxH, randomvolume<i>@WxHxD
    std::string fileStem;  // for difference image names
    std::optional<GeneratedInput> generated;
    std::optional<RandomImage> random;
    std::optional<VolumeInput> volume;
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
    if (input.volume) {
        const VolumeInput& v = *input.volume;
        if (!v.family.empty()) return generateVolumeFamily(v.family, v.width, v.height, v.depth);
        return randomVolume(v.width, v.height, v.depth, v.density, v.levels, v.seed);
    }
    if (input.random) {
        const RandomImage& r = *input.random;
        return randomImage(r.width, r.height, r.density, r.levels, r.channels, r.seed);
    }
    if (input.generated)
        return generateFamily(input.generated->family, input.generated->width, input.generated->height);
    // As glccl label reads files: color is luma except for the threshold criterion.
    const ChannelMode mode = criterion.kind == Criterion::Kind::Threshold ? ChannelMode::Natural : ChannelMode::Gray;
    try {
        return readImage(input.name, mode);
    } catch (const Error& error) {
        throw Error(input.name + ": " + inputMessage(input.name, error.what()));
    }
}

// The image widened to `bits`-bit samples (--sample-bits): 0 stays 0, a
// nonzero value v of n-bit samples becomes 2^bits - 2^n + v, so nonzero
// values keep their differences and order at the top of the wider range.
// An image already `bits` wide or wider is returned as it is.
Image widened(Image image, int bits) {
    if (bits <= image.sampleBits) return image;
    Image wide(image.shape(), image.channels, bits);
    const std::uint64_t offset = Image::largestSample(bits) - Image::largestSample(image.sampleBits);
    const std::size_t elements = std::size_t(image.shape().count());
    for (std::size_t i = 0; i < elements; ++i)
        for (int c = 0; c < image.channels; ++c) {
            const std::uint64_t value = image.sample(i, c);
            wide.setSample(i, c, value == 0 ? 0 : offset + value);
        }
    return wide;
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

// A volume's labeling against the reference: labels voxel for voxel, then
// the table row for row (compareLabelings is 2-D).
Outcome judgeVolume(const Labeling& expected, const Labeling& actual) {
    Outcome outcome;
    if (actual.shape() != expected.shape() || actual.labels.size() != expected.labels.size()) {
        outcome.kind = Outcome::Kind::Different;
        outcome.text = "DIFFERENT: size " + std::to_string(actual.width) + "x" + std::to_string(actual.height) + "x" +
                       std::to_string(actual.depth);
        return outcome;
    }
    std::size_t differing = 0, first = 0;
    for (std::size_t i = expected.labels.size(); i-- > 0;)
        if (expected.labels[i] != actual.labels[i]) ++differing, first = i;
    if (differing > 0) {
        const std::size_t slice = std::size_t(expected.width) * std::size_t(expected.height);
        outcome.kind = Outcome::Kind::Different;
        outcome.text = "DIFFERENT: " + std::to_string(differing) + (differing == 1 ? " voxel" : " voxels") +
                       ", first at (" + std::to_string(first % std::size_t(expected.width)) + "," +
                       std::to_string(first % slice / std::size_t(expected.width)) + "," +
                       std::to_string(first / slice) + ")";
        return outcome;
    }
    std::size_t row = 0;
    while (row < expected.count() && row < actual.count() && expected.components[row] == actual.components[row]) ++row;
    if (row < expected.count() || row < actual.count()) {
        outcome.kind = Outcome::Kind::Different;
        outcome.text = "DIFFERENT: component table, first at label " + std::to_string(row + 1);
        return outcome;
    }
    outcome.kind = Outcome::Kind::Identical;
    outcome.text = "identical";
    return outcome;
}

bool allOfKind(const std::vector<Criterion>& criteria, Criterion::Kind kind) {
    return std::all_of(criteria.begin(), criteria.end(), [&](const Criterion& c) { return c.kind == kind; });
}

Outcome judgeAny(const Labeling& expected, const Labeling& actual) {
    return expected.dimensions == 3 ? judgeVolume(expected, actual) : judge(expected, actual);
}

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
    Validation(const ValidateOptions& options, LabelSession& session, std::vector<Backend> compared)
        : options_(options), session_(session), compared_(std::move(compared)) {}

    void run(const std::vector<Input>& inputs) {
        for (const Input& input : inputs) {
            for (const Criterion& criterion : options_.criteria)
                for (const int bits : widths())
                    nameWidth_ = std::max(nameWidth_, titleOf(input, criterion, bits).size());
            steps_ += connectivitiesOf(input).size() * options_.criteria.size() * widths().size();
        }
        for (const Input& input : inputs)
            for (const Criterion& criterion : options_.criteria)
                for (const int bits : widths()) validateInput(input, criterion, bits);
        progress_.clear();
    }

    const Tally& tally() const { return tally_; }

private:
    const std::vector<Connectivity>& connectivitiesOf(const Input& input) const {
        return input.volume ? options_.volumeConnectivities : options_.connectivities;
    }

    // The sample widths of --sample-bits; 0 alone: each input as it is.
    std::vector<int> widths() const { return options_.sampleBits.empty() ? std::vector<int>{0} : options_.sampleBits; }

    // The input's name on its line: with the width and the criterion where
    // several are compared.
    std::string titleOf(const Input& input, const Criterion& criterion, int bits) const {
        return input.name + (bits != 0 ? " u" + std::to_string(bits) : "") +
               (options_.criteria.size() > 1 ? " " + criterion.toString() : "");
    }

    void validateInput(const Input& input, const Criterion& criterion, int bits) {
        const std::string title = titleOf(input, criterion, bits);
        progress_.update("[" + std::to_string(step_ + 1) + "/" + std::to_string(steps_) + "] " + title + " loading",
                         false);
        const Image image = widened(loadInput(input, criterion), bits);
        currentStem_ = safeFileStem(input.fileStem + (bits != 0 ? "_u" + std::to_string(bits) : "") +
                                    (options_.criteria.size() > 1 ? "_" + criterion.toString() : ""));

        // One upload for every backend and connectivity, where a backend
        // reads textures.
        std::optional<SessionTexture> texture;
        std::string uploadError;
        const bool readsTextures = std::any_of(compared_.begin(), compared_.end(), [&](Backend backend) {
            return readsTexture(backend);
        });
        if (readsTextures && hasTexture(image)) {
            try {
                texture.emplace(session_, image);
            } catch (const Error& error) {
                uploadError = userMessage(error.what());
            }
        }
        for (const Connectivity connectivity : connectivitiesOf(input)) {
            ++step_;
            validateConnectivity(title, image, texture ? &**texture : nullptr, uploadError, connectivity, criterion);
        }
    }

    void validateConnectivity(const std::string& title, const Image& image, const ImageTexture* texture,
                              const std::string& uploadError, Connectivity connectivity, const Criterion& criterion) {
        const std::string where = "[" + std::to_string(step_) + "/" + std::to_string(steps_) + "] " + title + " c" +
                                  std::to_string(neighbourCount(connectivity));
        progress_.update(where, isLongStep(image));
        const auto start = Clock::now();
        // An input the criterion does not apply to (a number past its
        // samples' range, color under a criterion of one channel): nothing
        // to compare, said on its line.
        std::string inapplicable = criterion.problemForSampleBits(image.sampleBits);
        if (inapplicable.empty() && image.channels != 1 && criterion.kind != Criterion::Kind::Threshold)
            inapplicable = "'" + criterion.toString() + "' needs 1-channel input, this one has " +
                           std::to_string(image.channels);
        if (!inapplicable.empty()) {
            progress_.clear();
            std::cout << padRight(title, nameWidth_) << "  c" << neighbourCount(connectivity)
                      << "  skipped: " << inapplicable << '\n';
            return;
        }
        const Labeling reference = labelReference(image, connectivity, criterion);
        const double referenceMs = millisecondsSince(start);

        const bool volume = image.dimensions == 3;
        const std::string size = std::to_string(image.width) + "x" + std::to_string(image.height) +
                                 (volume ? "x" + std::to_string(image.depth) : "");
        const std::string count = std::to_string(reference.count());
        std::string line = padRight(title, nameWidth_) + "  " + padRight(size, 11) + "  c" +
                           std::to_string(neighbourCount(connectivity)) + "  " + padLeft(count, 8) +
                           (reference.count() == 1 ? " component " : " components") + "  reference " +
                           formatted("%.2f", referenceMs) + " ms";
        std::vector<std::string> notes;
        for (const Backend backend : compared_) {
            // The engines of host memory label the host image; those that
            // read textures, the uploaded texture. A volume goes to the
            // backends that take one: as the uploaded texture, or from host
            // memory to those that read volumes only there (cuda).
            bool fromHost = !readsTexture(backend);
            std::string refused = volume && !fromHost ? whyVolumeRefused(backend, image,
                                                                         texture ? texture->internalFormat() : 0u,
                                                                         connectivity, criterion)
                                                      : "";
            if (!refused.empty() && whyVolumeRefused(backend, image, std::nullopt, connectivity, criterion).empty()) {
                refused.clear();
                fromHost = true;
            }
            // Color with no GL texture: from host memory where the backend
            // reads it, as the router would take it there.
            if (!fromHost && !hasTexture(image)) {
                refused = session_.capabilities(backend).takes(Residence::HostMemory)
                              ? whyRefused(session_.capabilities(backend),
                                           InputDescription::host(image.shape(), image.channels, image.sampleBits),
                                           optionsOf(backend, connectivity, criterion))
                              : "color of " + std::to_string(image.sampleBits) + "-bit samples has no GL texture";
                fromHost = true;
            }
            if (!refused.empty()) {
                // The refusal's first clause ("the raster backend labels 2-D images").
                line += "  " + std::string(backendName(backend)) + " skipped (" + refused.substr(0, refused.find(';')) +
                        ")";
                continue;
            }
            // The cpu engine once per thread count; the others once.
            const std::vector<int> counts = backend == Backend::Cpu ? options_.threads : std::vector<int>{0};
            for (const int threads : counts) {
                const std::string name = std::string(backendName(backend)) +
                                         (counts.size() > 1 ? "/" + (threads == 0 ? std::string("all")
                                                                                  : std::to_string(threads))
                                                            : "");
                progress_.update(where + " " + name, false);
                Outcome outcome = runAndJudge(backend, threads, fromHost ? nullptr : texture,
                                              fromHost ? &image : nullptr, uploadError, connectivity, criterion,
                                              reference);
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
                line += "  " + name + " " + outcome.text;
                if (outcome.kind != Outcome::Kind::Failed)
                    line += " " + formatted("%.2f", outcome.milliseconds) + " ms";
                if (!lastDiff_.empty()) notes.push_back(lastDiff_);
            }
        }
        progress_.clear();
        std::cout << line << '\n';
        for (const std::string& note : notes) std::cout << "  " << note << '\n';
        std::cout.flush();
    }

    // Whether `backend` labels the uploaded texture rather than the host
    // image: the engines that read textures themselves, where a context is
    // (cuda reads host memory too, and does without one).
    bool readsTexture(Backend backend) {
        const EngineCapabilities engine = session_.capabilities(backend);
        if (!engine.takes(Residence::GlTexture)) return false;
        return !engine.takes(Residence::HostMemory) || session_.hasContext();
    }

    // Whether the image has a GL texture to be uploaded into: GL textures
    // of color hold 8- or 16-bit samples (GL_RGBA8, GL_RGBA16).
    static bool hasTexture(const Image& image) { return image.channels == 1 || image.sampleBits <= 16; }

    static LabelOptions optionsOf(Backend backend, Connectivity connectivity, const Criterion& criterion) {
        LabelOptions options;
        options.backend = backend;
        options.connectivity = connectivity;
        options.criterion = criterion;
        return options;
    }

    // Why `backend` does not label this volume as a texture of
    // `textureFormat`, or from host memory where that is nullopt; "" when it does.
    std::string whyVolumeRefused(Backend backend, const Image& image, std::optional<unsigned> textureFormat,
                                 Connectivity connectivity, const Criterion& criterion) const {
        LabelOptions options;
        options.backend = backend;
        options.connectivity = connectivity;
        options.criterion = criterion;
        InputDescription input =
            textureFormat ? InputDescription::volumeTexture(image.width, image.height, image.depth, *textureFormat)
                          : InputDescription::hostImage(image.width, image.height, image.channels, image.sampleBits);
        input.shape = image.shape();
        return whyRefused(session_.capabilities(backend), input, options);
    }

    // Labels the texture, or where hostImage is given that image from host
    // memory, options_.repeat times, and judges every labeling.
    Outcome runAndJudge(Backend backend, int threads, const ImageTexture* texture, const Image* hostImage,
                        const std::string& uploadError, Connectivity connectivity, const Criterion& criterion,
                        const Labeling& reference) {
        lastDiff_.clear();
        BackendRun run;
        try {
            if (texture == nullptr && hostImage == nullptr) throw Error(uploadError);
            LabelOptions options;
            options.backend = backend;
            options.connectivity = connectivity;
            options.criterion = criterion;
            options.threads = threads;
            auto labelOnce = [&] {
                return hostImage ? session_.label(*hostImage, options) : session_.label(*texture, options);
            };
            run = labelOnce();
            // Every repetition must equal the reference, not only the first.
            for (int repetition = 1; repetition < options_.repeat; ++repetition) {
                BackendRun again = labelOnce();
                const Outcome outcome = judgeAny(reference, again.labeling);
                if (outcome.kind != Outcome::Kind::Identical) {
                    Outcome repeated;
                    repeated.kind = Outcome::Kind::Different;
                    repeated.text = "repetition " + std::to_string(repetition + 1) + " of " +
                                    std::to_string(options_.repeat) + ": " + outcome.text;
                    return repeated;
                }
            }
        } catch (const Error& error) {
            Outcome failed;
            failed.text = "FAILED: " + userMessage(error.what());
            return failed;
        }
        const Labeling& actual = run.labeling;
        Outcome outcome = judgeAny(reference, actual);
        if (outcome.kind == Outcome::Kind::Identical && options_.repeat > 1)
            outcome.text += " x" + std::to_string(options_.repeat);
        outcome.milliseconds = run.milliseconds;
        if (outcome.kind != Outcome::Kind::Identical && reference.dimensions == 2 && actual.width == reference.width &&
            actual.height == reference.height)
            lastDiff_ = writeDiff(backend, connectivity, reference, actual);
        return outcome;
    }

    // Writes the difference image; returns the note printed under the line.
    std::string writeDiff(Backend backend, Connectivity connectivity, const Labeling& reference,
                          const Labeling& actual) {
        const std::string folder = options_.diffDir == "." ? "" : options_.diffDir + "/";
        const std::string path = folder + "validate_diff_" + currentStem_ + "_" + backendName(backend) + "_c" +
                                 std::to_string(neighbourCount(connectivity)) + ".png";
        // Never over an input, nor over a difference image of this run (two
        // inputs of one stem), by any spelling of the path.
        for (const std::string& file : options_.files)
            if (sameFile(path, file)) return "no difference image: '" + path + "' is the input '" + file + "'";
        const std::string kind = notReplaceableKind(path);
        if (!kind.empty()) return "no difference image: '" + path + "' is " + kind + "; only a regular file is replaced";
        if (!options_.force && access(path.c_str(), F_OK) == 0)
            return "no difference image: '" + path + "' exists; use --force to overwrite it";
        try {
            // The folder --diff-dir names is made with the first image it holds.
            if (!folder.empty()) makeFolders(options_.diffDir);
            const FileIdentity identity = fileIdentity(path);
            if (std::find(written_.begin(), written_.end(), identity) != written_.end())
                return "no difference image: '" + path + "' was written for another input of this run";
            writePng(path, diffImage(reference, actual), options_.force);
            written_.push_back(fileIdentity(path));
            return "wrote " + path;
        } catch (const Error& error) {
            return "no difference image: " + userMessage(error.what());
        }
    }

    const ValidateOptions& options_;
    LabelSession& session_;
    std::vector<FileIdentity> written_;  // the difference images of this run
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
        inputs.push_back({file, safeFileStem(file), std::nullopt, std::nullopt, std::nullopt});
    }
    for (const GeneratedInput& generated : options.generated)
        inputs.push_back({generated.name(),
                          safeFileStem(generated.family + "_" + std::to_string(generated.width) + "x" +
                                       std::to_string(generated.height)),
                          generated, std::nullopt, std::nullopt});
    for (const RandomInputs& random : options.random) {
        // Seeded by COUNT and SIDE alone: a failing image can be run again.
        std::mt19937_64 draw(std::uint64_t(random.count) * 1000003u + std::uint64_t(random.side));
        // Two levels where every criterion is binary; color where every
        // one is threshold (the others need one channel).
        const bool binary = allOfKind(options.criteria, Criterion::Kind::Binary);
        const bool threshold = allOfKind(options.criteria, Criterion::Kind::Threshold);
        for (int i = 0; i < random.count; ++i) {
            RandomImage image;
            image.width = 1 + int(draw() % std::uint64_t(random.side));
            image.height = 1 + int(draw() % std::uint64_t(random.side));
            image.density = double(draw() % 101) / 100.0;
            image.levels = binary ? 2 : 3 + int(draw() % 5);
            image.channels = threshold && draw() % 2 == 0 ? 4 : 1;
            image.seed = draw();
            const std::string size = std::to_string(image.width) + "x" + std::to_string(image.height);
            inputs.push_back({"random" + std::to_string(i) + "@" + size,
                              safeFileStem("random" + std::to_string(i) + "_" + size), std::nullopt, image,
                              std::nullopt});
        }
    }
    for (const GeneratedVolume& volume : options.generatedVolumes) {
        VolumeInput input;
        input.family = volume.family;
        input.width = volume.width, input.height = volume.height, input.depth = volume.depth;
        inputs.push_back({volume.name(), safeFileStem(volume.name()), std::nullopt, std::nullopt, input});
    }
    for (const RandomInputs& random : options.randomVolumes) {
        // Seeded by COUNT and SIDE alone, apart from --random's images.
        std::mt19937_64 draw(std::uint64_t(random.count) * 1000033u + std::uint64_t(random.side) + 7u);
        const bool binary = allOfKind(options.criteria, Criterion::Kind::Binary);
        for (int i = 0; i < random.count; ++i) {
            VolumeInput volume;
            volume.width = 1 + int(draw() % std::uint64_t(random.side));
            volume.height = 1 + int(draw() % std::uint64_t(random.side));
            volume.depth = 1 + int(draw() % std::uint64_t(random.side));
            volume.density = double(draw() % 101) / 100.0;
            volume.levels = binary ? 2 : 3 + int(draw() % 5);
            volume.seed = draw();
            const std::string size = std::to_string(volume.width) + "x" + std::to_string(volume.height) + "x" +
                                     std::to_string(volume.depth);
            inputs.push_back({"randomvolume" + std::to_string(i) + "@" + size,
                              safeFileStem("randomvolume" + std::to_string(i) + "_" + size), std::nullopt,
                              std::nullopt, volume});
        }
    }
    // The folder for difference images exists or can be made: it is made
    // when the first one is written, so a run without differences makes none.
    if (options.diffDirNamed) {
        try {
            checkFolderCanBeMade(options.diffDir);
        } catch (const Error& error) {
            throw Error(std::string("--diff-dir: ") + error.what());
        }
    }

    // Which backends run: auto stands for the one it resolves to here; a
    // backend named by --backends must run, one there by default is skipped
    // with the reason.
    LabelSession session(options.gl);
    std::vector<Backend> compared;
    std::vector<std::string> skipped;
    std::string header = "reference: reference on the host image";
    for (const Backend requested : options.backends) {
        // Auto stands for what it chooses for the largest input here.
        const Backend backend =
            session.resolve(requested, InputDescription::host(Shape::image(16384, 16384), 1, 8));
        if (backend == Backend::Reference) continue;  // what every backend is compared with
        if (std::find(compared.begin(), compared.end(), backend) != compared.end()) continue;
        const std::string why = session.whyUnavailable(backend);
        if (!why.empty() && options.backendsNamed)
            throw Error(std::string("the ") + backendName(backend) + " backend cannot run here: " + why);
        if (!why.empty()) {
            skipped.push_back(std::string(backendName(backend)) + " skipped: " + why);
            continue;
        }
        compared.push_back(backend);
        header += std::string("; ") + backendName(backend) + " on " + session.device(backend);
        if (const std::string context = session.context(backend); !context.empty()) header += " in " + context;
        if (backend == Backend::Cuda && session.hasContext())
            header += ", reading the GL texture through CUDA-GL interop";
    }
    if (compared.empty()) {
        std::string reasons;
        for (const std::string& line : skipped) reasons += (reasons.empty() ? "" : "; ") + line;
        throw Error("validate compared nothing, no backend can run here: " + reasons);
    }
    for (const std::string& line : skipped) std::cout << line << '\n';
    std::cout << header << '\n';

    Validation validation(options, session, compared);
    validation.run(inputs);
    const Tally& tally = validation.tally();
    std::cout << inputs.size() << (inputs.size() == 1 ? " input, " : " inputs, ") << tally.comparisons
              << (tally.comparisons == 1 ? " comparison: " : " comparisons: ") << tally.identical << " identical, "
              << tally.different << " different";
    if (tally.failed > 0) std::cout << ", " << tally.failed << " failed";
    if (options.repeat > 1) std::cout << " (each labeled " << options.repeat << " times)";
    std::cout << '\n';
    // Every comparison skipped (no criterion applied to any input) proves nothing.
    return tally.different == 0 && tally.failed == 0 && tally.comparisons > 0 ? 0 : 1;
}

}  // namespace glccl::tools
