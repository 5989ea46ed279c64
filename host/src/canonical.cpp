#include "glccl/canonical.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "glccl/error.hpp"
#include "id_map.hpp"

namespace glccl {

namespace {

std::string describe(const Shape& shape) {
    std::string text = std::to_string(shape.width) + "x" + std::to_string(shape.height);
    if (shape.dimensions == 3) text += "x" + std::to_string(shape.depth);
    return text;
}

std::size_t checkedElementCount(const char* where, const Shape& shape, std::size_t labelCount) {
    if (shape.width <= 0 || shape.height <= 0 || shape.depth <= 0) {
        throw Error(std::string(where) + "the labeling is empty (" + describe(shape) + ")");
    }
    const std::size_t elementCount = std::size_t(shape.count());
    if (labelCount != elementCount) {
        throw Error(std::string(where) + "a " + describe(shape) + " labeling needs " + std::to_string(elementCount) +
                    " labels but has " + std::to_string(labelCount));
    }
    return elementCount;
}

// Renumbering through a direct table, for ids no larger than the pixel count
// (pixel addresses, address + 1, already canonical labels): one array read per
// pixel and a table no larger than the label image.
std::uint32_t relabelDense(std::vector<std::uint32_t>& labels, std::uint32_t maxId) {
    std::vector<std::uint32_t> newLabel(std::size_t(maxId) + 1, 0);
    std::uint32_t count = 0;
    for (std::uint32_t& id : labels) {
        if (id == 0) continue;
        std::uint32_t& mapped = newLabel[id];
        if (mapped == 0) mapped = ++count;
        id = mapped;
    }
    return count;
}

std::uint32_t relabelHashed(std::vector<std::uint32_t>& labels) {
    detail::IdMap newLabel;
    std::uint32_t count = 0;
    // Components come in runs along a row; remembering the last id skips most lookups.
    std::uint32_t lastId = 0, lastLabel = 0;
    for (std::uint32_t& id : labels) {
        if (id == 0) continue;
        if (id != lastId) {
            const auto [mapped, inserted] = newLabel.findOrInsert(id, count + 1);
            if (inserted) ++count;
            lastId = id;
            lastLabel = mapped;
        }
        id = lastLabel;
    }
    return count;
}

}  // namespace

std::uint32_t canonicalRelabel(int width, int height, std::vector<std::uint32_t>& labels) {
    return canonicalRelabel(Shape::image(width, height), labels);
}

std::uint32_t canonicalRelabel(const Shape& shape, std::vector<std::uint32_t>& labels) {
    checkedElementCount("glccl::canonicalRelabel(): ", shape, labels.size());
    const std::uint32_t maxId = *std::max_element(labels.begin(), labels.end());
    if (std::size_t(maxId) <= labels.size()) return relabelDense(labels, maxId);
    return relabelHashed(labels);
}

std::vector<Component> computeComponents(int width, int height, const std::vector<std::uint32_t>& labels,
                                         std::uint32_t count) {
    return computeComponents(Shape::image(width, height), labels, count);
}

std::vector<Component> computeComponents(const Shape& shape, const std::vector<std::uint32_t>& labels,
                                         std::uint32_t count) {
    checkedElementCount("glccl::computeComponents(): ", shape, labels.size());
    const auto width = std::size_t(shape.width);

    // Exact integer sums: the centroid is one rounding of sum / area, so every
    // backend that counts the same elements gets the same double.
    struct Accumulator {
        std::uint32_t left = std::numeric_limits<std::uint32_t>::max();
        std::uint32_t top = std::numeric_limits<std::uint32_t>::max();
        std::uint32_t front = std::numeric_limits<std::uint32_t>::max();
        std::uint32_t right = 0, bottom = 0, back = 0;
        std::uint64_t area = 0, sumX = 0, sumY = 0, sumZ = 0;
    };
    std::vector<Accumulator> accumulators(count);

    // Runs of one label along a line are accumulated at once: components of
    // large images are mostly long runs.
    for (std::int64_t z = 0; z < shape.depth; ++z) {
        for (std::int64_t y = 0; y < shape.height; ++y) {
            const std::uint32_t* line = labels.data() + (std::size_t(z) * std::size_t(shape.height) + std::size_t(y)) * width;
            std::size_t x = 0;
            while (x < width) {
                const std::uint32_t label = line[x];
                const std::size_t start = x;
                while (x < width && line[x] == label) ++x;
                if (label == 0) continue;
                if (label > count) {
                    std::string where = "(" + std::to_string(start) + ", " + std::to_string(y);
                    if (shape.dimensions == 3) where += ", " + std::to_string(z);
                    throw Error(std::string("glccl::computeComponents(): ") + (shape.dimensions == 3 ? "voxel " : "pixel ") + where + ") has label " +
                                std::to_string(label) + " but the labeling has " + std::to_string(count) +
                                " components");
                }
                const auto first = std::uint64_t(start), last = std::uint64_t(x - 1), length = last - first + 1;
                Accumulator& a = accumulators[label - 1];
                a.left = std::min(a.left, std::uint32_t(first));
                a.right = std::max(a.right, std::uint32_t(last));
                a.top = std::min(a.top, std::uint32_t(y));
                a.bottom = std::max(a.bottom, std::uint32_t(y));
                a.front = std::min(a.front, std::uint32_t(z));
                a.back = std::max(a.back, std::uint32_t(z));
                a.area += length;
                a.sumX += (first + last) * length / 2;  // even: when length is odd, first + last is even
                a.sumY += std::uint64_t(y) * length;
                a.sumZ += std::uint64_t(z) * length;
            }
        }
    }

    // A label of 1..count that no element carries keeps an all-zero row; a
    // canonical labeling has none.
    std::vector<Component> components(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        const Accumulator& a = accumulators[i];
        if (a.area == 0) continue;
        Component& c = components[i];
        c.left = a.left;
        c.top = a.top;
        c.width = a.right - a.left + 1;
        c.height = a.bottom - a.top + 1;
        c.area = a.area;
        c.centroidX = double(a.sumX) / double(a.area);
        c.centroidY = double(a.sumY) / double(a.area);
        c.front = a.front;
        c.depth = a.back - a.front + 1;
        c.centroidZ = double(a.sumZ) / double(a.area);
    }
    return components;
}

Labeling canonicalLabeling(int width, int height, std::vector<std::uint32_t> labels, std::uint32_t count) {
    return canonicalLabeling(Shape::image(width, height), std::move(labels), count);
}

Labeling canonicalLabeling(const Shape& shape, std::vector<std::uint32_t> labels, std::uint32_t count) {
    Labeling labeling;
    labeling.width = int(shape.width);
    labeling.height = int(shape.height);
    labeling.depth = int(shape.depth);
    labeling.dimensions = shape.dimensions;
    labeling.components = computeComponents(shape, labels, count);
    labeling.labels = std::move(labels);
    return labeling;
}

Labeling makeCanonical(int width, int height, std::vector<std::uint32_t> labels) {
    return makeCanonical(Shape::image(width, height), std::move(labels));
}

Labeling makeCanonical(const Shape& shape, std::vector<std::uint32_t> labels) {
    const std::uint32_t count = canonicalRelabel(shape, labels);
    return canonicalLabeling(shape, std::move(labels), count);
}

}  // namespace glccl
