#pragma once
// The NumPy .npy format pieces that every .npy reader and writer of glccl
// shares (host/src/npy.cpp, and the tiled path's memory-mapped input and
// streamed output in tiles/): the header, the image dtypes and their exact
// sample values. NPY (numpy.lib.format): magic, version, little-endian header
// length, then a Python dict literal padded with spaces and ended by '\n' so
// that the data starts on a 64-byte boundary.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/image_io.hpp"

namespace glccl::detail {

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr std::size_t kNpyMagicSize = 6;

// The preamble and header dict of a version 1.0 file holding `descr` (without
// quotes, e.g. "<u4") in C order of `shape` ("(H, W)"), padded so the data
// starts on a 64-byte boundary.
std::string npyHeaderBytes(const std::string& descr, const std::string& shape);

// The header fields of an .npy file and where its data starts.
struct NpyHeader {
    std::string descr, fortranOrder, shape;
    std::uint64_t dataOffset = 0;
};

// Reads the preamble and header (format 1, 2 or 3). `readAt(out, size,
// offset)` copies up to size bytes from offset and returns how many; `fail`
// makes the error for a reason ("is not a NumPy .npy file", ...).
NpyHeader readNpyHeader(const std::function<std::size_t(void*, std::size_t, std::uint64_t)>& readAt,
                        const std::function<Error(const std::string&)>& fail);

// "(A, B, ...)" -> {A, B, ...}; false when it is not a tuple of at most four
// integers as numpy writes it (and numpy reads: "(4)", "(4,,)" and "(04, 5)"
// are refused).
bool parseNpySides(const std::string& text, std::vector<std::uint64_t>& sides);

// Why an array of `sides` (its shape) is not a 2-D image under the
// convention `channelAxis` (glccl/image_io.hpp), "" when it is one:
// (height, width) without a channel axis, (height, width, 1|3|4) with the
// last axis named. `volumes`: the reader takes volumes (depth, height,
// width) too, asked before this, and its message names them. `shape` is the
// header's text, for the message.
std::string npyImageShapeProblem(const std::vector<std::uint64_t>& sides, const std::string& shape,
                                 NpyChannelAxis channelAxis, bool volumes);

// The dtypes an .npy image may hold and the sampleBits each becomes: every
// dtype numpy writes by default, in either byte order. Integers keep their
// width (bool and int8 8 bits, ..., int64 and uint64 64 bits); float32
// becomes 32-bit and float64 64-bit samples. Every value must be an unsigned
// integer the sampleBits holds exactly (signed values >= 0, float values
// whole, finite and in 0..2^bits-1); anything else is an error, never a
// rounding or a reduction.
enum class NpyKind { Unsigned, Bool, Signed, Float };
struct NpyDtype {
    const char* descr;  // as the header writes it, quotes included
    std::size_t size;
    NpyKind kind;
    int sampleBits;
    bool bigEndian = false;
};

// The image dtype of a header's descr; nullptr for any other.
const NpyDtype* findNpyImageDtype(const std::string& descr);

// The element's bits in its byte order, and a float element's value.
inline std::uint64_t npyElementBits(const std::uint8_t* p, const NpyDtype& dtype) {
    std::uint64_t bits = 0;
    for (std::size_t b = 0; b < dtype.size; ++b) {
        const std::size_t byte = dtype.bigEndian ? dtype.size - 1 - b : b;
        bits |= std::uint64_t(p[byte]) << (8 * b);
    }
    return bits;
}
inline double npyFloatOf(std::uint64_t bits, const NpyDtype& dtype) {
    if (dtype.size == 4) {
        float f;
        const auto word = std::uint32_t(bits);
        std::memcpy(&f, &word, 4);
        return f;
    }
    double real;
    std::memcpy(&real, &bits, 8);
    return real;
}

// The element at `p` as a sample: true and `value` when it is an unsigned
// integer of the dtype's sampleBits; false otherwise (npyElementText says
// what it holds). Inline and without text: the readers call it once an
// element.
inline bool npyElementValue(const std::uint8_t* p, const NpyDtype& dtype, std::uint64_t& value) {
    const std::uint64_t bits = npyElementBits(p, dtype);
    value = bits;
    if (dtype.kind == NpyKind::Signed) {
        // Negative where the dtype's sign bit is set.
        return (bits >> (8 * dtype.size - 1)) == 0;
    }
    if (dtype.kind == NpyKind::Float) {
        // The largest value below 2^bits is the largest float (or double)
        // under it; every float at least 2^24 (double at least 2^53) is whole.
        const double real = npyFloatOf(bits, dtype);
        const double limit = std::ldexp(1.0, dtype.sampleBits);  // 2^32 or 2^64, exact in a double
        const bool exact = real >= 0.0 && real < limit && std::floor(real) == real;
        value = exact ? std::uint64_t(real) : 0;
        return exact;
    }
    return true;
}

// Whether the dtype's elements are an Image's samples as they are: unsigned
// (or bool) little-endian integers of the sample's width, every value exact.
inline bool npyIsImageBytes(const NpyDtype& dtype) {
    return (dtype.kind == NpyKind::Unsigned || dtype.kind == NpyKind::Bool) && (dtype.size == 1 || !dtype.bigEndian) &&
           dtype.sampleBits == int(8 * dtype.size);
}

// The element at `p` as the error messages show it: an integer's digits,
// a float's shortest text that reads back as it ("2.5", "-1", "nan").
std::string npyElementText(const std::uint8_t* p, const NpyDtype& dtype);

// numpy's name of the dtype's type: "bool", "int8", ..., "float64".
std::string npyTypeName(const NpyDtype& dtype);

}  // namespace glccl::detail
