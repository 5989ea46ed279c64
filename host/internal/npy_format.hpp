#pragma once
// The NumPy .npy format pieces that every .npy reader and writer of glccl
// shares (host/src/npy.cpp, and the tiled path's memory-mapped input and
// streamed output in tiles/): the header, the image dtypes and their exact
// sample values. NPY (numpy.lib.format): magic, version, little-endian header
// length, then a Python dict literal padded with spaces and ended by '\n' so
// that the data starts on a 64-byte boundary.

#include <cstdint>
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

// The element at `p` as a sample: true and `value` when it is an unsigned
// integer of the dtype's sampleBits; false otherwise, with `shown` the value
// as read ("-3.000000", "2.500000", "nan"), for the error message.
bool npyElementValue(const std::uint8_t* p, const NpyDtype& dtype, std::uint64_t& value, std::string& shown);

// numpy's name of the dtype's type: "bool", "int8", ..., "float64".
std::string npyTypeName(const NpyDtype& dtype);

}  // namespace glccl::detail
