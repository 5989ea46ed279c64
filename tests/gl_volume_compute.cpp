// The compute backend on volumes (a host's GL_TEXTURE_3D, 6-, 18- and
// 26-connectivity) against the CPU reference, labels and table byte for
// byte: random volumes of odd sizes and densities, lines along each axis,
// one-slice volumes, a helix and a comb that cross many patches, joins only
// a corner or an edge makes, every criterion and input format; the host's
// state restored; the raster backend's refusal; auto on a volume.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gl.hpp"
#include "gl_error.hpp"
#include "gl_objects.hpp"
#include "gl_support.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/route.hpp"
#include "known_route.hpp"
#include "volume_support.hpp"

using namespace glccl;
using glccl::test::offscreen;
using glccl::test::session;
using glccl::test::requireSameLabeling;

using glccl::test::kVolumeConnectivities;
using glccl::test::randomTestVolume;
using glccl::test::setVoxel;

namespace {

// The texture format a volume of these samples goes into; `integer` picks
// GL_R8UI for 8-bit samples, `floats` GL_R32F for 32-bit ones.
struct VolumeFormat {
    GLenum internalFormat, format, type;
};

VolumeFormat formatOf(const Image& volume, bool integer = false, bool floats = false) {
    if (volume.channels == 4)
        return volume.sampleBits == 16 ? VolumeFormat{GL_RGBA16, GL_RGBA, GL_UNSIGNED_SHORT}
                                       : VolumeFormat{GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE};
    if (volume.sampleBits == 16) return {GL_R16, GL_RED, GL_UNSIGNED_SHORT};
    if (volume.sampleBits == 32) return floats ? VolumeFormat{GL_R32F, GL_RED, GL_FLOAT}
                                               : VolumeFormat{GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT};
    return integer ? VolumeFormat{GL_R8UI, GL_RED_INTEGER, GL_UNSIGNED_BYTE}
                   : VolumeFormat{GL_R8, GL_RED, GL_UNSIGNED_BYTE};
}

gl::Texture uploadVolume(const Image& volume, const VolumeFormat& format) {
    auto texture = gl::Texture::allocateVolume(format.internalFormat, volume.width, volume.height, volume.depth,
                                               "a test volume");
    if (format.type == GL_FLOAT) {
        std::vector<float> samples(volume.shape().count());
        for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = float(volume.sample(i, 0));
        texture.upload(samples.data(), format.format, format.type);
    } else {
        texture.upload(volume.pixels.data(), format.format, format.type);
    }
    return texture;
}

LabelOptions volumeOptions(Connectivity connectivity, const Criterion& criterion, Backend backend = Backend::Compute) {
    LabelOptions options;
    options.backend = backend;
    options.connectivity = connectivity;
    options.criterion = criterion;
    return options;
}

std::string describe(const Image& volume, Connectivity connectivity, const Criterion& criterion) {
    return std::to_string(volume.width) + "x" + std::to_string(volume.height) + "x" + std::to_string(volume.depth) +
           "x" + std::to_string(volume.channels) + " " + std::to_string(volume.sampleBits) + "-bit, connectivity " +
           std::to_string(neighbourCount(connectivity)) + " " + criterion.toString();
}

// Labels `volume` as a GL_TEXTURE_3D with the compute backend and requires
// the reference's labels and table.
void requireComputeMatchesReference(const Image& volume, Connectivity connectivity, const Criterion& criterion,
                                    const std::string& name, bool integer = false, bool floats = false) {
    INFO(name << " " << describe(volume, connectivity, criterion));
    const Labeling expected = labelReference(volume, connectivity, criterion);
    offscreen().makeCurrent();
    const gl::Texture texture = uploadVolume(volume, formatOf(volume, integer, floats));
    Labeler& labeler = offscreen().labeler();
    const std::uint32_t count = labeler.label(texture.id(), volumeOptions(connectivity, criterion));
    REQUIRE(labeler.backend() == Backend::Compute);
    REQUIRE(count == expected.components.size());
    Labeling actual;
    labeler.result(actual);
    REQUIRE(glGetError() == GL_NO_ERROR);
    requireSameLabeling(expected, actual);
}

}  // namespace

TEST_CASE("volume compute: random volumes of odd sizes and densities", "[gl][compute][volume]") {
    std::mt19937_64 seeds(25);
    for (auto [w, h, d] : {std::tuple{17, 13, 11}, std::tuple{40, 9, 21}, std::tuple{33, 34, 9}, std::tuple{5, 70, 6}})
        for (double density : {0.1, 0.3, 0.5, 0.9})
            for (Connectivity connectivity : kVolumeConnectivities)
                requireComputeMatchesReference(randomTestVolume(w, h, d, density, seeds()), connectivity,
                                               Criterion::binary(), "random");
}

