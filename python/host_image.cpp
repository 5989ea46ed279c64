#include "host_image.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "arguments.hpp"
#include "glccl/image_io.hpp"
#include "process_wide.hpp"

// glccl::Image holds little-endian samples, written here as native integers.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the numpy -> Image copy assumes a little-endian host");

namespace glccl::python {

namespace {

// ---- one element -> one sample -------------------------------------------------

// 2^bits of a sample type To, exactly, as a double.
template <class To>
constexpr double kBeyond = 2.0 * double(std::numeric_limits<To>::max() / 2 + 1);

// Whether an element is an unsigned integer that a sample of type To holds
// (0..2^sampleBits - 1). Written branch-free so that the loops below vectorize;
// the first invalid element is looked up again for the message.
template <class From, class To>
bool isSample(From value) {
    constexpr auto kLargest = std::numeric_limits<To>::max();
    if constexpr (std::is_same_v<From, bool>) {
        return true;
    } else if constexpr (std::is_floating_point_v<From>) {
        // In double, below 2^bits (exact in a double, where the largest
        // sample, 2^64 - 1, is not); NaN fails the comparisons. Every double
        // from 2^52 on is whole; below, whole when adding and removing 2^52
        // (which rounds away any fraction) leaves it unchanged: floor() would
        // not vectorize without SSE4.1.
        const double v = double(value);
        const double whole = (v + 0x1p52) - 0x1p52;
        return (v >= 0.0) & (v < kBeyond<To>) & ((whole == v) | (v >= 0x1p52));
    } else if constexpr (std::is_signed_v<From>) {
        if constexpr (sizeof(From) <= sizeof(To)) return value >= 0;
        else return (value >= 0) & (value <= From(kLargest));
    } else if constexpr (sizeof(From) <= sizeof(To)) {
        return true;
    } else {
        return value <= From(kLargest);
    }
}

// The sample of a valid element (anything, never undefined, for an invalid one).
template <class From, class To>
To toSample(From value) {
    if constexpr (std::is_floating_point_v<From>) {
        const double v = double(value);
        return To(v >= 0.0 && v < kBeyond<To> ? v : 0.0);
    } else {
        return To(value);
    }
}

template <class From>
From load(const char* p) {
    if constexpr (std::is_same_v<From, bool>) {
        return *reinterpret_cast<const std::uint8_t*>(p) != 0;  // any nonzero byte is True
    } else {
        From value;
        std::memcpy(&value, p, sizeof value);  // numpy does not promise aligned elements
        return value;
    }
}

// Converts `count` elements, `stride` bytes apart, into samples `step` apart.
// Returns false when one of them is invalid.
template <class From, class To>
bool convertRun(const char* source, py::ssize_t stride, int count, To* target, int step) {
    constexpr bool kCopy = std::is_same_v<From, To>;  // an unsigned dtype of the sample's size
    if (kCopy && step == 1 && stride == py::ssize_t(sizeof(From))) {
        std::memcpy(target, source, std::size_t(count) * sizeof(To));
        return true;
    }
    unsigned invalid = 0;
    if (step == 1 && stride == py::ssize_t(sizeof(From))) {
        // Packed elements: a separate loop with a constant stride vectorizes.
        for (int i = 0; i < count; ++i) {
            const From value = load<From>(source + std::size_t(i) * sizeof(From));
            invalid |= unsigned(!isSample<From, To>(value));
            target[i] = toSample<From, To>(value);
        }
    } else {
        for (int i = 0; i < count; ++i) {
            const From value = load<From>(source + i * stride);
            invalid |= unsigned(!isSample<From, To>(value));
            target[std::size_t(i) * step] = toSample<From, To>(value);
        }
    }
    return invalid == 0;
}

// ---- the message for an invalid element ---------------------------------------------

template <class From>
std::string valueText(From value) {
    char text[64];
    if constexpr (std::is_floating_point_v<From>) {
        // The shortest text that reads back as the value, as Python's repr
        // and the command line's .npy reader write it ("2.5", "nan").
        const auto written = std::to_chars(text, text + sizeof text, value);
        return std::string(text, written.ptr);
    } else if constexpr (std::is_signed_v<From>) std::snprintf(text, sizeof text, "%lld", (long long)value);
    else std::snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    return text;
}

// Scans rows [yBegin, yEnd) of one plane of slice z again for the first
// invalid element and throws its ValueError.
template <class From, class To>
[[noreturn]] void throwInvalid(const HostArray& source, int z, int yBegin, int yEnd, int plane,
                               const std::string& where) {
    const std::uint64_t largest = std::numeric_limits<To>::max();
    for (int y = yBegin; y < yEnd; ++y) {
        const char* row = source.data + z * source.sliceStride + y * source.rowStride + plane * source.planeStride;
        for (int x = 0; x < source.width; ++x) {
            const From value = load<From>(row + x * source.columnStride);
            if (isSample<From, To>(value)) continue;
            const std::string place = "[" + (source.volume ? std::to_string(z) + ", " : std::string()) +
                                      std::to_string(y) + ", " + std::to_string(x) +
                                      (source.planes > 1 ? ", " + std::to_string(plane) : std::string()) + "]";
            throw py::value_error(where + ": the value " + valueText(value) + " at " + place +
                                  " is not an unsigned integer in 0.." + std::to_string(largest) + " (" +
                                  dtypeName(source.kind, source.itemSize) + " images hold " +
                                  std::to_string(source.sampleBits) + "-bit samples; negative, fractional, "
                                  "non-finite and larger values are never rounded or reduced)");
        }
    }
    throw py::value_error(where + ": an invalid value in rows " + std::to_string(yBegin) + ".." +
                          std::to_string(yEnd - 1));  // not reached: convertRun saw one there
}

// Row by row: the source's order for C-ordered and most strided arrays.
// `samples` is slice z's first sample.
template <class From, class To>
void copyByRows(const HostArray& source, int z, To* samples, int channels, const std::string& where) {
    for (int y = 0; y < source.height; ++y) {
        const char* row = source.data + z * source.sliceStride + y * source.rowStride;
        To* target = samples + std::size_t(y) * std::size_t(source.width) * std::size_t(channels);
        for (int plane = 0; plane < source.planes; ++plane) {
            if (!convertRun<From, To>(row + plane * source.planeStride, source.columnStride, source.width,
                                      target + plane, channels))
                throwInvalid<From, To>(source, z, y, y + 1, plane, where);
        }
        // RGB: an opaque alpha, equal everywhere, so it never separates neighbours.
        if (source.planes == 3)
            for (int x = 0; x < source.width; ++x) target[std::size_t(x) * 4 + 3] = std::numeric_limits<To>::max();
    }
}

// Gray images whose columns are contiguous (Fortran order, transposed views):
// tiles of kTileRows x kTileColumns, each written row by row, so that the
// cache lines a tile reads (kTileColumns columns) and writes (kTileRows rows)
// stay in cache together. Row by row over the whole width, every read would
// be a cache miss; columns over a band of rows thrash the cache when the
// width is a power of two (the band's rows map to the same cache sets).
// Faster on Fortran-order input than bands of rows or
// numpy.ascontiguousarray.
template <class From, class To>
void copyByTiles(const HostArray& source, int z, To* samples, const std::string& where) {
    constexpr int kTileRows = 32, kTileColumns = 8;
    for (int y0 = 0; y0 < source.height; y0 += kTileRows) {
        const int rows = std::min(kTileRows, source.height - y0);
        bool valid = true;
        for (int x0 = 0; x0 < source.width; x0 += kTileColumns) {
            const int columns = std::min(kTileColumns, source.width - x0);
            for (int y = y0; y < y0 + rows; ++y) {
                const char* tileRow =
                    source.data + z * source.sliceStride + y * source.rowStride + x0 * source.columnStride;
                valid &= convertRun<From, To>(tileRow, source.columnStride, columns,
                                              samples + std::size_t(y) * std::size_t(source.width) + x0, 1);
            }
        }
        if (!valid) throwInvalid<From, To>(source, z, y0, y0 + rows, 0, where);
    }
}

// Slice by slice (a 2-D image is one slice): each slice is an image of
// its own in the array, whatever the order of the slices' strides.
template <class From, class To>
void copyAs(const HostArray& source, std::uint8_t* pixels, const std::string& where) {
    const auto magnitude = [](py::ssize_t stride) { return stride < 0 ? -stride : stride; };
    const int channels = source.channels();
    const std::size_t sliceSamples = std::size_t(source.width) * std::size_t(source.height) * std::size_t(channels);
    for (int z = 0; z < source.depth; ++z) {
        To* samples = reinterpret_cast<To*>(pixels) + std::size_t(z) * sliceSamples;
        if (source.planes == 1 && source.height > 1 && magnitude(source.rowStride) < magnitude(source.columnStride))
            copyByTiles<From, To>(source, z, samples, where);
        else
            copyByRows<From, To>(source, z, samples, channels, where);
    }
}

template <class From>
void copyFrom(const HostArray& source, std::uint8_t* pixels, const std::string& where) {
    switch (source.sampleBits) {
        case 8: return copyAs<From, std::uint8_t>(source, pixels, where);
        case 16: return copyAs<From, std::uint16_t>(source, pixels, where);
        case 32: return copyAs<From, std::uint32_t>(source, pixels, where);
        default: return copyAs<From, std::uint64_t>(source, pixels, where);
    }
}

void copySamples(const HostArray& source, std::uint8_t* pixels, const std::string& where) {
    switch (source.kind) {
        case 'b': return copyFrom<bool>(source, pixels, where);
        case 'u':
            switch (source.itemSize) {
                case 1: return copyFrom<std::uint8_t>(source, pixels, where);
                case 2: return copyFrom<std::uint16_t>(source, pixels, where);
                case 4: return copyFrom<std::uint32_t>(source, pixels, where);
                default: return copyFrom<std::uint64_t>(source, pixels, where);
            }
        case 'i':
            switch (source.itemSize) {
                case 1: return copyFrom<std::int8_t>(source, pixels, where);
                case 2: return copyFrom<std::int16_t>(source, pixels, where);
                case 4: return copyFrom<std::int32_t>(source, pixels, where);
                default: return copyFrom<std::int64_t>(source, pixels, where);
            }
        default:
            if (source.itemSize == 4) return copyFrom<float>(source, pixels, where);
            return copyFrom<double>(source, pixels, where);
    }
}

// The sampleBits of a dtype's samples, 0 for a dtype that is not an image:
// as many bits as its elements have (bool: 8), the rule of the command
// line's .npy reader (docs/formats.md, "Sample widths").
int sampleBitsOf(char kind, int itemSize) {
    const bool width = itemSize == 1 || itemSize == 2 || itemSize == 4 || itemSize == 8;
    const bool image = (kind == 'b' && itemSize == 1) || ((kind == 'u' || kind == 'i') && width) ||
                       (kind == 'f' && (itemSize == 4 || itemSize == 8));
    return image ? 8 * itemSize : 0;
}

}  // namespace

bool isPacked(const py::array& array) {
    const int packedFlags = py::array::c_style | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
    return (array.flags() & packedFlags) == packedFlags;
}

namespace {

// [first, end) of the bytes an array's elements span; empty for no elements.
std::pair<std::uintptr_t, std::uintptr_t> byteRange(const py::array& array) {
    auto first = reinterpret_cast<std::uintptr_t>(array.data());
    std::uintptr_t end = first;
    for (py::ssize_t axis = 0; axis < array.ndim(); ++axis) {
        if (array.shape(axis) == 0) return {first, first};
        const py::ssize_t step = (array.shape(axis) - 1) * array.strides(axis);
        if (step < 0) first -= std::uintptr_t(-step);
        else end += std::uintptr_t(step);
    }
    return {first, end + std::uintptr_t(array.itemsize())};
}

}  // namespace

bool mayShareMemory(const py::array& a, const py::array& b) {
    const auto [aFirst, aEnd] = byteRange(a);
    const auto [bFirst, bEnd] = byteRange(b);
    return aFirst < aEnd && bFirst < bEnd && aFirst < bEnd && bFirst < aEnd;
}

HostArray describeHostArray(const py::handle& object, const Criterion& criterion, std::optional<int> channelAxis,
                            const std::string& where) {
    HostArray source;
    source.array = py::array::ensure(object);
    if (!source.array) throw py::type_error(where + ": image must be a numpy array (or convertible to one)");
    py::array& array = source.array;

    const char kind = array.dtype().kind();
    const int itemSize = int(array.itemsize());
    const int sampleBits = sampleBitsOf(kind, itemSize);
    if (sampleBits == 0)
        throw py::type_error(where + ": unsupported dtype " + std::string(py::str(array.dtype())) +
                             "; images are bool, uint8, int8, uint16, int16, uint32, int32, float32, uint64, "
                             "int64 or float64 arrays of unsigned integer values");

    const bool threshold = criterion.kind == Criterion::Kind::Threshold;
    checkArrayDimensions(std::size_t(array.ndim()), channelAxis, where);
    // A 3-D array without a channel axis is a volume (D, H, W).
    const bool volume = array.ndim() == 3 && !channelAxis;
    if (volume) {
        for (int axis = 0; axis < 3; ++axis)
            if (array.shape(axis) == 0) throw py::value_error(where + ": volume is empty (its shape has a zero)");
    } else if (array.ndim() == 3) {
        const auto planes = array.shape(2);
        if (planes != 1 && planes != 3 && planes != 4)
            throw py::value_error(where + ": an image with channels must be (H, W, 1), (H, W, 3) or (H, W, 4), not "
                                  "(..., " + std::to_string(planes) + ")");
        if (planes > 1 && !threshold)
            throw py::value_error(where + ": a color (H, W, " + std::to_string(planes) +
                                  ") image is only for criterion=(\"threshold\", T); binary and segments "
                                  "take a 2-D (H, W) image");
    }
    if (!volume && (array.shape(0) == 0 || array.shape(1) == 0))
        throw py::value_error(where + ": image is empty (its shape has a zero)");
    // No side limit of a texture here: the router labels an image past one
    // call of its backend in tiles. A side must still be an int.
    for (int axis = 0; axis < int(array.ndim()); ++axis)
        if (array.shape(axis) > std::numeric_limits<int>::max())
            throw py::value_error(where + ": array sides are limited to " +
                                  std::to_string(std::numeric_limits<int>::max()) + "; axis " + std::to_string(axis) +
                                  " has " + std::to_string(array.shape(axis)));

    // A byte-swapped array ('>u2') is converted once to native order, so the
    // copy reads every element as a native integer.
    if (!array.dtype().attr("isnative").cast<bool>())
        array = array.attr("astype")(array.dtype().attr("newbyteorder")("="));

    source.data = static_cast<const char*>(array.data());
    // The axes after a volume's slice axis are an image's.
    const int first = volume ? 1 : 0;
    source.volume = volume;
    source.depth = volume ? int(array.shape(0)) : 1;
    source.sliceStride = volume ? array.strides(0) : 0;
    source.rowStride = array.strides(first);
    source.columnStride = array.strides(first + 1);
    source.planeStride = array.ndim() == 3 && !volume ? array.strides(2) : 0;
    source.height = int(array.shape(first));
    source.width = int(array.shape(first + 1));
    source.planes = array.ndim() == 3 && !volume ? int(array.shape(2)) : 1;
    source.kind = kind;
    source.itemSize = itemSize;
    source.sampleBits = sampleBits;
    source.packed = isPacked(array);
    return source;
}

std::optional<ImageView> imageViewOf(const HostArray& source, const Criterion& criterion) {
    if (!source.packed) return std::nullopt;
    const bool sampleType = source.kind == 'b' || (source.kind == 'u' && source.itemSize * 8 == source.sampleBits);
    if (!sampleType || source.planes == 3 || (source.planes == 4 && source.sampleBits >= 32)) return std::nullopt;
    if (source.kind == 'b' && !(criterion.kind == Criterion::Kind::Binary && criterion.level == 0)) {
        // The copy makes every True a 1; the view passes the bytes as they are.
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(source.data);
        unsigned above = 0;
        for (std::size_t i = 0, n = source.imageBytes(); i < n; ++i) above |= unsigned(bytes[i] > 1);
        if (above) return std::nullopt;
    }
    return ImageView(source.shape(), source.channels(), source.sampleBits, source.data);
}

PixelPool& releasedPixels() { return processWide<PixelPool>(); }

ImageView copyToPixels(const HostArray& source, PixelStorage& pixels, const std::string& where) {
    // Every byte is written below: a new size gets fresh storage, not a copy of the old.
    if (pixels.size() != source.imageBytes()) pixels = PixelStorage(source.imageBytes());
    copySamples(source, pixels.data(), where);
    return ImageView(source.shape(), source.channels(), source.sampleBits, pixels.data());
}

}  // namespace glccl::python
