#pragma once
// What the Python entries return: label images as numpy arrays that own
// their std::vector (no copy), the component table as a dict of arrays, and
// a glccl.Labeler's few label arrays, reused once the caller lets go of them.
// The labels are downloaded straight into those arrays' memory, or into a
// caller's out= array when it is C-contiguous.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "buffer_pool.hpp"
#include "glccl/types.hpp"

namespace glccl::python {

namespace py = pybind11;

// The storage of glccl.label()'s label arrays once numpy frees them (the
// array and every view of it gone): at most 2 buffers and 2 GiB, taken
// again by the next call of that pixel count.
LabelPool& releasedLabels();

// A uint32 (height, width) C-ordered array over `labels`, which it takes
// over: when numpy frees the array, the vector goes to releasedLabels()
// (or is freed, beyond its bounds). No copy.
py::array adoptLabels(LabelStorage&& labels, int height, int width);
// The same of any shape: (height, width), or (depth, height, width) for a volume.
py::array adoptLabels(LabelStorage&& labels, const Shape& shape);

// The table as the command line's CSV columns: left, top, width, height
// (uint32), area (uint64), centroid_x, centroid_y (float64), and for a
// volume front, depth (uint32) and centroid_z (float64); entry i describes
// label i + 1.
py::dict tableDict(const std::vector<Component>& table, bool volume = false);

// (labels, n) or (labels, n, table).
py::tuple labelResult(py::object labels, const std::vector<Component>& table, bool returnTable, bool volume = false);

// `out` checked as a destination for (height, width) labels: a writeable
// numpy uint32 array of that shape (any strides). TypeError / ValueError.
py::array checkOutArray(const py::handle& out, int height, int width, const std::string& where);

// Where labels can be downloaded into `out` (checked by checkOutArray)
// directly: its data when it is C-contiguous and aligned, else nullptr
// (then copyLabels). Needs no GIL.
std::uint32_t* packedLabels(const py::array& out);

// Where glccl.label() writes labels of `shape` straight into `out`: its data
// when out is a writeable, C-contiguous, aligned numpy array of `shape` of
// native 4-byte integers (uint32, or int32 where every label fits: at most
// 2^31 - 1 elements); nullptr for anything else (None included), which the
// Python wrapper checks and fills from the labels. Needs the GIL.
std::uint32_t* labelsInto(const py::handle& out, const Shape& shape);

// Copies row-major labels into `out` (any strides). Needs no GIL.
void copyLabels(const LabelStorage& labels, const py::array& out);

// The label arrays a glccl.Labeler has handed out, at most kKept of them.
// A video loop `labels, n = labeler.label(frame)` holds the previous frame's
// array while the next call runs, so two arrays alternate and, once both
// exist, no call allocates. An array is only ever refilled when nothing but
// this list refers to it (its reference count is 1: no caller, no view), or
// when the caller passes it back as `out`. All calls need the GIL.
class LabelArrays {
public:
    static constexpr std::size_t kKept = 2;

    struct Slot {
        py::array array;                          // (height, width) uint32 over *storage
        LabelStorage* storage = nullptr;  // owned by the array's capsule
    };

    // A kept array of this shape that nobody else refers to, or nullptr.
    Slot* reusable(int height, int width);
    // The kept array that is `array` itself, or nullptr.
    Slot* find(const py::handle& array);
    // Wraps `labels` (moved in) as a new kept array, dropping the oldest
    // beyond kKept; returns it.
    Slot& keep(LabelStorage&& labels, int height, int width);

private:
    std::deque<Slot> slots_;
};

}  // namespace glccl::python
