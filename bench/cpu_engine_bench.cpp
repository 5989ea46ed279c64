// glccl_cpu_bench: times the cpu engine (glccl/cpu_labeler.hpp) on one input,
// read from a file or generated, and prints the median of its repetitions
// with the median of each stage. bench/cpu_peers.py runs it beside OpenCV,
// scikit-image and scipy on the same files.
//
//   glccl_cpu_bench --generate noise50 --size 2048x2048 --connectivity 8 --threads 2 --reps 9
//   glccl_cpu_bench --generate balls --size 256x256x256 --connectivity 26 --write-input balls.npy --reps 0
//   glccl_cpu_bench --input balls.npy --connectivity 6 --check

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "glccl/cpu_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "glccl/reference.hpp"

namespace {

const char* kUsage = R"(usage: glccl_cpu_bench (--input FILE | --generate FAMILY --size WxH[xD]) [options]

Times glccl's cpu engine: labels and the full component table, as one call of
glccl::cpu::Labeler::label() on a labeler kept across repetitions (its
threads and scratch made before the first timed one).

input (one of):
  --input FILE          a PNG, JPEG, TIFF, PGM/PPM or .npy image (a 3-D .npy: a volume,
                        or with --channels-last an image of (height, width, channels))
  --generate FAMILY     a generated binary input (0/255) of --size:
                        2-D: noise<P> (noise50), sparse_disks, dense_disks, large,
                             granularity<g>, spiral, comb, checkerboard, ...
                        3-D: noise<P> (noise30), balls, blobs, hilbert
  --size WxH | WxHxD    the generated input's size (WxHxD: a volume)
  --seed N              the generator's seed (default 1, as `glccl generate`)
  --channels-last       a 3-D .npy is an image with its channels last (1, 3 or 4)

options:
  --connectivity N      4 or 8 (images), 6, 18 or 26 (volumes); default 8 / 26
  --criterion C         binary, binary:L, segments, threshold:T, delta:D (default binary)
  --threads N           worker threads, 0: every core this process may use (default 0)
  --reps R              timed repetitions (default 7); 0 times nothing
  --warmup W            untimed repetitions first (default 1)
  --write-input FILE    also write the input as .npy (uint8 for generated inputs)
  --check               compare labels and table with glccl::labelReference once
  --help                this text

output: one line of key=value pairs, e.g.
  engine=cpu input=noise50 shape=2048x2048 connectivity=8 criterion=binary threads=2 reps=7
  median_ms=12.345 min_ms=12.001 components=123456 scan_ms=... merge_ms=... number_ms=... final_ms=...
and "check=identical" with --check (exit status 1 when it is not).
)";

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "glccl_cpu_bench: %s\n", message.c_str());
    std::exit(2);
}

std::vector<int> parseSize(const std::string& text) {
    std::vector<int> sides;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t x = text.find('x', at);
        const std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
        char* end = nullptr;
        const long value = std::strtol(part.c_str(), &end, 10);
        if (part.empty() || *end != '\0' || value < 1 || value > 1 << 30) fail("bad --size '" + text + "'");
        sides.push_back(int(value));
        if (x == std::string::npos) break;
        at = x + 1;
    }
    if (sides.size() != 2 && sides.size() != 3) fail("--size takes WxH or WxHxD, not '" + text + "'");
    return sides;
}