TEST_CASE("volume compute: lines along each axis, one-slice volumes, all-0 and all-1", "[gl][compute][volume]") {
    std::mt19937_64 seeds(26);
    for (auto [w, h, d] : {std::tuple{1, 1, 1}, std::tuple{1, 1, 77}, std::tuple{77, 1, 1}, std::tuple{1, 77, 1},
                           std::tuple{45, 37, 1}, std::tuple{1, 30, 29}, std::tuple{34, 17, 9}})
        for (double density : {0.0, 0.5, 1.0})
            for (Connectivity connectivity : kVolumeConnectivities)
                requireComputeMatchesReference(randomTestVolume(w, h, d, density, seeds()), connectivity,
                                               Criterion::binary(), "line");
}

TEST_CASE("volume compute: a helix and a comb cross many patches", "[gl][compute][volume]") {
    // A helix of one-voxel steps winding through z: each step joins the last
    // by a face, an edge or a corner, so the three connectivities cut it
    // differently, and it crosses patch faces of every orientation.
    Image helix(Shape::volume(61, 58, 45));
    for (int t = 0; t < 2000; ++t) {
        const double angle = t * 0.05;
        setVoxel(helix, int(30 + 27 * std::cos(angle)), int(29 + 26 * std::sin(angle)), t * 44 / 1999);
    }
    // A comb: a spine along x on the front slice and teeth through z and y.
    Image comb(Shape::volume(70, 33, 40));
    for (int x = 0; x < 70; ++x) setVoxel(comb, x, 0, 0);
    for (int x = 0; x < 70; x += 3)
        for (int z = 0; z < 40; ++z) setVoxel(comb, x, (z * 7 + x) % 33, z);
    for (Connectivity connectivity : kVolumeConnectivities) {
        requireComputeMatchesReference(helix, connectivity, Criterion::binary(), "helix");
        requireComputeMatchesReference(comb, connectivity, Criterion::binary(), "comb");
    }
}

TEST_CASE("volume compute: joins by a corner or an edge alone", "[gl][compute][volume]") {
    // Diagonal chains in every direction from every parity of position, so
    // that the joins fall inside nodes, across nodes and across patches.
    Image corners(Shape::volume(40, 20, 12)), edges(Shape::volume(40, 20, 12));
    for (int start = 0; start < 4; ++start)
        for (int i = 0; i < 10; ++i) {
            setVoxel(corners, start * 9 + (i % 9), start + i, i);
            setVoxel(corners, 39 - start * 9 - (i % 9), start + i + 2, i);
            setVoxel(edges, start * 9 + (i % 9), start + 5, i);
            setVoxel(edges, start * 7, start + i, i);
        }
    for (Connectivity connectivity : kVolumeConnectivities) {
        requireComputeMatchesReference(corners, connectivity, Criterion::binary(), "corners");
        requireComputeMatchesReference(edges, connectivity, Criterion::binary(), "edges");
    }
}

TEST_CASE("volume compute: every criterion and input format", "[gl][compute][volume]") {
    std::mt19937_64 seeds(27);
    for (Connectivity connectivity : kVolumeConnectivities) {
        const Image bytes = randomTestVolume(23, 19, 13, 0.6, seeds(), 8, 3);
        requireComputeMatchesReference(bytes, connectivity, Criterion::binary(), "GL_R8");
        requireComputeMatchesReference(bytes, connectivity, Criterion::binary(), "GL_R8UI", true);
        requireComputeMatchesReference(bytes, connectivity, Criterion::binaryAbove(253), "GL_R8 binary:253");
        requireComputeMatchesReference(bytes, connectivity, Criterion::binaryAbove(253), "GL_R8UI binary:253", true);
        requireComputeMatchesReference(bytes, connectivity, Criterion::segments(), "GL_R8 segments");
        requireComputeMatchesReference(bytes, connectivity, Criterion::segments(), "GL_R8UI segments", true);
        requireComputeMatchesReference(bytes, connectivity, Criterion::thresholded(1), "GL_R8 threshold");
        const Image shorts = randomTestVolume(21, 17, 14, 0.6, seeds(), 16, 4);
        requireComputeMatchesReference(shorts, connectivity, Criterion::binary(), "GL_R16");
        requireComputeMatchesReference(shorts, connectivity, Criterion::segments(), "GL_R16 segments");
        requireComputeMatchesReference(shorts, connectivity, Criterion::thresholded(2), "GL_R16 threshold");
        const Image words = randomTestVolume(19, 15, 17, 0.6, seeds(), 32, 3);
        requireComputeMatchesReference(words, connectivity, Criterion::binary(), "GL_R32UI");
        requireComputeMatchesReference(words, connectivity, Criterion::segments(), "GL_R32UI segments");
        requireComputeMatchesReference(words, connectivity, Criterion::thresholded(1), "GL_R32UI threshold");
        Image small = randomTestVolume(19, 15, 17, 0.6, seeds(), 32, 3);
        for (std::size_t i = 0; i < small.shape().count(); ++i) small.setSample(i, 0, small.sample(i, 0) >> 20);
        requireComputeMatchesReference(small, connectivity, Criterion::segments(), "GL_R32F segments", false, true);
        for (int bits : {8, 16}) {
            Image colour(Shape::volume(15, 13, 11), 4, bits);
            std::mt19937_64 random(seeds());
            for (std::size_t i = 0; i < colour.shape().count(); ++i)
                for (int c = 0; c < 4; ++c) colour.setSample(i, c, std::uint32_t(random() % 4));
            requireComputeMatchesReference(colour, connectivity, Criterion::thresholded(1), "RGBA threshold");
        }
    }
}

