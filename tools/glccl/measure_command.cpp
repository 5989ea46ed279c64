// glccl measure: the region properties of a label image made anywhere
// (glccl::measureRegions), and what glccl label's --properties shares with
// it: the property list, the intensity image, the spacing and the CSV.

#include "measure_command.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/image_source.hpp"
#include "glccl/labeler.hpp"
#include "glccl/measure_team.hpp"
#include "glccl/output_transaction.hpp"
#include "glccl/session.hpp"
#include "glccl/tiled.hpp"
#include "npy_format.hpp"
#include "output_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace glccl::tools {

const char kMeasureHelp[] =
    "usage: glccl measure LABELS [--properties LIST] [--intensity IMAGE] [--spacing LIST]\n"
    "                     [--stats OUT.csv] [options]\n"
    "\n"
    "Measures the regions of a label image made elsewhere (a segmentation, a hand\n"
    "annotation, glccl label --labels): scikit-image's regionprops_table, one row a\n"
    "label in ascending order, its columns named as scikit-image names them. LABELS\n"
    "is read as integers, never thresholded: a .npy of any integer dtype, 2-D\n"
    "(rows, columns) or 3-D (planes, rows, columns); a TIFF of 8-, 16- or 32-bit\n"
    "samples (a stack: a volume); a gray PNG of 8 or 16 bits. 0 is background;\n"
    "regions need not be connected nor their labels consecutive (any up to 2^64-1).\n"
    "The CSV goes to --stats, else to stdout. glccl label --properties measures the\n"
    "components it labels the same way.\n"
    "\n"
    "options:\n"
    "  --properties LIST             scikit-image's property names, comma-separated\n"
    "                                (default label,bbox, as regionprops_table); a\n"
    "                                property of several values takes several columns\n"
    "                                (bbox-0 ... bbox-3); an unknown name is refused with\n"
    "                                the list of those measured\n"
    "  --intensity IMAGE             the intensity image of the intensity properties\n"
    "                                (intensity_mean, ...): a .npy of any numeric dtype,\n"
    "                                the labels' shape or that and a last axis of\n"
    "                                channels; or a PNG, TIFF, JPEG, PGM/PPM of the\n"
    "                                labels' size, of unsigned samples (color as 3\n"
    "                                channels, alpha left out).\n"
    "                                Columns of several channels end in -0, -1, ...\n"
    "  --spacing LIST                the size of an element along each axis, numpy\n"
    "                                order (rows,columns; planes,rows,columns), e.g.\n"
    "                                1.5,1 (default 1 on every axis)\n"
    "  --stats OUT.csv               write the table as CSV (default: print it on stdout)\n"
    "  --threads N                   threads (default: every core this process may run\n"
    "                                on); the table is the same for every count\n"
    "  --memory-limit SIZE           host memory the inputs may take, e.g. 8G, 512M\n"
    "                                (default: half the physical memory): a C-ordered\n"
    "                                little-endian .npy is mapped, any size; other\n"
    "                                inputs are read whole, and a pair past the limit is\n"
    "                                refused before either is read\n"
    "  --force                       overwrite OUT.csv if it exists\n"
    "  --progress                    print each step (reading, measuring, writing) on\n"
    "                                stderr, a line each when stderr is not a terminal\n"
    "  --quiet                       no step line on a terminal\n"
    "  -h, --help                    show this help\n"
    "\n"
    "With --stats, prints a summary line ('LABELS: WxH, N regions, C columns, T ms')\n"
    "and 'wrote OUT.csv'. Exit status: 0 success, 1 a file that cannot be read or\n"
    "written, 2 a usage error (an unknown property, an intensity of another size,\n"
    "labels that are no integers, inputs past --memory-limit).\n"
    "\n"
    "examples:\n"
    "  glccl measure labels.npy --properties label,area,centroid,orientation --stats t.csv\n"
    "  glccl measure cells.tif --intensity stain.tif --properties label,intensity_mean\n"
    "  glccl measure volume_labels.npy --properties label,area,bbox --spacing 2,1,1\n";

namespace {

using Clock = std::chrono::steady_clock;

// ------------------------------------------------------------------ .npy

// An .npy file's header: its dtype, shape (numpy order) and data.
struct NpyArray {
    std::string path;
    const detail::NpyDtype* dtype = nullptr;
    std::string shapeText;
    std::vector<std::uint64_t> sides;
    bool fortran = false;  // first axis fastest in the file
    std::uint64_t dataOffset = 0;
    std::uint64_t count = 1;  // elements (checked against the file's size)

