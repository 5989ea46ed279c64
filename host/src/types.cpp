#include "glccl/types.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "glccl/error.hpp"

namespace glccl {

namespace {

constexpr const char* kCriterionForms =
    "\"binary\", \"binary:L\", \"segments\", \"threshold:T\" or \"delta:D\" with L, T and D in 0..4294967295";

std::string inQuotes(std::string_view text) { return "'" + std::string(text) + "'"; }

// A decimal integer in 0..2^32-1, plain digits only (from_chars would also
// take a leading '-'); -1 when `digits` is anything else.
std::int64_t parseSampleValue(std::string_view digits) {
    if (digits.empty() || digits.size() > 10) return -1;
    for (char c : digits)
        if (c < '0' || c > '9') return -1;
    std::int64_t value = -1;
    std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return value <= std::int64_t(0xFFFFFFFFu) ? value : -1;
}

}  // namespace

std::string whyThreadsRefused(int threads) {
    if (threads >= 0 && threads <= kMostThreads) return "";
    return "0 (every core this process may run on) or 1.." + std::to_string(kMostThreads) + ", not " +
           std::to_string(threads);
}

Criterion Criterion::parse(std::string_view text) {
    if (text == "binary") return binary();
    if (text == "segments") return segments();
    // The criteria that take a number, named without it.
    if (text == "threshold" || text == "delta")
        throw Error("glccl::Criterion::parse(): " + inQuotes(text) + " needs its number: " + std::string(text) +
                    (text == "threshold" ? ":T" : ":D") + " (e.g. " + std::string(text) +
                    ":10), in 0..4294967295 in the units of the image's samples");

    const auto numberAfter = [&](std::string_view prefix, const char* what) -> std::int64_t {
        const std::int64_t value = parseSampleValue(text.substr(prefix.size()));
        if (value < 0) {
            throw Error("glccl::Criterion::parse(): the " + std::string(what) + " in " + inQuotes(text) +
                        " must be an integer in 0..4294967295 (in the units of the image's samples)");
        }
        return value;
    };
    constexpr std::string_view kThresholdPrefix = "threshold:";
    if (text.substr(0, kThresholdPrefix.size()) == kThresholdPrefix)
        return thresholded(numberAfter(kThresholdPrefix, "threshold"));
    constexpr std::string_view kBinaryPrefix = "binary:";
    if (text.substr(0, kBinaryPrefix.size()) == kBinaryPrefix) return binaryAbove(numberAfter(kBinaryPrefix, "level"));
    constexpr std::string_view kDeltaPrefix = "delta:";
    if (text.substr(0, kDeltaPrefix.size()) == kDeltaPrefix) return withinDelta(numberAfter(kDeltaPrefix, "delta"));
    throw Error("glccl::Criterion::parse(): unknown criterion " + inQuotes(text) + "; expected " + kCriterionForms);
}

std::string Criterion::toString() const {
    switch (kind) {
        case Kind::Binary: return level == 0 ? "binary" : "binary:" + std::to_string(level);
        case Kind::Segments: return "segments";
        case Kind::Threshold: return "threshold:" + std::to_string(threshold);
        case Kind::Delta: return "delta:" + std::to_string(delta);
    }
    return "unknown";
}

std::string Criterion::problemForSampleBits(int sampleBits) const {
    // The criterion's numbers stay within 32 bits (parse), whatever the
    // samples: 64-bit samples take every number parse gives.
    const std::int64_t largest = std::int64_t(std::min<std::uint64_t>(Image::largestSample(sampleBits), 0xFFFFFFFFu));
    const auto outside = [&](const char* what, std::int64_t value) {
        return std::string(what) + " " + std::to_string(value) + " is outside 0.." + std::to_string(largest) +
               (sampleBits < 64 ? ", the values of " + std::to_string(sampleBits) + "-bit samples"
                                : ", the numbers a criterion takes");
    };
    if (kind == Kind::Threshold && (threshold < 0 || threshold > largest)) return outside("the threshold", threshold);
    if (kind == Kind::Binary && (level < 0 || level > largest)) return outside("the binary level", level);
    if (kind == Kind::Delta && (delta < 0 || delta > largest)) return outside("the delta", delta);
    return {};
}

Connectivity parseConnectivity(std::string_view text) {
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight, Connectivity::Six,
                                      Connectivity::Eighteen, Connectivity::TwentySix})
        if (text == std::to_string(neighbourCount(connectivity))) return connectivity;
    throw Error("glccl::parseConnectivity(): unknown connectivity " + inQuotes(text) +
                "; expected \"4\" or \"8\" (2-D images) or \"6\", \"18\" or \"26\" (volumes)");
}

std::string whyConnectivityDoesNotFit(Connectivity connectivity, const Shape& shape) {
    const int n = neighbourCount(connectivity);
    const bool named = connectivity == Connectivity::Four || connectivity == Connectivity::Eight ||
                       connectivity == Connectivity::Six || connectivity == Connectivity::Eighteen ||
                       connectivity == Connectivity::TwentySix;
    if (!named) return "connectivity " + std::to_string(n) + " is none of 4, 8 (2-D images), 6, 18 or 26 (volumes)";
    if (shape.dimensions == 2 && dimensionsOf(connectivity) == 3)
        return "connectivity " + std::to_string(n) + " is for volumes; a 2-D image takes 4 or 8";
    if (shape.dimensions == 3 && dimensionsOf(connectivity) == 2)
        return "connectivity " + std::to_string(n) + " is for 2-D images; a volume takes 6, 18 or 26";
    if (shape.dimensions != 2 && shape.dimensions != 3)
        return "the input has " + std::to_string(shape.dimensions) + " dimensions; glccl labels 2 or 3";
    return {};
}

