#include "label_arrays.hpp"

#include <climits>
#include <cstring>
#include <utility>

#include "host_image.hpp"
#include "process_wide.hpp"

namespace glccl::python {

namespace {

// The array over a heap vector; its capsule runs `release` on the vector
// when numpy frees the array.
py::array wrap(LabelStorage* labels, int height, int width, void (*release)(void*)) {
    py::capsule owner(labels, release);
    const auto rowBytes = py::ssize_t(width) * py::ssize_t(sizeof(std::uint32_t));
    return py::array_t<std::uint32_t>({py::ssize_t(height), py::ssize_t(width)},
                                      {rowBytes, py::ssize_t(sizeof(std::uint32_t))}, labels->data(), owner);
}

void deleteLabels(void* labels) { delete static_cast<LabelStorage*>(labels); }

void recycleLabels(void* p) {
    auto* labels = static_cast<LabelStorage*>(p);
    releasedLabels().giveBack(std::move(*labels));
    delete labels;
}

template <typename T>
py::array_t<T> column(const std::vector<Component>& table, T (*get)(const Component&)) {
    py::array_t<T> out(py::ssize_t(table.size()));
    auto view = out.template mutable_unchecked<1>();
    for (py::ssize_t i = 0; i < py::ssize_t(table.size()); ++i) view(i) = get(table[std::size_t(i)]);
    return out;
}

}  // namespace

LabelPool& releasedLabels() { return processWide<LabelPool>(); }

py::array adoptLabels(LabelStorage&& labels, int height, int width) {
    return wrap(new LabelStorage(std::move(labels)), height, width, recycleLabels);
}

py::array adoptLabels(LabelStorage&& labels, const Shape& shape) {
    if (shape.dimensions != 3) return adoptLabels(std::move(labels), int(shape.height), int(shape.width));
    auto* storage = new LabelStorage(std::move(labels));
    py::capsule owner(storage, recycleLabels);
    const auto element = py::ssize_t(sizeof(std::uint32_t));
    return py::array_t<std::uint32_t>({py::ssize_t(shape.depth), py::ssize_t(shape.height), py::ssize_t(shape.width)},
                                      {py::ssize_t(shape.height * shape.width) * element,
                                       py::ssize_t(shape.width) * element, element},
                                      storage->data(), owner);
}

py::dict tableDict(const std::vector<Component>& t, bool volume) {
    py::dict table;
    table["left"] = column<std::uint32_t>(t, [](const Component& c) { return c.left; });
    table["top"] = column<std::uint32_t>(t, [](const Component& c) { return c.top; });
    table["width"] = column<std::uint32_t>(t, [](const Component& c) { return c.width; });
    table["height"] = column<std::uint32_t>(t, [](const Component& c) { return c.height; });
    table["area"] = column<std::uint64_t>(t, [](const Component& c) { return c.area; });
    table["centroid_x"] = column<double>(t, [](const Component& c) { return c.centroidX; });
    table["centroid_y"] = column<double>(t, [](const Component& c) { return c.centroidY; });
    if (volume) {
        table["front"] = column<std::uint32_t>(t, [](const Component& c) { return c.front; });
        table["depth"] = column<std::uint32_t>(t, [](const Component& c) { return c.depth; });
        table["centroid_z"] = column<double>(t, [](const Component& c) { return c.centroidZ; });
    }
    return table;
}

py::tuple labelResult(py::object labels, const std::vector<Component>& table, bool returnTable, bool volume) {
    if (!returnTable) return py::make_tuple(std::move(labels), table.size());
    return py::make_tuple(std::move(labels), table.size(), tableDict(table, volume));
}

py::array checkOutArray(const py::handle& out, int height, int width, const std::string& where) {
    if (!py::isinstance<py::array>(out))
        throw py::type_error(where + ": out must be a numpy uint32 array (or None), not " +
                             std::string(py::str(py::type::of(out).attr("__name__"))));
    auto array = py::reinterpret_borrow<py::array>(out);
    if (!array.dtype().is(py::dtype::of<std::uint32_t>()))
        throw py::type_error(where + ": out must have dtype uint32, not " + std::string(py::str(array.dtype())));
    if (array.ndim() != 2 || array.shape(0) != height || array.shape(1) != width)
        throw py::value_error(where + ": out must have the image's shape (" + std::to_string(height) + ", " +
                              std::to_string(width) + "), not " + std::string(py::str(out.attr("shape"))));
    if (!array.writeable()) throw py::value_error(where + ": out is read-only");
    return array;
}

std::uint32_t* packedLabels(const py::array& out) {
    if (!isPacked(out)) return nullptr;
    return static_cast<std::uint32_t*>(const_cast<void*>(out.data()));
}

std::uint32_t* labelsInto(const py::handle& out, const Shape& shape) {
    if (out.is_none() || !py::isinstance<py::array>(out)) return nullptr;
    const auto array = py::reinterpret_borrow<py::array>(out);
    const py::dtype dtype = array.dtype();
    const bool unsignedLabels = dtype.is(py::dtype::of<std::uint32_t>());
    const bool signedLabels = dtype.is(py::dtype::of<std::int32_t>());
    if (!(unsignedLabels || (signedLabels && shape.count() <= std::uint64_t(INT32_MAX))) || !array.writeable() ||
        !isPacked(array) || array.ndim() != shape.dimensions)
        return nullptr;
    const std::int64_t sides[3] = {shape.depth, shape.height, shape.width};
    for (int axis = 0; axis < shape.dimensions; ++axis)
        if (array.shape(axis) != sides[3 - shape.dimensions + axis]) return nullptr;
    return static_cast<std::uint32_t*>(const_cast<void*>(array.data()));
}

void copyLabels(const LabelStorage& labels, const py::array& out) {
    const py::ssize_t height = out.shape(0), width = out.shape(1);
    const py::ssize_t rowStride = out.strides(0), columnStride = out.strides(1);
    auto* base = static_cast<char*>(const_cast<void*>(out.data()));
    for (py::ssize_t y = 0; y < height; ++y) {
        const std::uint32_t* source = labels.data() + y * width;
        char* row = base + y * rowStride;
        if (columnStride == py::ssize_t(sizeof(std::uint32_t))) {
            std::memcpy(row, source, std::size_t(width) * sizeof(std::uint32_t));
        } else {
            for (py::ssize_t x = 0; x < width; ++x)
                std::memcpy(row + x * columnStride, source + x, sizeof(std::uint32_t));
        }
    }
}

LabelArrays::Slot* LabelArrays::reusable(int height, int width) {
    for (Slot& slot : slots_) {
        if (slot.array.ref_count() == 1 && slot.array.shape(0) == height && slot.array.shape(1) == width)
            return &slot;
    }
    return nullptr;
}

LabelArrays::Slot* LabelArrays::find(const py::handle& array) {
    for (Slot& slot : slots_)
        if (slot.array.ptr() == array.ptr()) return &slot;
    return nullptr;
}

LabelArrays::Slot& LabelArrays::keep(LabelStorage&& labels, int height, int width) {
    auto* storage = new LabelStorage(std::move(labels));
    Slot slot{wrap(storage, height, width, deleteLabels), storage};
    if (slots_.size() >= kKept) slots_.pop_front();
    slots_.push_back(std::move(slot));
    return slots_.back();
}

}  // namespace glccl::python
