// NumPy .npy files: the label and image writers, readLabelsNpy, and the
// image decoder behind readImage. NPY (numpy.lib.format): magic, version,
// little-endian header length, then a Python dict literal padded with
// spaces and ended by '\n' so that the data starts on a 64-byte boundary.

#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include "byte_source.hpp"
#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "image_decoders.hpp"
#include "output_file.hpp"

namespace glccl {

namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr std::size_t kNpyMagicSize = 6;

std::string inQuotes(const std::string& path) { return "'" + path + "'"; }

std::string sizeText(std::uint64_t width, std::uint64_t height) {
    return std::to_string(width) + "x" + std::to_string(height);
}

void writeNpyHeader(detail::OutputFile& file, const std::string& descr, const std::string& shape) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    constexpr std::size_t kPreamble = kNpyMagicSize + 4;
    const std::size_t unpadded = kPreamble + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header.push_back('\n');
    const std::uint16_t headerLength = std::uint16_t(header.size());
    const char preamble[kPreamble] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, char(headerLength & 0xFF),
                                      char(headerLength >> 8)};
    file.write(preamble, kPreamble);
    file.write(header);
}

// The value after 'key': in the header dict, up to the next ',' outside
// parentheses (or the closing brace); "" when the key is missing.
std::string npyHeaderValue(const std::string& header, const std::string& key) {
    const std::size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) return {};
    std::size_t start = header.find(':', at);
    if (start == std::string::npos) return {};
    ++start;
    int depth = 0;
    std::size_t end = start;
    for (; end < header.size(); ++end) {
        const char c = header[end];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if ((c == ',' && depth == 0) || c == '}') break;
    }
    std::string value = header.substr(start, end - start);
    const auto first = value.find_first_not_of(' ');
    const auto last = value.find_last_not_of(' ');
    return first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
}

// "(A, B, ...)" -> {A, B, ...}; false when it is not a tuple of at most
// four integers.
bool parseNpySides(const std::string& text, std::vector<std::uint64_t>& sides) {
    if (text.size() < 2 || text.front() != '(' || text.back() != ')') return false;
    sides.clear();
    std::size_t at = 1;
    while (at < text.size() - 1) {
        while (at < text.size() - 1 && (text[at] == ' ' || text[at] == ',')) ++at;
        if (at >= text.size() - 1) break;
        std::uint64_t side = 0;
        const auto result = std::from_chars(text.data() + at, text.data() + text.size() - 1, side);
        if (result.ec != std::errc() || sides.size() == 4) return false;
        sides.push_back(side);
        at = std::size_t(result.ptr - text.data());
    }
    return true;
}

// The header fields of an .npy file, the source positioned at its data.
struct NpyHeader {
    std::string descr, fortranOrder, shape;
    std::uint64_t dataOffset = 0;
};

// Reads the preamble and header of a NumPy .npy file (format 1, 2 or 3);
// `fail` makes the error for a reason.
template <class Fail>
NpyHeader readNpyHeader(detail::ByteSource& source, const Fail& fail) {
    NpyHeader npy;
    unsigned char preamble[kNpyMagicSize + 2];
    if (!source.seek(0) || source.read(preamble, sizeof preamble) != sizeof preamble ||
        std::memcmp(preamble, kNpyMagic, kNpyMagicSize) != 0)
        throw fail("is not a NumPy .npy file");
    const unsigned version = preamble[kNpyMagicSize];
    if (version < 1 || version > 3)
        throw fail("has NPY format version " + std::to_string(version) + "; 1, 2 and 3 are read");
    unsigned char length[4] = {0, 0, 0, 0};
    const std::size_t lengthBytes = version == 1 ? 2 : 4;
    if (source.read(length, lengthBytes) != lengthBytes) throw fail("ends inside its header");
    const std::uint32_t headerLength = std::uint32_t(length[0]) | std::uint32_t(length[1]) << 8 |
                                       std::uint32_t(length[2]) << 16 | std::uint32_t(length[3]) << 24;
    if (headerLength > (1u << 16)) throw fail("has a header of " + std::to_string(headerLength) + " bytes");
    std::string header(headerLength, '\0');
    if (source.read(header.data(), headerLength) != headerLength) throw fail("ends inside its header");
    npy.descr = npyHeaderValue(header, "descr");
    npy.fortranOrder = npyHeaderValue(header, "fortran_order");
    npy.shape = npyHeaderValue(header, "shape");
    npy.dataOffset = sizeof preamble + lengthBytes + headerLength;
    return npy;
}


