// glccl::Labeler with GpuBackend::Cuda: the CUDA path labels the host's own
// GL texture through interop, with the same result as the reference.
#include <catch2/catch.hpp>

#include <GL/glew.h>

#include "glccl/compare.hpp"
#include "glccl/context.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/generate.hpp"
#include "glccl/labeler.hpp"
#include "glccl/reference.hpp"
#include "cuda_support.hpp"

using namespace glccl;

TEST_CASE("cuda: Labeler with the CUDA backend labels the host texture like the reference", "[cuda]") {
    test::requireCudaOrSkip();
    HeadlessContext context;
    for (const char* family : {"noise50", "spiral", "dense_disks"}) {
        const Image image = generateFamily(family, 301, 197, 3);
        GLuint texture = 0;
        glGenTextures(1, &texture);
        glBindTexture(GL_TEXTURE_2D, texture);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, image.width, image.height, 0, GL_RED, GL_UNSIGNED_BYTE, image.pixels.data());
        Labeler labeler;
        for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
            LabelOptions options;
            options.connectivity = connectivity;
            options.backend = GpuBackend::Cuda;
            options.timings = true;
            const std::uint32_t count = labeler.label(texture, options);
            Labeling actual;
            actual.width = image.width;
            actual.height = image.height;
            actual.labels = labeler.downloadLabels();
            actual.components = labeler.components();
            const Labeling expected = labelReference(image, connectivity, Criterion::binary());
            INFO(family << " connectivity " << int(connectivity) << ": " << compareLabelings(expected, actual).describe());
            CHECK(count == expected.count());
            CHECK(compareLabelings(expected, actual).identical());
            CHECK_FALSE(labeler.stageTimings().empty());
        }
        glDeleteTextures(1, &texture);
    }
    CHECK(glGetError() == GL_NO_ERROR);
}