    std::uint64_t bytes() const { return count * dtype->size; }
};

// Reads the header of `path`; throws glccl::Error for a file that is not an
// .npy of a numeric dtype, or is shorter than its header says.
NpyArray peekNpy(const std::string& path) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!file) throw Error("cannot open '" + path + "': " + std::strerror(errno));
    const auto fail = [&](const std::string& why) { return Error("'" + path + "' " + why); };
    const detail::NpyHeader header = detail::readNpyHeader(
        [&](void* out, std::size_t size, std::uint64_t offset) -> std::size_t {
            if (std::fseek(file.get(), long(offset), SEEK_SET) != 0) return 0;
            return std::fread(out, 1, size, file.get());
        },
        fail);
    NpyArray array;
    array.path = path;
    array.shapeText = header.shape;
    array.dataOffset = header.dataOffset;
    array.dtype = detail::findNpyImageDtype(header.descr);
    if (array.dtype == nullptr)
        throw fail("holds dtype " + header.descr +
                   "; the dtypes read are bool, integers of 1 to 8 bytes, float32 and float64, in either byte "
                   "order");
    if (header.fortranOrder != "False" && header.fortranOrder != "True")
        throw fail("has no fortran_order in its header");
    array.fortran = header.fortranOrder == "True";
    if (!detail::parseNpySides(header.shape, array.sides))
        throw fail("has the shape " + header.shape + ", which is not a tuple of at most 4 sides");
    for (std::uint64_t side : array.sides) {
        if (side == 0) throw fail("is empty (shape " + header.shape + ")");
        if (side > std::uint64_t(std::numeric_limits<std::int64_t>::max()) ||
            __builtin_mul_overflow(array.count, side, &array.count))
            throw fail("has the shape " + header.shape + ", more elements than a file holds");
    }
    std::uint64_t bytes = 0, end = 0;
    if (std::fseek(file.get(), 0, SEEK_END) != 0 || __builtin_mul_overflow(array.count, array.dtype->size, &bytes) ||
        __builtin_add_overflow(bytes, array.dataOffset, &end) || std::uint64_t(std::ftell(file.get())) < end)
        throw fail("ends before the " + std::to_string(array.count) + " elements of its shape " + header.shape);
    return array;
}

// The samples of a C-ordered .npy of native (little-endian) or 1-byte
// elements, where they lie in the file: mapped read-only, so that an array
// past memory is measured from the page cache, never read whole.
bool mappable(const NpyArray& array) { return !array.fortran && (!array.dtype->bigEndian || array.dtype->size == 1); }

std::shared_ptr<const std::uint8_t> mapNpyData(const NpyArray& array) {
    const int fd = ::open(array.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot open '" + array.path + "': " + std::strerror(errno));
    const std::size_t bytes = std::size_t(array.dataOffset + array.bytes());
    void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
    const int error = errno;
    ::close(fd);
    if (map == MAP_FAILED) throw Error("cannot map '" + array.path + "': " + std::strerror(error));
    const auto* base = static_cast<const std::uint8_t*>(map);
    return std::shared_ptr<const std::uint8_t>(base + array.dataOffset, [map, bytes](const std::uint8_t*) { ::munmap(map, bytes); });
}

// The samples of `array`, little-endian whatever the file's byte order.
std::vector<std::uint8_t> readNpyData(const NpyArray& array) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(array.path.c_str(), "rb"), std::fclose);
    if (!file) throw Error("cannot open '" + array.path + "': " + std::strerror(errno));
    std::vector<std::uint8_t> data(array.bytes());
    if (std::fseek(file.get(), long(array.dataOffset), SEEK_SET) != 0 ||
        std::fread(data.data(), 1, data.size(), file.get()) != data.size())
        throw Error("'" + array.path + "' ends before its " + std::to_string(array.bytes()) + " bytes of samples");
    if (array.dtype->bigEndian && array.dtype->size > 1)
        for (std::size_t at = 0; at < data.size(); at += array.dtype->size)
            std::reverse(data.begin() + std::ptrdiff_t(at), data.begin() + std::ptrdiff_t(at + array.dtype->size));
    if (!array.fortran || array.sides.size() < 2) return data;
    // Fortran order (numpy.save of a transposed array): the first axis is
    // the fastest in the file; in C order, the last.
    const std::size_t size = array.dtype->size, axes = array.sides.size();
    std::vector<std::uint64_t> stride(axes, 1);
    for (std::size_t a = 1; a < axes; ++a) stride[a] = stride[a - 1] * array.sides[a - 1];
    std::vector<std::uint8_t> ordered(data.size());
    std::vector<std::uint64_t> index(axes, 0);
    for (std::uint64_t c = 0; c < array.count; ++c) {
        std::uint64_t f = 0;
        for (std::size_t a = 0; a < axes; ++a) f += index[a] * stride[a];
        std::memcpy(&ordered[c * size], &data[f * size], size);
        for (std::size_t a = axes; a-- > 0;) {
            if (++index[a] < array.sides[a]) break;
            index[a] = 0;
        }
    }
    return ordered;
}

