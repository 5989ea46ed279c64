// libFuzzer harness for one image reader: the bytes go through
// glccl::readImageFromMemory, the code glccl::readImage runs on files, in
// both channel modes; an image that decodes is labeled by the CPU reference,
// so that a sample the decoder left unset would change labels (which
// valgrind or MSan then report). Built once per reader with
// GLCCL_FUZZ_SIGNATURES set to the format's possible first bytes: other
// inputs are skipped, so each fuzzer spends its time in its own decoder.
//
// Any glccl::Error is a correct answer; a crash, a sanitizer report, a
// leak, a timeout or an allocation past libFuzzer's limit is a finding.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/reference.hpp"

namespace {

constexpr const char* kSignatures[] = {GLCCL_FUZZ_SIGNATURES};
// Larger decoded images are not labeled: the decoder is what is fuzzed.
constexpr std::uint64_t kLabelPixels = std::uint64_t(1) << 20;

void readAndLabel(const std::uint8_t* data, std::size_t size, glccl::ChannelMode mode) {
    try {
        const glccl::Image image = glccl::readImageFromMemory(data, size, "fuzz input", mode);
        if (image.shape().count() > kLabelPixels) return;
        const glccl::Criterion criterion =
            image.channels == 4 ? glccl::Criterion::thresholded(1) : glccl::Criterion::segments();
        // A volume (a 3-D .npy, a TIFF stack) at its full connectivity.
        const glccl::Connectivity connectivity =
            image.dimensions == 3 ? glccl::Connectivity::TwentySix : glccl::Connectivity::Eight;
        glccl::labelReference(image, connectivity, criterion);
    } catch (const glccl::Error&) {
        // A refusal with a reason: the expected outcome for most inputs.
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    bool ours = false;
    for (const char* signature : kSignatures) {
        const std::size_t length = std::strlen(signature);
        ours = ours || (size >= length && std::memcmp(data, signature, length) == 0);
    }
    if (!ours) return -1;  // not kept in the corpus
    readAndLabel(data, size, glccl::ChannelMode::Natural);
    readAndLabel(data, size, glccl::ChannelMode::Gray);
    return 0;
}
