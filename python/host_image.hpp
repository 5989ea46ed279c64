#pragma once
// numpy arrays in host memory -> the images glccl labels, with samples as wide as the
// dtype's elements (docs/formats.md#sample-widths) and never reduced:
//
//   bool, uint8, int8                         8-bit samples
//   uint16, int16                             16-bit samples
//   uint32, int32, float32                    32-bit samples
//   uint64, int64, float64                    64-bit samples
//
// Every value must be an unsigned integer the sampleBits holds (the rules of the
// command line's .npy reader, host/src/npy.cpp): a negative, fractional,
// non-finite or too large value is a ValueError naming it and its place,
// never a rounding. The sampleBits follows the dtype, not the values: a uint16
// array of values below 256 is still a 16-bit image (its threshold range is
// 0..65535).
//
// What is copied when. An array whose memory already is an Image's pixels
// is labeled where it is, through an ImageView (imageViewOf): C-contiguous,
// aligned, of bool, uint8, uint16, uint32 or uint64 (the sample types), gray
// (H, W) or (H, W, 1), or (H, W, 4) color of 8- or 16-bit samples (the last
// two with channel_axis=-1). Every other array (signed or float dtypes, whose
// values are checked; Fortran order, strided views, RGB) is copied into
// storage of glccl's (copyToPixels), and so is one that shares memory with
// the labels' out=.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <optional>
#include <string>

#include "buffer_pool.hpp"
#include "glccl/types.hpp"

namespace glccl::python {

namespace py = pybind11;

// Where a numpy image's samples are and what they become. Holds the array,
// so its memory stays valid while the GIL is released.
struct HostArray {
    py::array array;  // native byte order (a swapped array is converted once)
    const char* data = nullptr;
    py::ssize_t sliceStride = 0, rowStride = 0, columnStride = 0, planeStride = 0;  // bytes
    bool volume = false;  // a (D, H, W) array
    int depth = 1, height = 0, width = 0;
    int planes = 1;      // 1 (gray), 3 or 4 (color, for the threshold criterion)
    char kind = 'u';     // numpy's dtype kind: 'b', 'u', 'i' or 'f'
    int itemSize = 1;    // bytes of one element
    int sampleBits = 8;       // bits of the Image's samples: 8, 16 or 32
    bool packed = false; // C-contiguous and aligned

    int channels() const { return planes == 1 ? 1 : 4; }  // of the Image it becomes
    Shape shape() const { return volume ? Shape::volume(width, height, depth) : Shape::image(width, height); }
    std::size_t imageBytes() const { return Image::byteCount(shape(), channels(), sampleBits); }
};

// Whether an array's elements are C-ordered and aligned: its memory is its
// values row by row, read and written as native integers.
bool isPacked(const py::array& array);

// Whether two arrays may share memory: numpy's may_share_memory, the ranges
// of bytes their elements span intersect. Labels written into an array that
// may share memory with the image are written after the image is copied.
bool mayShareMemory(const py::array& a, const py::array& b);

// Checks the array's shape and dtype against the criterion: 2-D (H, W), or,
// with channelAxis (the last axis, parseChannelAxis), (H, W, 1), and
// (H, W, 3|4) for threshold only. A 3-D array without channelAxis is a
// volume (D, H, W) of one channel (checkArrayDimensions), its slices copied
// or viewed as the 2-D images above. Needs the GIL. TypeError for an object
// that is no array or a dtype not listed above, ValueError for a wrong shape
// (0-D, 1-D, 4-D, a zero side).
HostArray describeHostArray(const py::handle& object, const Criterion& criterion, std::optional<int> channelAxis,
                            const std::string& where);

// The array's own memory as the image to label, without a copy, where it
// has an Image's layout (see the top; a bool array, whose bytes numpy does
// not promise to be 0 or 1, is taken as it is for the binary criterion of
// level 0, which only asks for nonzero, and otherwise only when every byte
// is 0 or 1, checked in one pass). std::nullopt where it must be copied.
// Needs no GIL; the view is valid while `source` lives.
std::optional<ImageView> imageViewOf(const HostArray& source, const Criterion& criterion);

// Copies the samples into `pixels` (resized to the image's bytes, its
// storage reused when that is unchanged, never zero-filled) and returns the
// image they are: 1 channel, or 4 for color (an RGB array gets an opaque
// alpha, equal everywhere, which never separates neighbours). Checks every
// value; needs no GIL. Cost: one pass over the array, a plain copy for packed
// rows whose dtype is the sample type.
ImageView copyToPixels(const HostArray& source, PixelStorage& pixels, const std::string& where);

// The storage of glccl.label()'s host copies once a call is done, for the
// next call whose copy has that many bytes: at most 2 buffers and 2 GiB. A
// call takes its own buffer, so calls from several threads never share one.
PixelPool& releasedPixels();

}  // namespace glccl::python