// Shape of numpy sides (rows, columns) or (planes, rows, columns).
Shape shapeOfSides(const std::vector<std::uint64_t>& sides) {
    if (sides.size() == 3)
        return Shape::volume(std::int64_t(sides[2]), std::int64_t(sides[1]), std::int64_t(sides[0]));
    return Shape::image(std::int64_t(sides[1]), std::int64_t(sides[0]));
}

// "64x48" or "64x48x20" (width x height x depth), as the summaries say.
std::string describeShape(const Shape& shape) {
    return std::to_string(shape.width) + 'x' + std::to_string(shape.height) +
           (shape.dimensions == 3 ? 'x' + std::to_string(shape.depth) : std::string());
}

// numpy's order: "(48, 64)" or "(20, 48, 64)".
std::string numpyShape(const Shape& shape) {
    return shape.dimensions == 3 ? "(" + std::to_string(shape.depth) + ", " + std::to_string(shape.height) + ", " +
                                       std::to_string(shape.width) + ")"
                                 : "(" + std::to_string(shape.height) + ", " + std::to_string(shape.width) + ")";
}

bool startsWith(const std::string& path, const unsigned char* magic, std::size_t size) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!file) return false;
    unsigned char head[8] = {};
    return std::fread(head, 1, size, file.get()) == size && std::memcmp(head, magic, size) == 0;
}

bool isJpegFile(const std::string& path) {
    static const unsigned char magic[3] = {0xFF, 0xD8, 0xFF};
    return startsWith(path, magic, 3);
}

// The bytes of an image file once decoded (1 or 4 channels), from its header.
std::uint64_t decodedImageBytes(const std::string& path) {
    if (isTiffFile(path)) {
        const TiffImageSource tiff(path, ChannelMode::Natural);
        return std::uint64_t(tiff.width()) * tiff.height() * tiff.depth() * std::uint64_t(tiff.channels()) *
               std::uint64_t(tiff.sampleBits() / 8);
    }
    const std::optional<WholeDecode> decode = wholeDecodeSize(path);
    return decode ? decode->bytes : 0;
}

// ---------------------------------------------------------------- labels

// A label image as read: integer samples of 1, 2, 4 or 8 bytes.
struct LabelFile {
    Shape shape;
    int bytes = 4;
    bool isSigned = false;
    std::string type;  // "uint16", "int64", "16-bit TIFF", ...
    std::vector<std::uint8_t> samples;
    std::shared_ptr<const std::uint8_t> mapped;  // in place of samples: a mapped .npy's

    LabelSamples view() const {
        LabelSamples labels;
        labels.shape = shape;
        labels.data = mapped ? mapped.get() : samples.data();
        labels.bytes = bytes;
        labels.isSigned = isSigned;
        return labels;
    }
};


LabelFile readLabelFile(const std::string& path) {
    LabelFile labels;
    if (isNpyFile(path)) {
        const NpyArray array = peekNpy(path);
        const detail::NpyKind kind = array.dtype->kind;
        labels.type = detail::npyTypeName(*array.dtype);
        if (kind == detail::NpyKind::Float || kind == detail::NpyKind::Bool)
            throw UsageError("'" + path + "' holds " + labels.type +
                             " values; labels are integers (numpy: labels.astype(numpy.int64); a mask is labeled "
                             "by glccl label)");
        if (array.sides.size() != 2 && array.sides.size() != 3)
            throw UsageError("'" + path + "' has the shape " + array.shapeText +
                             "; labels are 2-D (rows, columns) or 3-D (planes, rows, columns)");
        labels.shape = shapeOfSides(array.sides);
        labels.bytes = int(array.dtype->size);
        labels.isSigned = kind == detail::NpyKind::Signed;
        if (mappable(array)) labels.mapped = mapNpyData(array);
        else labels.samples = readNpyData(array);
        return labels;
    }
    if (isJpegFile(path))
        throw UsageError("'" + path + "' is a JPEG, whose compression changes values: it holds no labels "
                         "(save them as .npy, TIFF or PNG)");
    Image image = readImage(path, ChannelMode::Natural);
    if (image.channels != 1)
        throw UsageError("'" + path + "' is a color image; labels are one channel of integers");
    labels.shape = image.shape();
    labels.bytes = image.bytesPerSample();
    labels.type = std::to_string(image.sampleBits) + "-bit";
    labels.samples = std::move(image.pixels);
    return labels;
}

std::uint64_t defaultMemoryLimit() { return physicalMemoryBytes() / 2; }

// ------------------------------------------------------------------ CSV

std::string realText(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char text[32];
    const std::to_chars_result written = std::to_chars(text, text + sizeof text, value);
    return std::string(text, written.ptr);
}

// ------------------------------------------------------------- the command

struct MeasureCommand {
    std::string labels;
    MeasureRequest request;
    std::string stats;
    int threads = 0;
    std::uint64_t memoryLimit = 0;  // 0: defaultMemoryLimit()
    bool force = false, progress = false, quiet = false;
};

