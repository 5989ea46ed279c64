#pragma once
// How the passes of label_filters.cpp walk label arrays of any strides: row
// by row in pieces (walkRows), in memory order where the order does not
// matter (inMemoryOrder), each piece as runs of equal labels (RunFinder).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "glccl/label_filters.hpp"

namespace glccl::detail {

// Thrown by a pass whose `stop` asked it to; the entry turns it into
// glccl::Cancelled in its own name.
struct Stopped {};

// A label array as the passes see it.
struct StridedArray {
    char* data = nullptr;
    std::vector<std::uint64_t> shape;
    std::vector<std::ptrdiff_t> strides;  // bytes, any sign

    std::uint64_t count() const {
        std::uint64_t elements = 1;
        for (const std::uint64_t side : shape) elements *= side;
        return elements;
    }
};

inline StridedArray stridedOf(const LabelArrayView& view) {
    return {static_cast<char*>(view.data), view.shape, view.strides};
}

// The arrays' axes reordered so that `arrays[0]`'s strides fall from the
// first axis to the last: the walk then follows its memory (a
// Fortran-ordered array from its first element to its last). For the passes
// whose result does not depend on the order of the walk. `axisOf[i]` is the
// original axis of the walk's axis i.
template <std::size_t Arrays>
std::vector<std::size_t> inMemoryOrder(std::array<StridedArray*, Arrays> arrays) {
    const StridedArray& order = *arrays[0];
    std::vector<std::size_t> axisOf(order.shape.size());
    for (std::size_t axis = 0; axis < axisOf.size(); ++axis) axisOf[axis] = axis;
    const auto magnitude = [](std::ptrdiff_t stride) { return stride < 0 ? -stride : stride; };
    std::stable_sort(axisOf.begin(), axisOf.end(), [&](std::size_t a, std::size_t b) {
        return magnitude(order.strides[a]) > magnitude(order.strides[b]);
    });
    for (StridedArray* array : arrays) {
        const StridedArray original = *array;
        for (std::size_t axis = 0; axis < axisOf.size(); ++axis) {
            array->shape[axis] = original.shape[axisOf[axis]];
            array->strides[axis] = original.strides[axisOf[axis]];
        }
    }
    return axisOf;
}

// Walks arrays of one shape together in raster (C) order, row by row (the
// last axis): visit(first, strides, length, index) for each piece of a row
// of at most kPieceElements elements, first[k] the piece's first element in
// array k, strides[k] the step along the row, index the piece's indices (the
// last axis's at its first element). With mergeAxes, axes that every
// array's strides allow are walked as one (a C-contiguous array is one row,
// and index means nothing). A 0-d array is one row of one element. Asks
// `stop` before each piece and throws Stopped when it says so.
template <std::size_t Arrays, typename Visit>
void walkRows(const std::array<const StridedArray*, Arrays>& arrays, bool mergeAxes, const StopRequested& stop,
              Visit&& visit) {
    struct Axis {
        std::uint64_t size;
        std::array<std::ptrdiff_t, Arrays> strides;
    };
    std::vector<Axis> axes;
    for (std::size_t axis = 0; axis < arrays[0]->shape.size(); ++axis) {
        Axis next{arrays[0]->shape[axis], {}};
        if (next.size == 0) return;
        bool merges = mergeAxes && !axes.empty();
        for (std::size_t k = 0; k < Arrays; ++k) {
            next.strides[k] = arrays[k]->strides[axis];
            merges = merges && axes.back().strides[k] == next.strides[k] * std::ptrdiff_t(next.size);
        }
        if (merges) {
            axes.back().size *= next.size;
            axes.back().strides = next.strides;
        } else {
            axes.push_back(next);
        }
    }
    if (axes.empty()) axes.push_back(Axis{1, {}});
    const Axis row = axes.back();
    std::vector<std::uint64_t> index(axes.size(), 0);
    std::array<char*, Arrays> rowStart;
    for (std::size_t k = 0; k < Arrays; ++k) rowStart[k] = arrays[k]->data;
    for (;;) {
        for (std::uint64_t piece = 0; piece < row.size; piece += kPieceElements) {
            if (stop && stop()) throw Stopped{};
            std::array<char*, Arrays> first;
            for (std::size_t k = 0; k < Arrays; ++k) first[k] = rowStart[k] + std::ptrdiff_t(piece) * row.strides[k];
            index.back() = piece;
            visit(first, row.strides, std::min(kPieceElements, row.size - piece), index);
        }
        // The next row: the outer axes counted like an odometer.
        std::size_t axis = axes.size() - 1;
        for (;;) {
            if (axis == 0) return;
            --axis;
            for (std::size_t k = 0; k < Arrays; ++k) rowStart[k] += axes[axis].strides[k];
            if (++index[axis] < axes[axis].size) break;
            for (std::size_t k = 0; k < Arrays; ++k)
                rowStart[k] -= std::ptrdiff_t(axes[axis].size) * axes[axis].strides[k];
            index[axis] = 0;
        }
    }
}

// Unaligned arrays are read and written as they are.
template <typename T>
T loadLabel(const char* at) {
    T label;
    std::memcpy(&label, at, sizeof label);
    return label;
}

template <typename T>
void storeLabel(char* at, T label) {
    std::memcpy(at, &label, sizeof label);
}

// The runs of equal labels in pieces of rows: run(label, start, length)
// for each, in order. Blobs are runs, each counted once instead of once per
// element. Where runs end is where a labeling is unpredictable, so the
// pass over the elements has no branch there: it writes each element's
// index into the list of run starts and moves the list's end by one where
// a run starts (starts_), and the runs are then visited from that list.
template <typename T>
class RunFinder {
public:
    RunFinder() : starts_(kPieceElements + 1) {}

    template <typename Run>
    void visit(const char* first, std::ptrdiff_t stride, std::uint64_t length, Run&& run) {
        const std::uint64_t runs = stride == std::ptrdiff_t(sizeof(T)) ? findStarts<true>(first, stride, length)
                                                                       : findStarts<false>(first, stride, length);
        for (std::uint64_t r = 0; r < runs; ++r) {
            const std::uint32_t start = starts_[r];
            run(loadLabel<T>(first + std::ptrdiff_t(start) * stride), std::uint64_t(start),
                std::uint64_t(starts_[r + 1] - start));
        }
    }

private:
    // Fills starts_ with the runs' first indices, then `length`; returns the
    // number of runs.
    template <bool Packed>
    std::uint64_t findStarts(const char* first, std::ptrdiff_t stride, std::uint64_t length) {
        const std::ptrdiff_t step = Packed ? std::ptrdiff_t(sizeof(T)) : stride;
        std::uint32_t* starts = starts_.data();
        std::uint64_t runs = 1;
        starts[0] = 0;
        T previous = loadLabel<T>(first);
        for (std::uint64_t i = 1; i < length; ++i) {
            const T label = loadLabel<T>(first + std::ptrdiff_t(i) * step);
            starts[runs] = std::uint32_t(i);
            runs += label != previous;
            previous = label;
        }
        starts[runs] = std::uint32_t(length);
        return runs;
    }

    std::vector<std::uint32_t> starts_;
};

}  // namespace glccl::detail
