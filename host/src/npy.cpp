// NumPy .npy files: the label and image writers, readLabelsNpy, and the
// image decoder behind readImage. NPY (numpy.lib.format): magic, version,
// little-endian header length, then a Python dict literal padded with
// spaces and ended by '\n' so that the data starts on a 64-byte boundary.

#include <cstring>
#include <functional>
#include <vector>

#include "byte_source.hpp"
#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "image_decoders.hpp"
#include "npy_format.hpp"
#include "output_file.hpp"
#include "small_helpers.hpp"

namespace glccl {

namespace {


std::string sizeText(std::uint64_t width, std::uint64_t height) {
    return std::to_string(width) + "x" + std::to_string(height);
}

void writeNpyHeader(detail::OutputFile& file, const std::string& descr, const std::string& shape) {
    file.write(detail::npyHeaderBytes(descr, shape));
}

// detail::readNpyHeader on a byte source: each read at its offset, so the
// source is left at the data.
detail::NpyHeader readNpyHeaderFrom(detail::ByteSource& source, const std::function<Error(const std::string&)>& fail) {
    return detail::readNpyHeader(
        [&source](void* out, std::size_t size, std::uint64_t offset) {
            return source.seek(offset) ? source.read(out, size) : std::size_t(0);
        },
        fail);
}

}  // namespace

void writeLabelsNpy(const std::string& path, const Labeling& labeling, bool overwrite) {
    const std::string where = "glccl::writeLabelsNpy(): ";
    detail::checkLabeling(where, labeling);
    detail::OutputFile file(where, path, overwrite);
    const std::string slices = labeling.dimensions == 3 ? std::to_string(labeling.depth) + ", " : "";
    writeNpyHeader(file, "<u4",
                   "(" + slices + std::to_string(labeling.height) + ", " + std::to_string(labeling.width) + ")");
    file.write(labeling.labels.data(), labeling.labels.size() * sizeof(std::uint32_t));  // little-endian host
    file.close();
}

void writeImageNpy(const std::string& path, const Image& image, bool overwrite) {
    const std::string where = "glccl::writeImageNpy(): ";
    if (!image.isConsistent())
        throw Error(where + "invalid image: " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                    "x" + std::to_string(image.channels) + " of " + std::to_string(image.sampleBits) + " bits with " +
                    std::to_string(image.pixels.size()) + " bytes");
    detail::OutputFile file(where, path, overwrite);
    std::string shape = "(" + (image.dimensions == 3 ? std::to_string(image.depth) + ", " : std::string()) +
                        std::to_string(image.height) + ", " + std::to_string(image.width);
    shape += image.channels == 1 ? ")" : ", " + std::to_string(image.channels) + ")";
    writeNpyHeader(file,
                   image.sampleBits == 8    ? "|u1"
                   : image.sampleBits == 16 ? "<u2"
                   : image.sampleBits == 32 ? "<u4"
                                            : "<u8",
                   shape);
    file.write(image.pixels.data(), image.pixels.size());
    file.close();
}

Labeling readLabelsNpy(const std::string& path) {
    const std::string where = "glccl::readLabelsNpy(): ";
    const auto fail = [&](const std::string& why) { return Error(where + inQuotes(path) + " " + why); };
    detail::ByteSource source(where, path);
    const detail::NpyHeader npy = readNpyHeaderFrom(source, fail);
    const std::string& descr = npy.descr;
    if (descr != "'<u4'") throw fail("holds " + (descr.empty() ? std::string("no dtype") : descr) + ", not '<u4' labels");
    if (npy.fortranOrder != "False") throw fail("is in Fortran order; C order is read");
    std::vector<std::uint64_t> sides;
    const bool parsed = detail::parseNpySides(npy.shape, sides) && (sides.size() == 2 || sides.size() == 3);
    const bool volume = parsed && sides.size() == 3;
    const std::uint64_t depth = volume ? sides[0] : 1;
    const std::uint64_t height = parsed ? sides[sides.size() - 2] : 0, width = parsed ? sides.back() : 0;
    if (!parsed || !(volume ? detail::volumeProblem(width, height, depth) : detail::dimensionProblem(width, height))
                        .empty())
        throw fail("has shape " + npy.shape + "; labels have shape (height, width) or (depth, height, width), each 1.." +
                   std::to_string(kMaxImageDimension));
    const std::string size = sizeText(width, height) + (volume ? "x" + std::to_string(depth) : "");
    const std::uint64_t bytes = width * height * depth * sizeof(std::uint32_t);
    if (source.size() < npy.dataOffset + bytes) throw fail("ends before its " + size + " labels");
    if (source.size() > npy.dataOffset + bytes) throw fail("has bytes after its " + size + " labels");

    Labeling labeling;
    labeling.width = int(width);
    labeling.height = int(height);
    labeling.depth = int(depth);
    labeling.dimensions = volume ? 3 : 2;
    labeling.labels.resize(std::size_t(width * height * depth));
    if (source.read(labeling.labels.data(), std::size_t(bytes)) != bytes)
        throw fail("ends before its " + size + " labels");
    return labeling;
}

namespace detail {

namespace {

// The header's fortran_order, True or False as numpy writes it; `fail`
// makes the error of any other value.
template <class Fail>
bool fortranOrderOf(const NpyHeader& npy, const Fail& fail) {
    if (npy.fortranOrder == "True") return true;
    if (npy.fortranOrder == "False") return false;
    if (npy.fortranOrder.empty()) throw fail("the header has no fortran_order");
    throw fail("the header's fortran_order is " + npy.fortranOrder + ", not True or False");
}

// A 3-D array without a named channel axis: a volume (depth, height, width),
// as scipy.ndimage and scikit-image read it. C order holds lines of `width`
// elements, Fortran order columns of `depth` elements (z fastest); either is
// read one such run at a time into the volume's x, y, z layout.
Image decodeNpyVolume(const ReadContext& context, const NpyHeader& npy, const NpyDtype& dtype,
                      const std::vector<std::uint64_t>& sides) {
    ByteSource& source = context.source;
    const auto fail = [&](const std::string& why) { return context.fail(".npy: " + why); };
    const std::uint64_t depth = sides[0], height = sides[1], width = sides[2];
    const std::string problem = volumeProblem(width, height, depth);
    if (!problem.empty()) throw fail("the volume of shape " + npy.shape + " " + problem);
    const bool fortran = fortranOrderOf(npy, fail);
    const std::uint64_t elements = width * height * depth;
    const std::uint64_t expected = npy.dataOffset + elements * dtype.size;
    const std::string size = std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(depth);
    if (source.size() < expected)
        throw fail("truncated: its header promises a " + size + " volume (" + std::to_string(expected) +
                   " bytes) but the file has " + std::to_string(source.size()) + " bytes");
    if (source.size() > expected) throw fail("the file has bytes after its " + size + " elements");
    checkClaimedVolumeSize(context, ".npy", width, height, depth, dtype.sampleBits);
    Image image(Shape::volume(std::int64_t(width), std::int64_t(height), std::int64_t(depth)), 1, dtype.sampleBits);
    if (!fortran && npyIsImageBytes(dtype)) {
        // The file's elements are the volume's samples, byte for byte.
        if (source.read(image.pixels.data(), image.pixels.size()) != image.pixels.size())
            throw fail("cannot read its elements");
        return image;
    }

    const std::uint64_t run = fortran ? depth : width;
    std::vector<std::uint8_t> chunk(std::size_t(run * dtype.size));
    for (std::uint64_t start = 0; start < elements; start += run) {
        if (source.read(chunk.data(), chunk.size()) != chunk.size()) throw fail("cannot read its elements");
        for (std::uint64_t k = 0; k < run; ++k) {
            const std::uint64_t i = start + k;  // element index in file order
            const std::uint8_t* p = chunk.data() + k * dtype.size;
            std::uint64_t value = 0;
            const bool exact = npyElementValue(p, dtype, value);
            if (!fortran && exact) {
                image.setSample(std::size_t(i), 0, value);  // C order is the volume's own
                continue;
            }
            // (z, y, x) of element i: C order is z-major, Fortran order x-major with z fastest.
            const std::uint64_t z = fortran ? i % depth : i / (width * height);
            const std::uint64_t y = fortran ? (i / depth) % height : (i / width) % height;
            const std::uint64_t x = fortran ? i / (depth * height) : i % width;
            if (!exact)
                throw fail("the value " + npyElementText(p, dtype) + " at [" + std::to_string(z) + ", " +
                           std::to_string(y) + ", " + std::to_string(x) + "] is not an unsigned integer in 0.." +
                           std::to_string(image.maxValue()) +
                           " (signed, fractional and non-finite values are never rounded)");
            image.setSample(std::size_t((z * height + y) * width + x), 0, value);
        }
    }
    return image;
}

}  // namespace

Image decodeNpy(const ReadContext& context) {
    ByteSource& source = context.source;
    const auto fail = [&](const std::string& why) { return context.fail(".npy: " + why); };
    const NpyHeader npy = readNpyHeaderFrom(source, [&](const std::string& why) { return fail("the file " + why); });
    const NpyDtype* dtype = findNpyImageDtype(npy.descr);
    if (dtype == nullptr)
        throw fail("dtype " + (npy.descr.empty() ? std::string("missing") : npy.descr) +
                   " is not read; images are bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32 or "
                   "float64 (either byte order)");
    std::vector<std::uint64_t> sides;
    if (!parseNpySides(npy.shape, sides)) sides.clear();
    if (sides.size() == 3 && context.channelAxis == NpyChannelAxis::None)
        return decodeNpyVolume(context, npy, *dtype, sides);
    const std::string shapeProblem = npyImageShapeProblem(sides, npy.shape, context.channelAxis, true);
    if (!shapeProblem.empty()) throw fail(shapeProblem);
    const std::uint64_t height = sides[0], width = sides[1], planes = sides.size() == 3 ? sides[2] : 1;
    const std::string problem = dimensionProblem(width, height);
    if (!problem.empty()) throw fail("the image " + problem);
    if (planes > 1 && context.mode == ChannelMode::Gray)
        throw fail("the array holds " + std::to_string(planes) +
                   " channels; binary and segments take a (height, width) array");
    const bool fortran = fortranOrderOf(npy, fail);

    // The whole file must be the header and exactly the promised elements,
    // checked before anything is allocated for them.
    const std::uint64_t elements = width * height * planes;
    const std::uint64_t expected = npy.dataOffset + elements * dtype->size;
    if (source.size() < expected)
        throw fail("truncated: its header promises " + sizeText(width, height) + " (" + std::to_string(expected) +
                   " bytes) but the file has " + std::to_string(source.size()) + " bytes");
    if (source.size() > expected) throw fail("the file has bytes after its " + sizeText(width, height) + " elements");
    const int channels = planes == 1 ? 1 : 4;
    checkClaimedSize(context, ".npy", width, height, channels, dtype->sampleBits);
    Image image(int(width), int(height), channels, dtype->sampleBits);

    if (!fortran && planes == 1 && npyIsImageBytes(*dtype)) {
        // The file's elements are the image's samples, byte for byte.
        if (source.read(image.pixels.data(), image.pixels.size()) != image.pixels.size())
            throw fail("cannot read its elements");
        return image;
    }
    // Read in chunks of whole rows (C order) or columns (Fortran order) of
    // one plane, so that no second copy of the array is held.
    const std::uint64_t run = fortran ? height : width * planes;  // elements contiguous in the file
    std::vector<std::uint8_t> chunk(std::size_t(run * dtype->size));
    for (std::uint64_t start = 0; start < elements; start += run) {
        if (source.read(chunk.data(), chunk.size()) != chunk.size()) throw fail("cannot read its elements");
        for (std::uint64_t k = 0; k < run; ++k) {
            const std::uint64_t i = start + k;  // element index in file order
            const std::uint8_t* p = chunk.data() + k * dtype->size;
            std::uint64_t value = 0;
            const bool exact = npyElementValue(p, *dtype, value);
            if (!fortran && planes == 1 && exact) {
                image.setSample(std::size_t(i), 0, value);  // C order of one plane is the image's own
                continue;
            }
            // (y, x, c) of element i: C order is y-major, Fortran order c-major with y fastest.
            const std::uint64_t y = fortran ? i % height : i / (width * planes);
            const std::uint64_t x = fortran ? (i / height) % width : (i / planes) % width;
            const std::uint64_t c = fortran ? i / (height * width) : i % planes;
            if (!exact)
                throw fail("the value " + npyElementText(p, *dtype) + " at [" + std::to_string(y) + ", " +
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