// The dtypes an .npy image may hold and the depth each becomes. Every value
// must be an unsigned integer the depth holds exactly (int32 values >= 0,
// float32 values whole and in 0..2^32-1); anything else is an error, never
// a rounding or a reduction.
enum class NpyKind { Unsigned, Bool, Signed, Float };
struct NpyDtype {
    const char* descr;
    std::size_t size;
    NpyKind kind;
    int depth;
};
constexpr NpyDtype kNpyImageDtypes[] = {{"'|u1'", 1, NpyKind::Unsigned, 8}, {"'<u1'", 1, NpyKind::Unsigned, 8},
                                        {"'|b1'", 1, NpyKind::Bool, 8},     {"'<u2'", 2, NpyKind::Unsigned, 16},
                                        {"'<i4'", 4, NpyKind::Signed, 32},  {"'<u4'", 4, NpyKind::Unsigned, 32},
                                        {"'<f4'", 4, NpyKind::Float, 32}};

}  // namespace

void writeLabelsNpy(const std::string& path, const Labeling& labeling, bool overwrite) {
    const std::string where = "glccl::writeLabelsNpy(): ";
    detail::checkLabeling(where, labeling);
    detail::OutputFile file(where, path, overwrite);
    writeNpyHeader(file, "<u4", "(" + std::to_string(labeling.height) + ", " + std::to_string(labeling.width) + ")");
    file.write(labeling.labels.data(), labeling.labels.size() * sizeof(std::uint32_t));  // little-endian host
    file.close();
}

void writeImageNpy(const std::string& path, const Image& image, bool overwrite) {
    const std::string where = "glccl::writeImageNpy(): ";
    if (!image.isConsistent())
        throw Error(where + "invalid image: " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                    "x" + std::to_string(image.channels) + " of " + std::to_string(image.depth) + " bits with " +
                    std::to_string(image.pixels.size()) + " bytes");
    detail::OutputFile file(where, path, overwrite);
    std::string shape = "(" + std::to_string(image.height) + ", " + std::to_string(image.width);
    shape += image.channels == 1 ? ")" : ", " + std::to_string(image.channels) + ")";
    writeNpyHeader(file, image.depth == 8 ? "|u1" : image.depth == 16 ? "<u2" : "<u4", shape);
    file.write(image.pixels.data(), image.pixels.size());
    file.close();
}

Labeling readLabelsNpy(const std::string& path) {
    const std::string where = "glccl::readLabelsNpy(): ";
    const auto fail = [&](const std::string& why) { return Error(where + inQuotes(path) + " " + why); };
    detail::ByteSource source(where, path);
    const NpyHeader npy = readNpyHeader(source, fail);
    const std::string& descr = npy.descr;
    if (descr != "'<u4'") throw fail("holds " + (descr.empty() ? std::string("no dtype") : descr) + ", not '<u4' labels");
    if (npy.fortranOrder != "False") throw fail("is in Fortran order; C order is read");
    std::vector<std::uint64_t> sides;
    if (!parseNpySides(npy.shape, sides) || sides.size() != 2 || sides[0] < 1 || sides[1] < 1 ||
        sides[0] > std::uint64_t(kMaxImageDimension) || sides[1] > std::uint64_t(kMaxImageDimension))
        throw fail("has shape " + npy.shape + "; labels have shape (height, width), each 1.." +
                   std::to_string(kMaxImageDimension));
    const std::uint64_t height = sides[0], width = sides[1];
    const std::uint64_t bytes = width * height * sizeof(std::uint32_t);
    if (source.size() < npy.dataOffset + bytes) throw fail("ends before its " + sizeText(width, height) + " labels");
    if (source.size() > npy.dataOffset + bytes) throw fail("has bytes after its " + sizeText(width, height) + " labels");

    Labeling labeling;
    labeling.width = int(width);
    labeling.height = int(height);
    labeling.labels.resize(std::size_t(width * height));
    if (source.read(labeling.labels.data(), std::size_t(bytes)) != bytes)
        throw fail("ends before its " + sizeText(width, height) + " labels");
    return labeling;
}