const std::vector<std::string>& measureOptionNames() {
    static const std::vector<std::string> names = {"--properties", "--intensity", "--spacing", "--stats",
                                                   "--threads",    "--memory-limit", "--force", "--progress",
                                                   "--quiet",      "--help"};
    return names;
}

MeasureCommand parseMeasureCommand(const std::vector<std::string>& args) {
    MeasureCommand command;
    ArgumentCursor cursor(args);
    const auto once = [](bool given, const std::string& name) {
        if (given) throw UsageError("option " + name + " is given twice");
    };
    bool threadsGiven = false;
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        const auto [name, inlineValue] = ArgumentCursor::splitOption(arg);
        if (name == "--properties") {
            once(command.request.given(), name);
            command.request.properties = parsePropertyList(name, cursor.valueOf(name, inlineValue));
        } else if (name == "--intensity") {
            once(!command.request.intensity.empty(), name);
            command.request.intensity = cursor.valueOf(name, inlineValue);
        } else if (name == "--spacing") {
            once(!command.request.spacing.empty(), name);
            command.request.spacing = parseSpacing(name, cursor.valueOf(name, inlineValue));
        } else if (name == "--stats") {
            once(!command.stats.empty(), name);
            command.stats = cursor.valueOf(name, inlineValue);
            checkOutputExtension(name, command.stats, {".csv"}, "the table is");
        } else if (name == "--threads") {
            once(threadsGiven, name);
            threadsGiven = true;
            command.threads = parseInteger(name, cursor.valueOf(name, inlineValue), 1, kMostThreads);
        } else if (name == "--memory-limit") {
            once(command.memoryLimit != 0, name);
            command.memoryLimit = parseMemorySize(name, cursor.valueOf(name, inlineValue));
        } else if (name == "--force" && !inlineValue) {
            command.force = true;
        } else if (name == "--progress" && !inlineValue) {
            command.progress = true;
        } else if (name == "--quiet" && !inlineValue) {
            command.quiet = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw unknownOption(arg, "measure", measureOptionNames());
        } else if (command.labels.empty()) {
            command.labels = arg;
        } else {
            throw UsageError("measure takes one LABELS image, not '" + command.labels + "' and '" + arg +
                             "' (see glccl measure --help)");
        }
    }
    if (command.labels.empty()) throw UsageError("measure needs a LABELS image (see glccl measure --help)");
    if (!command.request.given()) command.request.properties = {"label", "bbox"};
    return command;
}

}  // namespace

std::uint64_t bytesReadWhole(const std::string& path) {
    if (isNpyFile(path)) {
        const NpyArray array = peekNpy(path);
        return mappable(array) ? 0 : 2 * array.bytes();
    }
    return decodedImageBytes(path);
}

// ---------------------------------------------------------------- shared

std::vector<std::string> MeasureRequest::asArguments() const {
    if (!given()) return {};
    std::string list;
    for (const std::string& name : properties) list += (list.empty() ? "" : ",") + name;
    std::vector<std::string> arguments = {"--properties=" + list};
    if (!intensity.empty()) arguments.push_back("--intensity=" + intensity);
    if (!spacing.empty()) {
        std::string values;
        for (double value : spacing) values += (values.empty() ? "" : ",") + realText(value);
        arguments.push_back("--spacing=" + values);
    }
    return arguments;
}

std::vector<std::string> propertyNames() {
    std::vector<std::string> names = {"label"};
    for (const PropertyDeclaration& declaration : propertyDeclarations())
        if (std::find(names.begin(), names.end(), declaration.name) == names.end()) names.emplace_back(declaration.name);
    return names;
}

std::vector<std::string> parsePropertyList(const std::string& option, const std::string& text) {
    const std::vector<std::string> names = splitList(option, text);
    const std::vector<std::string> known = propertyNames();
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string& name = names[i];
        if (std::find(names.begin(), names.begin() + std::ptrdiff_t(i), name) != names.begin() + std::ptrdiff_t(i))
            throw UsageError(option + ": '" + name + "' is given twice");
        if (name == "label" || findProperty(name) != nullptr) continue;
        std::string list;
        for (const std::string& candidate : known) list += (list.empty() ? "" : ", ") + candidate;
        throw UsageError(option + ": unknown property '" + name + "'" + didYouMean(name, known) +
                         " (measured here: " + list +
                         "; those computed from each region's crop, as solidity, and the old names, as "
                         "major_axis_length, are Python's glccl.regionprops_table)");
    }
    return names;
}

std::vector<double> parseSpacing(const std::string& option, const std::string& text) {
    std::vector<double> spacing;
    for (const std::string& item : splitList(option, text)) {
        double value = 0.0;
        const std::from_chars_result parsed = std::from_chars(item.data(), item.data() + item.size(), value);
        if (parsed.ec != std::errc() || parsed.ptr != item.data() + item.size() || !std::isfinite(value) ||
            value <= 0.0)
            throw UsageError(option + ": '" + item + "' is not a positive number (e.g. " + option + " 1.5,1)");
        spacing.push_back(value);
    }
    return spacing;
}