namespace {

// The offsets of a 3x3x3 block, dz slowest, as Neighbourhood numbers its bits.
template <class Visit>
void forEachOffset(int dimensions, Visit&& visit) {
    for (int dz = dimensions == 3 ? -1 : 0; dz <= (dimensions == 3 ? 1 : 0); ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) visit(dx, dy, dz);
}

constexpr std::uint32_t kCentreBit = std::uint32_t(1) << Neighbourhood::bitOf(0, 0, 0);

}  // namespace

Neighbourhood::Neighbourhood(Connectivity connectivity) : dimensions_(dimensionsOf(connectivity)) {
    // Neighbours at most `reach` coordinates away: 1 (4, 6), 2 (8, 18), 3 (26).
    const int reach = connectivity == Connectivity::Four || connectivity == Connectivity::Six ? 1
                      : connectivity == Connectivity::TwentySix                                 ? 3
                                                                                                : 2;
    forEachOffset(dimensions_, [&](int dx, int dy, int dz) {
        if (std::abs(dx) + std::abs(dy) + std::abs(dz) <= reach) mask_ |= std::uint32_t(1) << bitOf(dx, dy, dz);
    });
    mask_ &= ~kCentreBit;
}

Neighbourhood Neighbourhood::fromMask(int dimensions, std::uint32_t mask) {
    const std::string where = "glccl::Neighbourhood::fromMask(): ";
    if (dimensions != 2 && dimensions != 3)
        throw Error(where + "a neighbourhood has 2 or 3 dimensions, not " + std::to_string(dimensions));
    std::uint32_t block = 0;
    forEachOffset(dimensions, [&](int dx, int dy, int dz) { block |= std::uint32_t(1) << bitOf(dx, dy, dz); });
    if (mask & ~block)
        throw Error(where + "the mask has bits outside the " + (dimensions == 3 ? "3x3x3" : "3x3") + " block");
    const Neighbourhood neighbourhood(dimensions, mask & ~kCentreBit);
    std::string asymmetric;
    forEachOffset(dimensions, [&](int dx, int dy, int dz) {
        if (asymmetric.empty() && neighbourhood.joins(dx, dy, dz) && !neighbourhood.joins(-dx, -dy, -dz))
            asymmetric = "(" + std::to_string(dx) + ", " + std::to_string(dy) +
                         (dimensions == 3 ? ", " + std::to_string(dz) : "") + ")";
    });
    if (!asymmetric.empty())
        throw Error(where + "the neighbourhood " + neighbourhood.toString() + " is not symmetric: the offset (dx, dy" +
                    (dimensions == 3 ? ", dz" : "") + ") " + asymmetric + " joins but its opposite does not");
    return neighbourhood;
}

bool Neighbourhood::isNamed() const {
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight, Connectivity::Six,
                                      Connectivity::Eighteen, Connectivity::TwentySix})
        if (Neighbourhood(connectivity) == *this) return true;
    return false;
}

Connectivity Neighbourhood::named() const {
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight, Connectivity::Six,
                                      Connectivity::Eighteen, Connectivity::TwentySix})
        if (Neighbourhood(connectivity) == *this) return connectivity;
    throw Error("glccl::Neighbourhood::named(): " + toString() + " is none of the named connectivities");
}

std::string Neighbourhood::toString() const {
    if (isNamed()) return std::to_string(neighbourCount(named()));
    const auto row = [&](int dy, int dz) {
        std::string text = "[";
        for (int dx = -1; dx <= 1; ++dx) text += std::string(dx > -1 ? ", " : "") + (joins(dx, dy, dz) ? "1" : "0");
        return text + "]";
    };
    const auto slice = [&](int dz) {
        std::string text = "[";
        for (int dy = -1; dy <= 1; ++dy) text += (dy > -1 ? ", " : "") + row(dy, dz);
        return text + "]";
    };
    if (dimensions_ == 2) return slice(0);
    return "[" + slice(-1) + ", " + slice(0) + ", " + slice(1) + "]";
}

std::string whyNeighbourhoodDoesNotFit(const Neighbourhood& neighbourhood, const Shape& shape) {
    if (neighbourhood.isNamed()) return whyConnectivityDoesNotFit(neighbourhood.named(), shape);
    if (shape.dimensions == 2 && neighbourhood.dimensions() == 3)
        return "the neighbourhood " + neighbourhood.toString() + " is 3x3x3, for volumes; a 2-D image takes a 3x3 one";
    if (shape.dimensions == 3 && neighbourhood.dimensions() == 2)
        return "the neighbourhood " + neighbourhood.toString() + " is 3x3, for 2-D images; a volume takes a 3x3x3 one";
    if (shape.dimensions != 2 && shape.dimensions != 3)
        return "the input has " + std::to_string(shape.dimensions) + " dimensions; glccl labels 2 or 3";
    return {};
}

void addStageTime(StageTimings& timings, const std::string& stage, double milliseconds, bool measured) {
    for (StageTime& time : timings)
        if (time.stage == stage) {
            time.milliseconds += milliseconds;
            time.measured = time.measured && measured;
            return;
        }
    timings.push_back({stage, milliseconds, measured});
}

}  // namespace glccl
