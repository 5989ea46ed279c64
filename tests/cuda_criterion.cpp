// The criterion of the cuda kernels (cuda/src/criterion.cuh), on the host:
// no GPU needed, so these run in CI too. For every sample width, channel
// count and criterion the engine takes, the request's rule (checkedRequest)
// picks through withSampleCriterion() the SampleCriterion the kernels are
// built for, and that one must say what the CPU reference's isForeground
// and areConnected say, element for element and pair for pair, on samples
// at the edges of the range: 0, the top, both sides of the top bit, the
// criterion's number and its neighbours. A sample read narrower or signed,
// a difference that wraps, a level compared the wrong way: each shows here.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "criterion.cuh"
#include "glccl/reference.hpp"
#include "pipeline.hpp"
#include "sample_support.hpp"

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::Shape;
using glccl::cuda::CriterionRule;

namespace {

// Values at the edges of a sample range and around `number`, then a few at random.
std::vector<std::uint64_t> edgeValues(int sampleBits, std::uint64_t number, std::uint64_t seed) {
    const std::uint64_t top = Image::largestSample(sampleBits);
    const std::uint64_t half = std::uint64_t(1) << (sampleBits - 1);
    std::vector<std::uint64_t> values = {0, 1, 2, 3, half - 2, half - 1, half, half + 1, top - 2, top - 1, top};
    for (std::uint64_t delta : {0ull, 1ull, 2ull, 3ull}) {
        if (number >= delta) values.push_back(number - delta);
        if (top - number >= delta) values.push_back(number + delta);
    }
    glccl::test::XorShift random(seed, 0xC817);
    for (int i = 0; i < 8; ++i) values.push_back(random.next() & top);
    return values;
}

// The number a criterion carries (level, threshold or delta).
std::uint64_t numberOf(const Criterion& criterion) {
    switch (criterion.kind) {
        case Criterion::Kind::Binary: return std::uint64_t(criterion.level);
        case Criterion::Kind::Threshold: return std::uint64_t(criterion.threshold);
        case Criterion::Kind::Delta: return std::uint64_t(criterion.delta);
        case Criterion::Kind::Segments: break;
    }
    return 0;
}

CriterionRule ruleOf(const Criterion& criterion) {
    switch (criterion.kind) {
        case Criterion::Kind::Binary: return criterion.level == 0 ? CriterionRule::Nonzero : CriterionRule::Above;
        case Criterion::Kind::Segments: return CriterionRule::Segments;
        case Criterion::Kind::Threshold: return CriterionRule::Threshold;
        case Criterion::Kind::Delta: return CriterionRule::Delta;
    }
    return CriterionRule::Nonzero;
}

// Element i of the image as the kernels read it: its bytes as a Sample.
template <typename Sample>
Sample elementAt(const Image& image, std::size_t i) {
    Sample value;
    std::memcpy(&value, image.pixels.data() + i * sizeof(Sample), sizeof(Sample));
    return value;
}

// The image's elements under `criterion` against the reference's
// predicates: every element's foreground, every pair's connection.
void checkAgainstReference(const Image& image, const Criterion& criterion) {
    INFO(image.sampleBits << "-bit, " << image.channels << " channel(s), " << criterion.toString());
    const glccl::cuda::CudaCheck check("cuda_criterion test");
    const glccl::cuda::LabelRequest request =
        glccl::cuda::checkedRequest(check, image.shape(), image.channels, image.sampleBits, Connectivity::Eight,
                                    criterion);
    bool called = false;
    glccl::cuda::withSampleCriterion(request.rule, [&](auto picked) {
        using Picked = decltype(picked);
        using Sample = typename Picked::Sample;
        called = true;
        REQUIRE(sizeof(Sample) == std::size_t(image.channels) * std::size_t(image.sampleBits / 8));
        REQUIRE(Picked::kRule == ruleOf(criterion));
        const std::size_t count = image.shape().count();
        std::size_t foregroundMismatches = 0, connectionMismatches = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const Sample a = elementAt<Sample>(image, i);
            if (picked.isForeground(a) != glccl::isForeground(image, i, criterion)) ++foregroundMismatches;
            for (std::size_t j = 0; j < count; ++j) {
                const bool reference = glccl::areConnected(image, i, j, criterion);
                if (picked.connects(a, elementAt<Sample>(image, j)) != reference) {
                    if (connectionMismatches == 0)
                        UNSCOPED_INFO("first mismatch: elements " << i << " and " << j << " (" << image.sample(i)
                                                                  << ", " << image.sample(j) << "), reference says "
                                                                  << reference);
                    ++connectionMismatches;
                }
            }
        }
        CHECK(foregroundMismatches == 0);
        CHECK(connectionMismatches == 0);
    });
    CHECK(called);
}

}  // namespace