MeasureRequest takeMeasureRequest(std::vector<std::string>& args) {
    MeasureRequest request;
    std::vector<std::string> rest;
    ArgumentCursor cursor(std::move(args));
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        const auto [name, inlineValue] = ArgumentCursor::splitOption(arg);
        if (name == "--properties") {
            if (request.given()) throw UsageError("option --properties is given twice");
            request.properties = parsePropertyList(name, cursor.valueOf(name, inlineValue));
        } else if (name == "--intensity") {
            if (!request.intensity.empty()) throw UsageError("option --intensity is given twice");
            request.intensity = cursor.valueOf(name, inlineValue);
        } else if (name == "--spacing") {
            if (!request.spacing.empty()) throw UsageError("option --spacing is given twice");
            request.spacing = parseSpacing(name, cursor.valueOf(name, inlineValue));
        } else {
            rest.push_back(arg);
        }
    }
    args = std::move(rest);
    if (!request.given() && !request.intensity.empty())
        throw UsageError("--intensity is measured by --properties: name the properties (e.g. --properties "
                         "label,intensity_mean)");
    if (!request.given() && !request.spacing.empty())
        throw UsageError("--spacing applies to --properties: name the properties (e.g. --properties label,area)");
    return request;
}

IntensitySamples IntensityImage::view() const {
    IntensitySamples view;
    view.shape = shape;
    view.channels = channels;
    view.data = mapped ? mapped.get() : samples.data();
    view.bytes = bytes;
    view.kind = kind;
    return view;
}

IntensityImage readIntensity(const std::string& path, const Shape& labels) {
    IntensityImage intensity;
    const auto misfit = [&](const std::string& what) {
        return UsageError("--intensity '" + path + "' is " + what + ", the labels " + describeShape(labels) +
                          " (numpy " + numpyShape(labels) + "); it must be of their size");
    };
    if (isNpyFile(path)) {
        const NpyArray array = peekNpy(path);
        const std::size_t axes = std::size_t(labels.dimensions);
        if (array.sides.size() != axes && array.sides.size() != axes + 1)
            throw misfit("of numpy shape " + array.shapeText);
        const std::vector<std::uint64_t> spatial(array.sides.begin(), array.sides.begin() + std::ptrdiff_t(axes));
        if (shapeOfSides(spatial) != labels) throw misfit("of numpy shape " + array.shapeText);
        intensity.shape = labels;
        intensity.channelAxis = array.sides.size() == axes + 1;
        intensity.channels = intensity.channelAxis ? int(array.sides.back()) : 1;
        intensity.bytes = int(array.dtype->size);
        intensity.kind = array.dtype->kind == detail::NpyKind::Signed  ? SampleKind::Signed
                         : array.dtype->kind == detail::NpyKind::Float ? SampleKind::Float
                                                                       : SampleKind::Unsigned;
        if (mappable(array)) intensity.mapped = mapNpyData(array);
        else intensity.samples = readNpyData(array);
        return intensity;
    }
    Image image = readImage(path, ChannelMode::Natural);
    if (image.shape() != labels) throw misfit(describeShape(image.shape()));
    intensity.shape = labels;
    intensity.bytes = image.bytesPerSample();
    intensity.kind = SampleKind::Unsigned;
    if (image.channels == 1) {
        intensity.samples = std::move(image.pixels);
        return intensity;
    }
    // A color file reads as RGBA: its red, green and blue are measured.
    intensity.channels = 3;
    intensity.channelAxis = true;
    const std::size_t sample = std::size_t(intensity.bytes);
    const std::size_t elements = labels.count();
    intensity.samples.resize(elements * 3 * sample);
    for (std::size_t i = 0; i < elements; ++i)
        std::memcpy(&intensity.samples[i * 3 * sample], &image.pixels[i * 4 * sample], 3 * sample);
    return intensity;
}

void checkMeasurement(const MeasureRequest& request, int dimensions, const IntensityImage* intensity) {
    if (!request.spacing.empty() && request.spacing.size() != std::size_t(dimensions))
        throw UsageError("--spacing: " + std::to_string(request.spacing.size()) + " value" +
                         (request.spacing.size() == 1 ? "" : "s") + " for " +
                         (dimensions == 3 ? "a volume: give 3 (planes, rows, columns)"
                                          : "a 2-D image: give 2 (rows, columns)"));
    const int channels = intensity ? intensity->channels : 0;
    RegionTotals empty;
    try {
        empty.request = termsFor(request.properties, dimensions, channels,
                                 intensity ? intensity->kind : SampleKind::Unsigned,
                                 intensity ? 8 * intensity->bytes : 8);
        empty.request.intensityChannelAxis = intensity && intensity->channelAxis;
    } catch (const Error& error) {
        throw UsageError("--properties: " + userMessage(error.what()));
    }
    // The spacing scikit-image refuses for these properties (moments_hu
    // off 1, perimeter with an anisotropic one), said before any work.
    try {
        finalizeProperties(empty, measureOptions(request, 1, intensity).properties);
    } catch (const Error& error) {
        throw UsageError("--spacing: " + userMessage(error.what()));
    }
}