TEST_CASE("volume compute: repeated labelings are identical, volumes and images alternating", "[gl][compute][volume]") {
    std::mt19937_64 seeds(28);
    for (int repeat = 0; repeat < 3; ++repeat) {
        requireComputeMatchesReference(randomTestVolume(37, 29, 23, 0.45, seeds()), Connectivity::TwentySix,
                                       Criterion::binary(), "repeat");
        const Image image = randomImage(131, 67, 0.5, 2, 1, seeds());
        LabelOptions options;
        options.backend = Backend::Compute;
        const Comparison comparison = compareLabelings(labelReference(image, Connectivity::Eight, Criterion::binary()),
                                                       session().label(image, options));
        INFO(comparison.describe());
        REQUIRE(comparison.identical());
    }
}

TEST_CASE("volume compute: a host's GL_TEXTURE_3D, its state restored", "[gl][compute][volume]") {
    offscreen().makeCurrent();
    const Image volume = randomTestVolume(29, 21, 15, 0.4, 29);
    const gl::Texture texture = uploadVolume(volume, formatOf(volume));
    const gl::Texture other = gl::Texture::allocateVolume(GL_R8, 3, 3, 3, "another volume");
    // The host's bindings: its volume on unit 0 and another on unit 4, unit
    // 4 active, a 3-D image bound, a storage buffer bound.
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_3D, texture.id());
    glActiveTexture(GL_TEXTURE4);
    glBindTexture(GL_TEXTURE_3D, other.id());
    glBindImageTexture(1, other.id(), 0, GL_TRUE, 0, GL_READ_ONLY, GL_R8);
    const gl::Buffer buffer = gl::Buffer::create();
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, buffer.id());
    REQUIRE(glGetError() == GL_NO_ERROR);

    Labeler& labeler = offscreen().labeler();
    labeler.label(texture.id(), volumeOptions(Connectivity::Eighteen, Criterion::binary()));
    GLint value = 0;
    glGetIntegerv(GL_ACTIVE_TEXTURE, &value);
    CHECK(value == GL_TEXTURE4);
    glGetIntegerv(GL_TEXTURE_BINDING_3D, &value);
    CHECK(GLuint(value) == other.id());
    glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_TEXTURE_BINDING_3D, &value);
    CHECK(GLuint(value) == texture.id());
    glActiveTexture(GL_TEXTURE4);
    glGetIntegeri_v(GL_IMAGE_BINDING_NAME, 1, &value);
    CHECK(GLuint(value) == other.id());
    glGetIntegeri_v(GL_IMAGE_BINDING_LAYERED, 1, &value);
    CHECK(value == GL_TRUE);
    glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 3, &value);
    CHECK(GLuint(value) == buffer.id());
    REQUIRE(glGetError() == GL_NO_ERROR);

    // The label texture is the Labeler's: a 3-D R32UI texture of the volume's size.
    const GLuint labels = labeler.labelTexture();
    glBindTexture(GL_TEXTURE_3D, labels);
    REQUIRE(glGetError() == GL_NO_ERROR);
    GLint width = 0, height = 0, depth = 0, format = 0;
    glGetTexLevelParameteriv(GL_TEXTURE_3D, 0, GL_TEXTURE_WIDTH, &width);
    glGetTexLevelParameteriv(GL_TEXTURE_3D, 0, GL_TEXTURE_HEIGHT, &height);
    glGetTexLevelParameteriv(GL_TEXTURE_3D, 0, GL_TEXTURE_DEPTH, &depth);
    glGetTexLevelParameteriv(GL_TEXTURE_3D, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
    glBindTexture(GL_TEXTURE_3D, other.id());
    CHECK(width == 29);
    CHECK(height == 21);
    CHECK(depth == 15);
    CHECK(format == GL_R32UI);
    Labeling actual;
    labeler.result(actual);
    requireSameLabeling(labelReference(volume, Connectivity::Eighteen, Criterion::binary()), actual);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_3D, 0);
    glBindImageTexture(1, 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R8);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, 0);
}