namespace detail {

Image decodeNpy(const ReadContext& context) {
    ByteSource& source = context.source;
    const auto fail = [&](const std::string& why) { return context.fail(".npy: " + why); };
    const NpyHeader npy = readNpyHeader(source, [&](const std::string& why) { return fail("the file " + why); });
    const NpyDtype* dtype = nullptr;
    for (const NpyDtype& d : kNpyImageDtypes)
        if (npy.descr == d.descr) dtype = &d;
    if (dtype == nullptr)
        throw fail("dtype " + (npy.descr.empty() ? std::string("missing") : npy.descr) +
                   " is not read; images are bool, uint8, uint16, int32, uint32 or float32 (little-endian)");
    std::vector<std::uint64_t> sides;
    if (!parseNpySides(npy.shape, sides) || sides.size() < 2 || sides.size() > 3 ||
        (sides.size() == 3 && sides[2] != 1 && sides[2] != 3 && sides[2] != 4))
        throw fail("shape " + npy.shape + " is not read; images are (height, width) or (height, width, 1|3|4)");
    const std::uint64_t height = sides[0], width = sides[1], planes = sides.size() == 3 ? sides[2] : 1;
    const std::string problem = dimensionProblem(width, height);
    if (!problem.empty()) throw fail("the image " + problem);
    if (planes > 1 && context.mode == ChannelMode::Gray)
        throw fail("the array holds " + std::to_string(planes) +
                   " channels; binary and segments take a (height, width) array");
    if (npy.fortranOrder != "False" && npy.fortranOrder != "True") throw fail("the header has no fortran_order");
    const bool fortran = npy.fortranOrder == "True";

    // The whole file must be the header and exactly the promised elements,
    // checked before anything is allocated for them.
    const std::uint64_t elements = width * height * planes;
    const std::uint64_t expected = npy.dataOffset + elements * dtype->size;
    if (source.size() < expected)
        throw fail("truncated: its header promises " + sizeText(width, height) + " (" + std::to_string(expected) +
                   " bytes) but the file has " + std::to_string(source.size()) + " bytes");
    if (source.size() > expected) throw fail("the file has bytes after its " + sizeText(width, height) + " elements");
    const int channels = planes == 1 ? 1 : 4;
    checkClaimedSize(context, ".npy", width, height, channels, dtype->depth);
    Image image(int(width), int(height), channels, dtype->depth);

    // Read in chunks of whole rows (C order) or columns (Fortran order) of
    // one plane, so that no second copy of the array is held.
    const std::uint64_t run = fortran ? height : width * planes;  // elements contiguous in the file
    std::vector<std::uint8_t> chunk(std::size_t(run * dtype->size));
    for (std::uint64_t start = 0; start < elements; start += run) {
        if (source.read(chunk.data(), chunk.size()) != chunk.size()) throw fail("cannot read its elements");
        for (std::uint64_t k = 0; k < run; ++k) {
            const std::uint64_t i = start + k;  // element index in file order
            const std::uint8_t* p = chunk.data() + k * dtype->size;
            std::uint32_t bits = 0;
            for (std::size_t b = 0; b < dtype->size; ++b) bits |= std::uint32_t(p[b]) << (8 * b);
            std::uint32_t value = bits;
            bool exact = true;
            double shown = bits;
            if (dtype->kind == NpyKind::Signed) {
                shown = double(std::int32_t(bits));
                exact = std::int32_t(bits) >= 0;
            } else if (dtype->kind == NpyKind::Float) {
                float f;
                std::memcpy(&f, &bits, 4);
                shown = f;
                exact = f >= 0.0f && f <= 4294967040.0f && std::floor(f) == f;  // the largest float below 2^32
                value = exact ? std::uint32_t(f) : 0;
            }
            // (y, x, c) of element i: C order is y-major, Fortran order c-major with y fastest.
            const std::uint64_t y = fortran ? i % height : i / (width * planes);
            const std::uint64_t x = fortran ? (i / height) % width : (i / planes) % width;
            const std::uint64_t c = fortran ? i / (height * width) : i % planes;
            if (!exact)
                throw fail("the value " + std::to_string(shown) + " at [" + std::to_string(y) + ", " +
                           std::to_string(x) + (planes > 1 ? ", " + std::to_string(c) : "") + "] is not an " +
                           "unsigned integer in 0.." + std::to_string(image.maxValue()) +
                           " (signed, fractional and non-finite values are never rounded)");
            image.setSample(std::size_t(y * width + x), int(c), value);
        }
    }
    if (planes == 3)  // an opaque alpha, equal everywhere: it never separates pixels
        for (std::size_t i = 0; i < std::size_t(width * height); ++i) image.setSample(i, 3, image.maxValue());
    return image;
}

}  // namespace detail

}  // namespace glccl