MeasureOptions measureOptions(const MeasureRequest& request, int threads, const IntensityImage* intensity) {
    MeasureOptions options;
    options.properties.properties = request.properties;
    options.properties.spacing = request.spacing;
    options.threads = threads;
    options.intensityChannelAxis = intensity && intensity->channelAxis;
    return options;
}

PropertyTable measureByEngine(Session& session, const Labeling& labeling, const IntensitySamples* intensity,
                              const MeasureOptions& options) {
    TermRequest request = termsFor(options.properties.properties, labeling.dimensions,
                                   intensity ? intensity->channels : 0, intensity ? intensity->kind : SampleKind::Unsigned,
                                   intensity ? intensity->bytes * 8 : 8);
    request.intensityChannelAxis = options.intensityChannelAxis;
    LabelSamples labels;
    labels.shape = labeling.shape();
    labels.data = labeling.labels.data();
    labels.bytes = 4;
    return finalizeProperties(session.measureTerms(request, intensity, labels, labeling.components, options.threads),
                              options.properties, options.threads);
}

namespace {

// The table's CSV text, handed to `put` a piece of about `piece` bytes at a
// time (the last one shorter).
void propertyCsvPieces(const PropertyTable& table, std::size_t piece, const std::function<void(std::string_view)>& put) {
    std::string csv;
    for (std::size_t c = 0; c < table.columns.size(); ++c)
        csv += (c == 0 ? "" : ",") + csvField(table.columns[c].name);
    csv += '\n';
    for (std::size_t row = 0; row < table.rows; ++row) {
        for (std::size_t c = 0; c < table.columns.size(); ++c) {
            const PropertyColumn& column = table.columns[c];
            if (c > 0) csv += ',';
            switch (column.type) {
                case PropertyColumn::Type::Int64: csv += std::to_string(column.ints[row]); break;
                case PropertyColumn::Type::UInt64: csv += std::to_string(column.uints[row]); break;
                case PropertyColumn::Type::Float64: csv += realText(column.reals[row]); break;
            }
        }
        csv += '\n';
        if (csv.size() >= piece) put(csv), csv.clear();
    }
    put(csv);
}

}  // namespace

std::string propertyCsv(const PropertyTable& table) {
    std::string csv;
    propertyCsvPieces(table, std::size_t(-1), [&](std::string_view text) { csv += text; });
    return csv;
}

void writePropertyCsv(const std::string& path, const PropertyTable& table, bool overwrite) {
    glccl::detail::OutputFile file("glccl::writePropertyCsv(): ", path, overwrite);
    propertyCsvPieces(table, std::size_t(1) << 20, [&](std::string_view text) { file.write(text); });
    file.close();
}

// ------------------------------------------------------ streamed labels

namespace {

// The most labels one add() brings that are not a whole line or plane (a
// tiled labeling writes its rows in pieces of 32 MiB).
constexpr std::uint64_t kAddBytes = std::uint64_t(32) << 20;
// The margin PiecePlace asks for, in lines (planes).
constexpr std::uint64_t kMargin = 2;

// The bytes a measurement's totals hold (their arrays' capacity).
std::uint64_t totalsBytes(const RegionTotals& t) {
    std::uint64_t bytes = 0;
    const auto add = [&](const auto& v) { bytes += std::uint64_t(v.capacity()) * sizeof(v[0]); };
    add(t.labels), add(t.imageExtents), add(t.counts), add(t.boxMin), add(t.boxMax), add(t.moments);
    add(t.perimeterClasses), add(t.croftonClasses), add(t.eulerTimes), add(t.intensitySum), add(t.intensitySquares);
    add(t.intensitySumFloat), add(t.intensitySquaresFloat), add(t.intensityMin), add(t.intensityMax);
    add(t.intensityMinBits), add(t.intensityMaxBits), add(t.intensityMinAt), add(t.intensityMaxAt);
    add(t.weightedMoments), add(t.weightedMomentsFloat);
    return bytes;
}

}  // namespace

StreamedMeasurement::StreamedMeasurement(const Shape& whole, int labelBytes, const IntensityImage* intensity,
                                         TermRequest request, int threads, std::uint64_t sumsLimit,
                                         std::uint64_t processLimit)
    : whole_(whole),
      labelBytes_(std::size_t(labelBytes)),
      intensity_(intensity),
      request_(std::move(request)),
      threads_(threads),
      sumsLimit_(sumsLimit),
      processLimit_(processLimit),
      pieceUnits_(sumsLimit != 0 ? 1 : 0),
      unitElements_(std::uint64_t(whole.width) * (whole.dimensions == 3 ? std::uint64_t(whole.height) : 1)),
      units_(std::uint64_t(whole.dimensions == 3 ? whole.depth : whole.height)) {}