int parseInt(const std::string& option, const std::string& text) {
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 0 || value > 1 << 20) fail("bad " + option + " '" + text + "'");
    return int(value);
}

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string shapeText(const glccl::Image& image) {
    std::string text = std::to_string(image.width) + "x" + std::to_string(image.height);
    if (image.dimensions == 3) text += "x" + std::to_string(image.depth);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    std::string input, family, sizeText, writeInput, criterionText = "binary", connectivityText;
    int threads = 0, reps = 7, warmup = 1;
    std::uint64_t seed = 1;
    bool check = false, channelsLast = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) fail(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (arg == "--input") input = value();
        else if (arg == "--generate") family = value();
        else if (arg == "--size") sizeText = value();
        else if (arg == "--seed") seed = std::uint64_t(parseInt(arg, value()));
        else if (arg == "--connectivity") connectivityText = value();
        else if (arg == "--criterion") criterionText = value();
        else if (arg == "--threads") threads = parseInt(arg, value());
        else if (arg == "--reps") reps = parseInt(arg, value());
        else if (arg == "--warmup") warmup = parseInt(arg, value());
        else if (arg == "--write-input") writeInput = value();
        else if (arg == "--check") check = true;
        else if (arg == "--channels-last") channelsLast = true;
        else fail("unknown option '" + arg + "' (--help lists them)");
    }
    if (input.empty() == family.empty()) fail("give --input FILE or --generate FAMILY (--help)");
    if (!family.empty() && sizeText.empty()) fail("--generate needs --size WxH or WxHxD");

    try {
        glccl::Image image;
        std::string name = input;
        if (!family.empty()) {
            const std::vector<int> sides = parseSize(sizeText);
            image = sides.size() == 3 ? glccl::generateVolumeFamily(family, sides[0], sides[1], sides[2], seed)
                                      : glccl::generateFamily(family, sides[0], sides[1], seed);
            name = family;
        } else {
            image = glccl::readImage(input, glccl::ChannelMode::Natural,
                                     channelsLast ? glccl::NpyChannelAxis::Last : glccl::NpyChannelAxis::None);
        }
        if (!writeInput.empty()) glccl::writeImageNpy(writeInput, image, true);

        const glccl::Connectivity connectivity =
            connectivityText.empty()
                ? (image.dimensions == 3 ? glccl::Connectivity::TwentySix : glccl::Connectivity::Eight)
                : glccl::parseConnectivity(connectivityText);
        const glccl::Criterion criterion = glccl::Criterion::parse(criterionText);
        if (reps == 0 && !check) return 0;

        glccl::cpu::Labeler labeler(threads);
        std::vector<std::uint32_t> labels(image.shape().count());
        std::vector<glccl::Component> table;
        std::vector<double> totals;
        std::map<std::string, std::vector<double>> stages;
        std::vector<std::string> stageOrder;
        std::uint32_t count = 0;
        for (int rep = 0; rep < warmup + reps; ++rep) {
            glccl::StageTimings timings;
            glccl::cpu::Options options;
            options.timings = &timings;
            const auto start = std::chrono::steady_clock::now();
            count = labeler.label(image, connectivity, criterion, labels.data(), table, options);
            const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
            if (rep < warmup) continue;
            totals.push_back(elapsed.count());
            for (const glccl::StageTime& t : timings) {
                if (!stages.count(t.stage)) stageOrder.push_back(t.stage);
                stages[t.stage].push_back(t.milliseconds);
            }
        }

        std::printf("engine=cpu input=%s shape=%s connectivity=%d criterion=%s threads=%d reps=%d", name.c_str(),
                    shapeText(image).c_str(), glccl::neighbourCount(connectivity), criterion.toString().c_str(),
                    labeler.threads(), reps);
        if (reps > 0) {
            std::printf(" median_ms=%.3f min_ms=%.3f components=%u", median(totals),
                        *std::min_element(totals.begin(), totals.end()), count);
            for (const std::string& stage : stageOrder) std::printf(" %s_ms=%.3f", stage.c_str(), median(stages[stage]));
        }
        int status = 0;
        if (check) {
            if (reps == 0) count = labeler.label(image, connectivity, criterion, labels.data(), table);
            const glccl::Labeling expected = glccl::labelReference(image, connectivity, criterion);
            const bool same = count == expected.count() && labels == expected.labels && table == expected.components;
            std::printf(" check=%s", same ? "identical" : "DIFFERENT");
            status = same ? 0 : 1;
        }
        std::printf("\n");
        return status;
    } catch (const std::exception& error) {
        fail(error.what());
    }
}