TEST_CASE("volume compute: raster refuses a volume in one sentence, auto never picks it", "[gl][compute][volume]") {
    offscreen().makeCurrent();
    const Image volume = randomTestVolume(12, 11, 10, 0.5, 30);
    const gl::Texture texture = uploadVolume(volume, formatOf(volume));
    Labeler& labeler = offscreen().labeler();
    REQUIRE_THROWS_WITH(labeler.label(texture.id(), volumeOptions(Connectivity::Six, Criterion::binary(), Backend::Raster)),
                        "glccl::Labeler::label(): the raster backend labels 2-D images; this texture is a volume "
                        "(12x11x10): use compute or cpu");
    // cuda labels volumes from host and device memory, not from a texture.
    REQUIRE_THROWS_WITH(labeler.label(texture.id(), volumeOptions(Connectivity::Six, Criterion::binary(), Backend::Cuda)),
                        "glccl::Labeler::label(): the cuda backend labels volumes from host memory or CUDA device "
                        "memory, not from a GL texture: use compute or cpu");
    // The reference reads the texture back, whatever its dimensions.
    for (Connectivity connectivity : kVolumeConnectivities) {
        labeler.label(texture.id(), volumeOptions(connectivity, Criterion::binary(), Backend::Cpu));
        Labeling actual;
        labeler.result(actual);
        requireSameLabeling(labelReference(volume, connectivity, Criterion::binary()), actual);
    }
    // A 2-D connectivity does not fit a volume.
    REQUIRE_THROWS_WITH(labeler.label(texture.id(), volumeOptions(Connectivity::Eight, Criterion::binary())),
                        Catch::Contains("glccl::Labeler::label(): ") && Catch::Contains("connectivity 8"));

    for (Connectivity connectivity : kVolumeConnectivities) {
        const Route route = chooseRoute(InputDescription::volumeTexture(12, 11, 10, GL_R8),
                                        volumeOptions(connectivity, Criterion::binary(), Backend::Auto),
                                        &labeler.contextInfo());
        CHECK(route.backend != Backend::Raster);
        labeler.label(texture.id(), volumeOptions(connectivity, Criterion::binary(), Backend::Auto));
        CHECK(labeler.backend() != Backend::Raster);
        Labeling actual;
        labeler.result(actual);
        requireSameLabeling(labelReference(volume, connectivity, Criterion::binary()), actual);
    }
    REQUIRE(glGetError() == GL_NO_ERROR);
}

TEST_CASE("volume compute: a volume past a 3-D texture or 2^30 voxels is past one call", "[gl][compute][volume]") {
    offscreen().makeCurrent();
    const ContextInfo& info = offscreen().labeler().contextInfo();
    REQUIRE(info.max3DTextureSize > 0);
    const EngineCapabilities compute = capabilitiesOf(Backend::Compute, &info);
    CHECK(compute.largestVolumeExtent == std::min(info.max3DTextureSize, kLargestTextureSide));
    const int side = int(compute.largestVolumeExtent);
    CHECK_FALSE(exceedsOneCall(compute, Shape::volume(side, 7, 5)));
    CHECK(exceedsOneCall(compute, Shape::volume(side + 1, 7, 5)));
    CHECK(exceedsOneCall(compute, Shape::volume(5, 7, side + 1)));
    // Keys stay below 2^30 (compute_common.glsl).
    CHECK_FALSE(exceedsOneCall(compute, Shape::volume(1024, 1024, 1024)));
    CHECK(exceedsOneCall(compute, Shape::volume(1024, 1024, 1025)));
    // An image keeps its own limit, GL_MAX_TEXTURE_SIZE.
    CHECK(compute.largestExtent == std::min(info.maxTextureSize, kLargestTextureSide));
}