std::uint64_t StreamedMeasurement::heldBytes(const Shape& whole, int labelBytes) {
    const std::uint64_t unit =
        std::uint64_t(whole.width) * (whole.dimensions == 3 ? std::uint64_t(whole.height) : 1) * std::uint64_t(labelBytes);
    // What one add() brings, the units before it that the margins take and
    // the unit in part before it; never more than the whole image.
    const std::uint64_t units = std::uint64_t(whole.dimensions == 3 ? whole.depth : whole.height);
    return std::min(units * unit, std::max(kAddBytes, unit) + (2 * kMargin + 1) * unit);
}

void StreamedMeasurement::add(const void* labels, std::uint64_t lines) {
    const std::uint64_t elements = lines * std::uint64_t(whole_.width);
    const auto* bytes = static_cast<const std::uint8_t*>(labels);
    buffer_.insert(buffer_.end(), bytes, bytes + elements * labelBytes_);
    received_ += elements;
    const std::uint64_t complete = received_ / unitElements_;
    // A piece as soon as the units after it that its margin takes are here:
    // the labels held are what one add() brings and the margins. With a
    // limit on the sums, pieces of at most pieceUnits_ units, so that no
    // piece's totals (which may hold a region an element) pass a quarter of
    // it before they are counted.
    while (complete >= measured_ + kMargin + 1) {
        const std::uint64_t end = complete - kMargin;
        measure(pieceUnits_ != 0 ? std::min(end, measured_ + pieceUnits_) : end);
    }
}

void StreamedMeasurement::measure(std::uint64_t ownEnd) {
    const std::uint64_t first = measured_ > kMargin ? measured_ - kMargin : 0;
    const std::uint64_t end = std::min(units_, ownEnd + kMargin);
    const std::uint64_t count = end - first;
    const bool volume = whole_.dimensions == 3;
    const Shape shape = volume ? Shape::volume(whole_.width, whole_.height, std::int64_t(count))
                               : Shape::image(whole_.width, std::int64_t(count));
    LabelSamples labels;
    labels.shape = shape;
    labels.data = buffer_.data() + (first - bufferFirst_) * unitElements_ * labelBytes_;
    labels.bytes = int(labelBytes_);
    PiecePlace place;
    const std::size_t axis = volume ? 2 : 1;
    place.origin[axis] = std::int64_t(first);
    place.ownEnd = {whole_.width, whole_.height, 1};
    place.ownBegin[axis] = std::int64_t(measured_ - first);
    place.ownEnd[axis] = std::int64_t(ownEnd - first);
    place.whole = whole_;
    IntensitySamples samples;
    if (intensity_) {
        samples = intensity_->view();
        samples.shape = shape;
        samples.data = static_cast<const std::uint8_t*>(samples.data) +
                       first * unitElements_ * std::uint64_t(samples.channels) * std::uint64_t(samples.bytes);
    }
    runs_.emplace_back(measureTerms(labels, intensity_ ? &samples : nullptr, request_, threads_, false, &place), 1);
    while (runs_.size() >= 2 && runs_[runs_.size() - 2].second == runs_.back().second) {
        mergeTotals(runs_[runs_.size() - 2].first, runs_.back().first);
        runs_[runs_.size() - 2].second *= 2;
        runs_.pop_back();
    }
    if (sumsLimit_ != 0) {
        std::uint64_t held = 0, regions = 0;
        for (const auto& run : runs_) held += totalsBytes(run.first), regions += run.first.regions;
        // The units of the next pieces: a region an element of them (and of
        // their margins), at the most bytes a region the totals have held.
        const std::uint64_t perRegion = std::max<std::uint64_t>(held / std::max<std::uint64_t>(regions, 1), 1);
        regionBytes_ = std::max(regionBytes_, perRegion);
        const std::uint64_t regionsAtMost = sumsLimit_ / 4 / regionBytes_;
        pieceUnits_ = std::max<std::uint64_t>(regionsAtMost / unitElements_, 2 * kMargin + 1) - 2 * kMargin;
        // The sums, and the whole process (the measuring's own tables
        // besides the labeling's), after each piece.
        const std::uint64_t process = processLimit_ != 0 ? anonymousResidentBytes() : 0;
        if (held > sumsLimit_ || process > processLimit_)
            throw Error("measuring the properties asked past the memory limit of " + exactSize(processLimit_) +
                        ": after " + std::to_string(ownEnd) + " of " + std::to_string(units_) +
                        (whole_.dimensions == 3 ? " planes" : " rows") + ", the sums of their " +
                        std::to_string(regions) + " regions hold " + exactSize(held) + " (of the " +
                        exactSize(sumsLimit_) + " kept for them) and the process " + exactSize(process) +
                        "; raise --memory-limit, or ask fewer properties");
    }
    measured_ = ownEnd;
    // The margin the next piece takes stays, with any unit in part.
    const std::uint64_t keep = measured_ > kMargin ? measured_ - kMargin : 0;
    buffer_.erase(buffer_.begin(), buffer_.begin() + std::ptrdiff_t((keep - bufferFirst_) * unitElements_ * labelBytes_));
    bufferFirst_ = keep;
}

