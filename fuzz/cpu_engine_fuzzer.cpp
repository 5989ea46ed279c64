// libFuzzer harness for the cpu engine (glccl_cpu): the input's first bytes
// choose a shape (an image or a volume up to 48 elements a side), a
// connectivity, a criterion and its number, sample bits, channels, a thread
// count and a stripe limit (small limits take the paths of huge inputs); the
// rest are the samples, repeated to fill the input. The engine's labels,
// table and count must equal glccl::labelReference's, and it must refuse
// exactly what the reference refuses. A difference traps (a finding).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "glccl/cpu_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "labeler_detail.hpp"

namespace {

constexpr std::size_t kHeader = 10;

glccl::cpu::Labeler& sharedLabeler() {
    static glccl::cpu::Labeler labeler(8);
    return labeler;
}

void check(bool condition) {
    if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < kHeader) return -1;
    const bool volume = data[0] & 1;
    static const glccl::Connectivity kImage[] = {glccl::Connectivity::Four, glccl::Connectivity::Eight};
    static const glccl::Connectivity kVolume[] = {glccl::Connectivity::Six, glccl::Connectivity::Eighteen,
                                                  glccl::Connectivity::TwentySix};
    // A connectivity of the other kind now and then: both must refuse it.
    glccl::Connectivity connectivity = volume ? kVolume[(data[0] >> 1) % 3] : kImage[(data[0] >> 1) % 2];
    if ((data[0] >> 3) % 16 == 0) connectivity = volume ? glccl::Connectivity::Eight : glccl::Connectivity::Six;
    const int width = 1 + data[1] % 48, height = 1 + data[2] % 48, depth = volume ? 1 + data[3] % 12 : 1;
    static const int kBits[] = {8, 16, 32, 64};
    const int bits = kBits[data[4] & 3];
    const int kind = (data[4] >> 2) & 3;
    const int channels = kind == 2 && (data[4] & 0x10) ? 4 : 1;
    const int threads = 1 + (data[4] >> 5);
    std::uint32_t number;
    std::memcpy(&number, data + 5, sizeof number);
    const std::uint64_t largest = glccl::Image::largestSample(bits);
    // Mostly a number the samples take; sometimes whatever came (to be refused).
    if (data[9] & 0x80) number = std::uint32_t(std::uint64_t(number) % (std::min<std::uint64_t>(largest, 0xFFFFFFFFu) + 1));
    if ((data[9] & 0x60) == 0) number %= 4;
    glccl::Criterion criterion;
    switch (kind) {
        case 0: criterion = glccl::Criterion::binaryAbove(number); break;
        case 1: criterion = glccl::Criterion::segments(); break;
        case 2: criterion = glccl::Criterion::thresholded(number); break;
        default: criterion = glccl::Criterion::withinDelta(number); break;
    }
    const std::uint64_t stripeLimit = (data[9] & 0x1F) == 0 ? 1 : (data[9] & 0x1F) < 4 ? 37 * (data[9] & 0x1F) : UINT64_MAX;

    glccl::Image image(volume ? glccl::Shape::volume(width, height, depth) : glccl::Shape::image(width, height),
                       channels, bits);
    const std::uint8_t* samples = data + kHeader;
    const std::size_t available = size - kHeader;
    for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = available ? samples[i % available] : 0;

    glccl::Labeling expected;
    bool refused = false;
    try {
        expected = glccl::labelReference(image, connectivity, criterion);
    } catch (const glccl::Error&) {
        refused = true;
    }
    std::vector<std::uint32_t> labels(image.shape().count(), 0xFEEDFACEu);
    std::vector<glccl::Component> table(3);
    glccl::cpu::Options options;
    options.threads = threads;
    glccl::cpu::detail::ScopedStripeLimit limit(stripeLimit);
    try {
        const std::uint32_t count =
            sharedLabeler().label(image, connectivity, criterion, labels.data(), table, options);
        check(!refused);
        check(count == expected.count());
        check(labels == expected.labels);
        check(table == expected.components);
    } catch (const glccl::Error&) {
        check(refused);
    }
    return 0;
}
