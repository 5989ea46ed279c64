#include "glccl/types.hpp"

#include <charconv>

#include "glccl/error.hpp"

namespace glccl {

namespace {

constexpr const char* kCriterionForms = "\"binary\", \"segments\" or \"threshold:T\" with T in 0..255";

std::string inQuotes(std::string_view text) { return "'" + std::string(text) + "'"; }

}  // namespace

Criterion Criterion::parse(std::string_view text) {
    if (text == "binary") return binary();
    if (text == "segments") return segments();

    constexpr std::string_view kThresholdPrefix = "threshold:";
    if (text.substr(0, kThresholdPrefix.size()) == kThresholdPrefix) {
        const std::string_view digits = text.substr(kThresholdPrefix.size());
        // from_chars would accept a leading '-'; only plain decimal digits are allowed.
        bool allDigits = !digits.empty() && digits.size() <= 3;
        for (char c : digits) allDigits = allDigits && c >= '0' && c <= '9';
        int threshold = -1;
        if (allDigits) std::from_chars(digits.data(), digits.data() + digits.size(), threshold);
        if (threshold < 0 || threshold > 255) {
            throw Error("glccl::Criterion::parse(): the threshold in " + inQuotes(text) +
                        " must be an integer in 0..255");
        }
        return thresholded(threshold);
    }
    throw Error("glccl::Criterion::parse(): unknown criterion " + inQuotes(text) + "; expected " + kCriterionForms);
}

std::string Criterion::toString() const {
    switch (kind) {
        case Kind::Binary: return "binary";
        case Kind::Segments: return "segments";
        case Kind::Threshold: return "threshold:" + std::to_string(threshold);
    }
    return "unknown";
}

Connectivity parseConnectivity(std::string_view text) {
    if (text == "4") return Connectivity::Four;
    if (text == "8") return Connectivity::Eight;
    throw Error("glccl::parseConnectivity(): unknown connectivity " + inQuotes(text) + "; expected \"4\" or \"8\"");
}

void addStageTime(StageTimings& timings, const std::string& stage, double milliseconds) {
    for (StageTime& time : timings)
        if (time.stage == stage) {
            time.milliseconds += milliseconds;
            return;
        }
    timings.push_back({stage, milliseconds});
}

}  // namespace glccl