RegionTotals StreamedMeasurement::finish() {
    if (received_ != unitElements_ * units_)
        throw Error("the measurement of streamed labels got " + std::to_string(received_) + " of " +
                    std::to_string(unitElements_ * units_) + " labels");
    if (measured_ < units_) measure(units_);
    buffer_ = {};
    RegionTotals totals = std::move(runs_.front().first);
    for (std::size_t i = 1; i < runs_.size(); ++i) mergeTotals(totals, runs_[i].first);
    runs_.clear();
    return totals;
}

// ---------------------------------------------------------- glccl measure

int runMeasure(const std::vector<std::string>& args) {
    if (hasHelpFlag(args)) {
        std::cout << kMeasureHelp;
        return 0;
    }
    const auto start = Clock::now();
    const MeasureCommand command = parseMeasureCommand(args);
    const std::string& intensityPath = command.request.intensity;
    std::vector<std::string> inputs = {command.labels};
    if (!intensityPath.empty()) inputs.push_back(intensityPath);
    // Looked at before anything is opened: a FIFO would block.
    for (const std::string& input : inputs) checkInputFile(input);
    if (!command.stats.empty()) checkOutputs({{"--stats", command.stats}}, inputs, command.force);

    ProgressLine line;
    const bool steps = command.progress;
    const bool shown = command.progress || !command.quiet;
    const auto step = [&](const std::string& text) {
        if (shown) line.update(text, steps);
    };

    // Inputs read whole (all but C-ordered little-endian .npy files, which are
    // mapped) are refused before either is read where they would take more
    // than the limit.
    const std::uint64_t limit = command.memoryLimit != 0 ? command.memoryLimit : defaultMemoryLimit();
    const std::uint64_t labelBytes = bytesReadWhole(command.labels);
    const std::uint64_t imageBytes = intensityPath.empty() ? 0 : bytesReadWhole(intensityPath);
    if (limit != 0 && labelBytes + imageBytes > limit)
        throw UsageError("'" + command.labels + "'" + (intensityPath.empty() ? " takes " : " and '" + intensityPath + "' take ") +
                         exactSize(labelBytes + imageBytes) + " read whole, more than the memory limit " +
                         exactSize(limit) + (command.memoryLimit != 0 ? " (--memory-limit)" : " (half the memory)") +
                         "; a C-ordered little-endian .npy is mapped instead, at any size (numpy: "
                         "numpy.save(path, numpy.ascontiguousarray(labels)))");

    // The measuring team starts while the inputs are read.
    startMeasuringTeam(command.threads);
    step("measure: reading " + command.labels);
    const LabelFile labels = readLabelFile(command.labels);
    std::optional<IntensityImage> intensity;
    if (!intensityPath.empty()) {
        step("measure: reading " + intensityPath);
        intensity = readIntensity(intensityPath, labels.shape);
    }
    checkMeasurement(command.request, labels.shape.dimensions, intensity ? &*intensity : nullptr);

    step("measure: measuring " + command.labels);
    const auto measureStart = Clock::now();
    const IntensitySamples samples = intensity ? intensity->view() : IntensitySamples();
    const PropertyTable table = [&] {
        try {
            return measureRegions(labels.view(), intensity ? &samples : nullptr,
                                  measureOptions(command.request, command.threads, intensity ? &*intensity : nullptr));
        } catch (const Error& error) {
            throw Error("'" + command.labels + "': " + inputMessage(command.labels, error.what()));
        }
    }();
    const double measureMilliseconds = millisecondsSince(measureStart);
    if (command.stats.empty()) {
        line.clear();
        std::cout << propertyCsv(table);
        return 0;
    }
    step("measure: writing " + command.stats);
    {
        OutputTransaction transaction;
        writePropertyCsv(command.stats, table, command.force);
        printOutputNotes("glccl", transaction.notes());
        pauseBeforeCommitForTests();
        transaction.commit();
    }
    line.clear();
    std::cout << command.labels << ": " << describeShape(labels.shape) << ", " << table.rows
              << (table.rows == 1 ? " region, " : " regions, ") << table.columns.size()
              << (table.columns.size() == 1 ? " column, " : " columns, ") << formatted("%.2f", measureMilliseconds)
              << " ms measuring, " << formatted("%.2f", millisecondsSince(start)) << " ms in all\n";
    std::cout << "wrote " << command.stats << '\n';
    return 0;
}

}  // namespace glccl::tools