TEST_CASE("cuda criterion: gray samples of every width under every criterion say what the reference says",
          "[cuda][criterion]") {
    std::uint64_t seed = 1;
    for (int bits : {8, 16, 32, 64}) {
        const std::uint64_t top = Image::largestSample(bits);
        const std::uint64_t largest = top < 0xFFFFFFFFu ? top : 0xFFFFFFFFu;  // a criterion's numbers
        const std::vector<Criterion> criteria = {
            Criterion::binary(),          Criterion::binaryAbove(1),
            Criterion::binaryAbove(std::int64_t(largest / 2)),
            Criterion::binaryAbove(std::int64_t(largest)),
            Criterion::segments(),        Criterion::thresholded(0),
            Criterion::thresholded(1),    Criterion::thresholded(std::int64_t(largest)),
            Criterion::withinDelta(0),    Criterion::withinDelta(2),
            Criterion::withinDelta(std::int64_t(largest))};
        for (const Criterion& criterion : criteria) {
            const std::vector<std::uint64_t> values = edgeValues(bits, numberOf(criterion), seed++);
            Image image(int(values.size()), 1, 1, bits);
            for (std::size_t i = 0; i < values.size(); ++i) image.setSample(i, 0, values[i]);
            checkAgainstReference(image, criterion);
        }
    }
}

TEST_CASE("cuda criterion: color of 8, 16 and 32 bits under threshold says what the reference says",
          "[cuda][criterion]") {
    std::uint64_t seed = 100;
    for (int bits : {8, 16, 32}) {
        const std::uint64_t top = Image::largestSample(bits);
        for (std::int64_t threshold : {std::int64_t(0), std::int64_t(1), std::int64_t(3), std::int64_t(top)}) {
            // Channels each drawn near 0, the middle or the top: pairs that
            // differ by little in one channel and much in another.
            glccl::test::XorShift random(seed++, 0xC0102);
            const std::uint64_t centres[] = {0, std::uint64_t(1) << (bits - 1), top};
            Image image(40, 1, 4, bits);
            for (std::size_t i = 0; i < 40; ++i)
                for (int c = 0; c < 4; ++c) {
                    const std::uint64_t centre = centres[random.next() % 3];
                    const std::uint64_t step = random.next() % 5;
                    image.setSample(i, c, centre == 0 ? step : centre - step);
                }
            checkAgainstReference(image, Criterion::thresholded(threshold));
        }
    }
}

TEST_CASE("cuda criterion: the rule a request carries is the criterion's, with its samples", "[cuda][criterion]") {
    const glccl::cuda::CudaCheck check("cuda_criterion test");
    for (int bits : {8, 16, 32, 64}) {
        const glccl::cuda::LabelRequest level = glccl::cuda::checkedRequest(
            check, Shape::volume(4, 3, 2), 1, bits, Connectivity::Six, Criterion::binaryAbove(7));
        CHECK(level.rule.kind == glccl::cuda::PixelRuleKind::Binary);
        CHECK(level.rule.level == 7u);
        CHECK(level.rule.sampleBits == bits);
        CHECK(level.rule.bytesPerElement() == std::size_t(bits / 8));
        const glccl::cuda::LabelRequest delta = glccl::cuda::checkedRequest(
            check, Shape::image(4, 3), 1, bits, Connectivity::Four, Criterion::withinDelta(5));
        CHECK(delta.rule.kind == glccl::cuda::PixelRuleKind::Delta);
        CHECK(delta.rule.largestDifference == 5u);
    }
    const glccl::cuda::LabelRequest color = glccl::cuda::checkedRequest(
        check, Shape::image(4, 3), 4, 32, Connectivity::Eight, Criterion::thresholded(9));
    CHECK(color.rule.bytesPerElement() == 16u);
    CHECK(color.rule.largestDifference == 9u);
}
