#include "glccl/compare.hpp"

#include <algorithm>
#include <string>

#include "glccl/error.hpp"
#include "id_map.hpp"

namespace glccl {

namespace {

std::string sizeOf(const Labeling& labeling) {
    return std::to_string(labeling.width) + "x" + std::to_string(labeling.height) +
           (labeling.dimensions == 3 ? "x" + std::to_string(labeling.depth) : "");
}

void checkShape(const char* where, const char* name, const Labeling& labeling) {
    if (labeling.labels.size() != labeling.shape().count()) {
        throw Error(std::string(where) + "the " + name + " labeling is " + sizeOf(labeling) + " but holds " +
                    std::to_string(labeling.labels.size()) + " labels");
    }
}

// One direction of the bijection test: every id of `from` must always meet
// the same id of `to`. Called both ways, this proves the two labelings group
// the pixels identically. Background was checked to coincide beforehand.
class PartnerCheck {
public:
    bool consistent(std::uint32_t from, std::uint32_t to) {
        if (from == lastFrom_) return to == lastTo_;
        const std::uint32_t partner = partners_.findOrInsert(from, to).first;
        lastFrom_ = from;
        lastTo_ = partner;
        return partner == to;
    }

private:
    detail::IdMap partners_;
    std::uint32_t lastFrom_ = 0, lastTo_ = 0;
};

}  // namespace

std::string Comparison::describe() const {
    if (!sameSize) return "the labelings differ in size";
    if (identical()) return "identical";

    std::string text;
    if (identicalLabels) {
        text = "identical labels";
    } else {
        text = samePartition ? "same partition, different numbering" : "different partition";
        text += ": " + std::to_string(differingPixels) + (volume ? " voxels" : " pixels") + " differ, the first at (" +
                std::to_string(firstX) + ", " + std::to_string(firstY) +
                (volume ? ", " + std::to_string(firstZ) : std::string()) + ") expected " +
                std::to_string(expectedAtFirst) + " got " + std::to_string(actualAtFirst);
    }
    text += identicalTables ? "; tables identical" : "; tables differ";
    return text;
}

Comparison compareLabelings(const Labeling& expected, const Labeling& actual) {
    constexpr const char* kWhere = "glccl::compareLabelings(): ";
    checkShape(kWhere, "expected", expected);
    checkShape(kWhere, "actual", actual);

    Comparison result;
    result.identicalTables = expected.components == actual.components;
    result.volume = expected.dimensions == 3;
    if (expected.shape() != actual.shape()) {
        result.sameSize = false;
        result.identicalLabels = false;
        result.samePartition = false;
        return result;
    }

    PartnerCheck expectedToActual, actualToExpected;
    const std::size_t pixelCount = expected.labels.size();
    for (std::size_t i = 0; i < pixelCount; ++i) {
        const std::uint32_t e = expected.labels[i];
        const std::uint32_t a = actual.labels[i];
        if (e != a) {
            if (result.differingPixels == 0) {
                const std::size_t line = i / std::size_t(expected.width);
                result.firstX = int(i % std::size_t(expected.width));
                result.firstY = int(line % std::size_t(expected.height));
                result.firstZ = int(line / std::size_t(expected.height));
                result.expectedAtFirst = e;
                result.actualAtFirst = a;
            }
            ++result.differingPixels;
        }
        if (!result.samePartition) continue;
        if ((e == 0) != (a == 0)) {
            result.samePartition = false;
        } else if (e != 0) {
            result.samePartition = expectedToActual.consistent(e, a) && actualToExpected.consistent(a, e);
        }
    }
    result.identicalLabels = result.differingPixels == 0;
    return result;
}

Image diffImage(const Labeling& expected, const Labeling& actual) {
    constexpr const char* kWhere = "glccl::diffImage(): ";
    checkShape(kWhere, "expected", expected);
    checkShape(kWhere, "actual", actual);
    if (expected.shape() != actual.shape())
        throw Error(std::string(kWhere) + "expected is " + sizeOf(expected) + " but actual is " + sizeOf(actual));

    // RGBA because an Image has 1 or 4 channels.
    constexpr std::uint8_t kBackground[4] = {0, 0, 0, 255};
    constexpr std::uint8_t kAgree[4] = {64, 64, 64, 255};
    constexpr std::uint8_t kDiffer[4] = {255, 0, 0, 255};

    if (std::int64_t(expected.height) * expected.depth > std::int64_t(1) << 30)
        throw Error(std::string(kWhere) + "a " + sizeOf(expected) + " volume is too deep for one difference image");
    Image image(expected.width, expected.height * expected.depth, 4);
    const std::size_t pixelCount = expected.labels.size();
    for (std::size_t i = 0; i < pixelCount; ++i) {
        const std::uint32_t e = expected.labels[i];
        const std::uint32_t a = actual.labels[i];
        const std::uint8_t* color = e != a ? kDiffer : (e == 0 ? kBackground : kAgree);
        std::copy(color, color + 4, &image.pixels[i * 4]);
    }
    return image;
}

}  // namespace glccl
