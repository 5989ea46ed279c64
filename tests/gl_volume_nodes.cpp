// The compute engine's binary volumes over bundle nodes (the *_volume.comp
// passes, glsl/volume_nodes.glsl) against the CPU reference, labels and
// table byte for byte: random volumes whose widths lie around multiples of
// the 32-voxel word, volumes past one patch along every axis, chains that
// only corners or edges join across word edges and patch faces, the most
// runs a word can hold, one-line and one-slice shapes, every sample format
// with binary and binary:L, bundle nodes and the node grid taking turns on
// one labeler, and a host's texture labeled with its bindings left as they
// were. Each case checks that its shapes take bundle nodes, so that the
// tests keep aiming at them whatever the sizes in compute_constants.hpp;
// binary volumes too narrow for them take the node grid, and one case
// checks that they do and label like the reference.

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "backends/compute/compute_constants.hpp"
#include "backends/compute/compute_passes.hpp"
#include "gl.hpp"
#include "gl_objects.hpp"
#include "gl_support.hpp"
#include "glccl/generate.hpp"
#include "volume_support.hpp"

using namespace glccl;
using glccl::test::requireSameLabeling;
using glccl::test::kVolumeConnectivities;
using glccl::test::offscreen;
using glccl::test::session;
using glccl::test::randomTestVolume;
using glccl::test::setVoxel;

namespace {

// Whether the compute engine labels this binary volume over bundle nodes
// (ComputeResources::reserve): its node slots are no more than its voxels.
// The bits' storage block, the other condition, holds for every test here.
bool takesBundles(const Image& volume, Connectivity connectivity) {
    const compute::VolumeNodeGrid grid =
        compute::VolumeNodeGrid::of(volume.width, volume.height, volume.depth, connectivity);
    return grid.slots() <= grid.voxels();
}

std::string describe(const Image& volume, Connectivity connectivity, const Criterion& criterion) {
    return std::to_string(volume.width) + "x" + std::to_string(volume.height) + "x" + std::to_string(volume.depth) +
           " " + std::to_string(volume.sampleBits) + "-bit, connectivity " + std::to_string(int(connectivity)) + " " +
           criterion.toString();
}

// Labels `volume` (uploaded as the offscreen labeler uploads its samples)
// with the compute engine, over bundle nodes, and requires the reference.
void requireBundlesMatchReference(const Image& volume, Connectivity connectivity, const std::string& name,
                                  const Criterion& criterion = Criterion::binary()) {
    INFO(name << " " << describe(volume, connectivity, criterion));
    REQUIRE(takesBundles(volume, connectivity));
    const Labeling expected = labelReference(volume, connectivity, criterion);
    requireSameLabeling(expected, glccl::test::labelWith(Backend::Compute, volume, connectivity, criterion));
}

// The same from a host's GL_TEXTURE_3D of `internalFormat` (GL_R8UI or
// GL_R32F: formats the offscreen upload does not pick).
void requireTextureMatchesReference(const Image& volume, GLenum internalFormat, Connectivity connectivity,
                                    const Criterion& criterion, const std::string& name) {
    INFO(name << " " << describe(volume, connectivity, criterion));
    REQUIRE(takesBundles(volume, connectivity));
    offscreen().makeCurrent();
    auto texture = gl::Texture::allocateVolume(internalFormat, volume.width, volume.height, volume.depth, "a test volume");
    if (internalFormat == GL_R32F) {
        std::vector<float> samples(volume.shape().count());
        for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = float(volume.sample(i, 0));
        texture.upload(samples.data(), GL_RED, GL_FLOAT);
    } else {
        texture.upload(volume.pixels.data(), GL_RED_INTEGER, GL_UNSIGNED_BYTE);
    }
    LabelOptions options;
    options.backend = Backend::Compute;
    options.connectivity = connectivity;
    options.criterion = criterion;
    Labeler& labeler = offscreen().labeler();
    labeler.label(texture.id(), options);
    REQUIRE(labeler.backend() == Backend::Compute);
    Labeling actual;
    labeler.result(actual);
    REQUIRE(glGetError() == GL_NO_ERROR);
    requireSameLabeling(labelReference(volume, connectivity, criterion), actual);
}

// A w x h x d volume of `bits`-bit samples: each voxel foreground with
// probability `density`, its value uniform in 1 .. `largest`.
Image spreadVolume(int w, int h, int d, double density, std::uint64_t largest, int bits, std::uint64_t seed) {
    Image volume(Shape::volume(w, h, d), 1, bits);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    std::uniform_int_distribution<std::uint64_t> value(1, largest);
    for (std::size_t i = 0; i < volume.shape().count(); ++i)
        if (coin(rng) < density) volume.setSample(i, 0, value(rng));
    return volume;
}

}  // namespace

TEST_CASE("volume nodes: keys divided by the width and lines by the height are exact", "[gl][compute][volume]") {
    // The passes find a key's voxel by two such divisions
    // (volume_nodes.glsl, quotient): every side a 3-D texture can have,
    // against keys and lines up to 2^30.
    std::mt19937 rng(31);
    std::vector<std::uint32_t> dividends = {0, 1, 2, 31, 32, 33, 0x3FFFFFFFu, 0x40000000u};
    for (int i = 0; i < 400; ++i) dividends.push_back(std::uint32_t(rng()) >> (2 + rng() % 30));
    for (std::uint32_t side = 1; side <= 16384; side += side < 70 ? 1 : 1 + side / 9) {
        const compute::Divisor divisor = compute::Divisor::of(side);
        for (std::uint32_t n : dividends) {
            INFO(n << " / " << side);
            REQUIRE(divisor.quotient(n) == n / side);
            // Both ends of a quotient step.
            const std::uint32_t low = n / side * side;
            REQUIRE(divisor.quotient(low) == n / side);
            if (low > 0) REQUIRE(divisor.quotient(low - 1) == n / side - 1);
        }
    }
}

TEST_CASE("volume nodes: work group counts stay within every context's along each axis", "[gl][compute][volume]") {
    // Dispatches are three-dimensional: patches and label patches along each
    // axis, count_roots' rows and slices. Every OpenGL 4.3 context runs
    // 65535 work groups along each axis; the largest volumes the router
    // allows (sides up to 32768, 2^30 voxels) stay below it however long
    // and thin, where a one-dimensional count of patches would not.
    for (auto [w, h, d] : {std::tuple{32768, 32768, 1}, std::tuple{32768, 1, 32768}, std::tuple{1, 32768, 32768},
                           std::tuple{1024, 1024, 1024}, std::tuple{64, 4096, 4096}})
        for (Connectivity connectivity : kVolumeConnectivities) {
            compute::ComputeResources resources;
            resources.nodes = compute::VolumeNodeGrid::of(w, h, d, connectivity);
            for (const compute::GroupCount& groups : {compute::bundlePatches(resources), compute::bundleLabelPatches(resources)}) {
                INFO(w << "x" << h << "x" << d << " at " << int(connectivity));
                CHECK(groups.x <= 65535);
                CHECK(groups.y <= 65535);
                CHECK(groups.z <= 65535);
                CHECK(std::uint64_t(groups.x) * groups.y * groups.z > 0u);
            }
            const int rows = compute::kCountRootsThreads / compute::countRootsRowThreads(int(resources.nodes.wordsX));
            CHECK((resources.nodes.bundlesY + rows - 1) / rows <= 65535u);
            CHECK(resources.nodes.bundlesZ <= 65535u);
        }
}

TEST_CASE("volume nodes: random volumes with widths around multiples of 32", "[gl][compute][volume]") {
    std::mt19937_64 seeds(41);
    const double densities[] = {0.05, 0.15, 0.3, 0.45, 0.6, 0.9};
    int i = 0;
    for (int w : {31, 32, 33, 63, 64, 65, 95, 97, 129}) {
        const int h = 9 + (i * 13) % 31, d = 5 + (i * 7) % 23;
        for (Connectivity connectivity : kVolumeConnectivities)
            requireBundlesMatchReference(randomTestVolume(w, h, d, densities[i % 6], seeds()), connectivity, "random");
        ++i;
    }
}

TEST_CASE("volume nodes: past one patch along every axis, sparse and dense", "[gl][compute][volume]") {
    // Patches are 64 voxels wide, 32 high (16 at 6) and 16 deep (8 at 18 and
    // 6): these cross two or more faces along each axis.
    std::mt19937_64 seeds(42);
    for (double density : {0.08, 0.35, 0.7})
        for (Connectivity connectivity : kVolumeConnectivities)
            requireBundlesMatchReference(randomTestVolume(141, 67, 37, density, seeds()), connectivity, "patches");
}

TEST_CASE("volume nodes: more node slots than a slice of the parents image", "[gl][compute][volume]") {
    // Past 2^20 slots, parents kept in an image (--tune computeParents=image,
    // or past a storage block) reach its second slice (volume_nodes.glsl,
    // parentTexel).
    const Image volume = randomTestVolume(64, 320, 130, 0.2, 47);
    const compute::VolumeNodeGrid grid =
        compute::VolumeNodeGrid::of(volume.width, volume.height, volume.depth, Connectivity::Six);
    REQUIRE(grid.slots() > (std::uint64_t(1) << (2 * compute::kParentsSideBits)));
    requireBundlesMatchReference(volume, Connectivity::Six, "slots");
}

TEST_CASE("volume nodes: chains that only corners or edges join cross word edges and patch faces",
          "[gl][compute][volume]") {
    // Parallel chains of voxels, each step along a diagonal: corners only
    // (all three axes), or edges only (two). A chain is one component where
    // the connectivity joins its steps, single voxels where it does not.
    // Chains of one volume lie 3 apart across the axis they keep (z for
    // corner chains: two of them come no closer than 2 along some axis),
    // so they never touch; their starts move along x so that they cross
    // word edges and patch faces at every parity of position.
    const int w = 100, h = 50, d = 40;
    const int directions[][3] = {{1, 1, 1}, {-1, 1, 1}, {1, -1, 1}, {-1, -1, 1}, {1, 1, 0},
                                 {-1, 1, 0}, {1, 0, 1},  {-1, 0, 1}, {0, 1, 1},  {0, -1, 1}};
    for (const auto& v : directions) {
        Image volume(Shape::volume(w, h, d), 1, 8);
        // The axis the chains keep apart on: one the direction does not move
        // along, else z.
        const int apart = v[2] == 0 ? 2 : v[1] == 0 ? 1 : v[0] == 0 ? 0 : 2;
        const int extent[3] = {w, h, d};
        for (int offset = 0; offset + 1 < extent[apart]; offset += 3)
            for (int step = 0;; ++step) {
                int p[3];
                for (int axis = 0; axis < 3; ++axis) {
                    const int start = axis == apart ? offset : v[axis] < 0 ? extent[axis] - 1 - offset % 7 : offset % 7;
                    p[axis] = start + v[axis] * step;
                }
                if (p[0] < 0 || p[1] < 0 || p[2] < 0 || p[0] >= w || p[1] >= h || p[2] >= d) break;
                setVoxel(volume, p[0], p[1], p[2]);
            }
        for (Connectivity connectivity : kVolumeConnectivities)
            requireBundlesMatchReference(volume, connectivity,
                                         "chains " + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
                                             std::to_string(v[2]));
    }
}

TEST_CASE("volume nodes: the most runs a word holds, and links past a work group's queue", "[gl][compute][volume]") {
    // Every other voxel of every line: 16 nodes a word, each linked to a
    // node of every bundle around it (at 26 and 18); a 3-D checkerboard,
    // joined by edges (18) and corners (26) alone. Either asks local_merge
    // for more links a round than its queue holds.
    Image stripes(Shape::volume(130, 40, 20), 1, 8), checkerboard(Shape::volume(130, 40, 20), 1, 8);
    for (int z = 0; z < 20; ++z)
        for (int y = 0; y < 40; ++y)
            for (int x = 0; x < 130; ++x) {
                if (x % 2 == 0) setVoxel(stripes, x, y, z);
                if ((x + y + z) % 2 == 0) setVoxel(checkerboard, x, y, z);
            }
    for (Connectivity connectivity : kVolumeConnectivities) {
        requireBundlesMatchReference(stripes, connectivity, "stripes");
        requireBundlesMatchReference(checkerboard, connectivity, "checkerboard");
    }
}

TEST_CASE("volume nodes: one-line and one-slice shapes, all-0 and all-1", "[gl][compute][volume]") {
    // Narrower volumes (1 x N, a few voxels wide) take the node grid: the
    // volume compute tests cover them.
    std::mt19937_64 seeds(43);
    for (auto [w, h, d] : {std::tuple{2000, 1, 1}, std::tuple{700, 2, 1}, std::tuple{129, 1, 9}, std::tuple{96, 7, 1},
                           std::tuple{65, 40, 1}, std::tuple{64, 1, 40}})
        for (Connectivity connectivity : kVolumeConnectivities)
            requireBundlesMatchReference(randomTestVolume(w, h, d, 0.5, seeds()), connectivity, "line");
    for (auto [w, h, d] : {std::tuple{2000, 1, 1}, std::tuple{65, 40, 1}})
        for (double density : {0.0, 1.0})
            for (Connectivity connectivity : kVolumeConnectivities)
                requireBundlesMatchReference(randomTestVolume(w, h, d, density, seeds()), connectivity, "line");
}

TEST_CASE("volume nodes: every sample format, binary and binary:L", "[gl][compute][volume]") {
    // Values spread over each format's range, so that a level cuts through
    // them; 64-bit samples above 2^32 count as above any level. Only
    // local_merge reads samples, and it reads them the same way at every
    // connectivity: each format and criterion is labeled at one of them, in
    // turn, so that every format meets every connectivity.
    std::mt19937_64 seeds(44);
    const int w = 37, h = 21, d = 13;
    int turn = 0;
    auto connectivity = [&] { return kVolumeConnectivities[turn++ % 3]; };
    const Image bytes = spreadVolume(w, h, d, 0.7, 255, 8, seeds());
    for (const Criterion& criterion : {Criterion::binary(), Criterion::binaryAbove(140)}) {
        requireBundlesMatchReference(bytes, connectivity(), "GL_R8", criterion);
        requireTextureMatchesReference(bytes, GL_R8UI, connectivity(), criterion, "GL_R8UI");
    }
    const Image shorts = spreadVolume(w, h, d, 0.7, 65535, 16, seeds());
    for (const Criterion& criterion : {Criterion::binary(), Criterion::binaryAbove(30000)})
        requireBundlesMatchReference(shorts, connectivity(), "GL_R16", criterion);
    const Image words = spreadVolume(w, h, d, 0.7, 0xFFFFFFFFu, 32, seeds());
    for (const Criterion& criterion : {Criterion::binary(), Criterion::binaryAbove(3000000000)})
        requireBundlesMatchReference(words, connectivity(), "GL_R32UI", criterion);
    // Floats hold integers exactly below 2^24.
    const Image floats = spreadVolume(w, h, d, 0.7, 1 << 20, 32, seeds());
    for (const Criterion& criterion : {Criterion::binary(), Criterion::binaryAbove(600000)})
        requireTextureMatchesReference(floats, GL_R32F, connectivity(), criterion, "GL_R32F");
    const Image wide = spreadVolume(w, h, d, 0.7, std::uint64_t(1) << 33, 64, seeds());
    for (const Criterion& criterion : {Criterion::binary(), Criterion::binaryAbove(4000000000)})
        requireBundlesMatchReference(wide, connectivity(), "GL_RG32UI", criterion);
}

TEST_CASE("volume nodes: binary volumes narrower than their node slots take the node grid", "[gl][compute][volume]") {
    // A bundle word has 16 node slots whatever the width: at 26 a bundle
    // holds 4 lines, at 18 two, at 6 one, so volumes under 4, 8 and 16
    // voxels wide have more slots than voxels and label on the node grid's
    // 2x2x2, 2x2x1 and 2x1x1 blocks (the *_volume_grid.comp passes).
    std::mt19937_64 seeds(46);
    const std::pair<Connectivity, int> narrowest[] = {
        {Connectivity::TwentySix, 3}, {Connectivity::Eighteen, 7}, {Connectivity::Six, 15}};
    for (const auto& [connectivity, widest] : narrowest)
        for (int width : {1, 2, widest})
            for (double density : {0.3, 0.6}) {
                const Image volume = randomTestVolume(width, 37, 29, density, seeds(), 8, 3);
                INFO(describe(volume, connectivity, Criterion::binary()) << " density " << density);
                REQUIRE_FALSE(takesBundles(volume, connectivity));
                requireSameLabeling(labelReference(volume, connectivity, Criterion::binary()),
                                    glccl::test::labelWith(Backend::Compute, volume, connectivity,
                                                           Criterion::binary()));
            }
}

TEST_CASE("volume nodes: more lines than scan_lines' blocks fill a row of its work groups",
          "[gl][compute][volume]") {
    // scan_lines.comp numbers a volume's height x depth lines in blocks of
    // kScanLinesBlock, its work groups over x then y: over a million lines
    // make more blocks than one row holds. A volume 5 voxels wide keeps the
    // voxels few and still takes bundle nodes at 26. (The node grid's
    // count_roots hands its lines to the same scan: every volume of the
    // node grid in these tests goes through it, in one row.)
    const int h = 1030, d = 1028;
    REQUIRE(h * d > compute::kScanGroupsX * compute::kScanLinesBlock);
    requireBundlesMatchReference(randomTestVolume(5, h, d, 0.5, 47), Connectivity::TwentySix, "thin");
}

TEST_CASE("volume nodes: bundle nodes and the node grid take turns on one labeler", "[gl][compute][volume]") {
    // One size, binary (bundle nodes) and segments (the node grid) in turn,
    // connectivities changing, an image between them: each labeling leaves
    // the next its resources and table to reuse or replace.
    std::mt19937_64 seeds(45);
    const Image volume = randomTestVolume(45, 33, 19, 0.5, seeds(), 8, 3);
    const Image image = randomImage(77, 51, 0.5, 2, 1, seeds());
    for (int round = 0; round < 2; ++round)
        for (Connectivity connectivity : kVolumeConnectivities) {
            requireBundlesMatchReference(volume, connectivity, "binary");
            const Labeling segments = glccl::test::labelWith(Backend::Compute, volume, connectivity,
                                                             Criterion::segments());
            requireSameLabeling(labelReference(volume, connectivity, Criterion::segments()), segments);
            const Labeling labeled = glccl::test::labelWith(Backend::Compute, image, Connectivity::Eight,
                                                            Criterion::binary());
            requireSameLabeling(labelReference(image, Connectivity::Eight, Criterion::binary()), labeled);
        }
}

TEST_CASE("volume nodes: a host's GL_TEXTURE_3D, its storage and image bindings restored", "[gl][compute][volume]") {
    // The bundle-node passes bind storage buffers 0-6 and image units 0, 2
    // and 3 (compute_constants.hpp): the host's bindings there come back,
    // at 6-connectivity too, where one buffer serves two bindings.
    offscreen().makeCurrent();
    const Image volume = randomTestVolume(70, 37, 21, 0.4, 46);
    auto texture = gl::Texture::allocateVolume(GL_R8, volume.width, volume.height, volume.depth, "a test volume");
    texture.upload(volume.pixels.data(), GL_RED, GL_UNSIGNED_BYTE);
    const gl::Texture other = gl::Texture::allocateVolume(GL_R32UI, 3, 3, 3, "another volume");
    constexpr int kBindings = 8;
    std::vector<gl::Buffer> buffers;
    for (int i = 0; i < kBindings; ++i) {
        buffers.push_back(gl::Buffer::create());
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers.back().id());
        glBufferData(GL_SHADER_STORAGE_BUFFER, 64, nullptr, GL_DYNAMIC_COPY);
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, GLuint(i), buffers.back().id(), 0, 16 + 16 * (i % 3));
    }
    for (int unit = 0; unit < 4; ++unit)
        glBindImageTexture(GLuint(unit), other.id(), 0, GL_TRUE, 0, GL_READ_ONLY, GL_R32UI);
    REQUIRE(glGetError() == GL_NO_ERROR);

    Labeler& labeler = offscreen().labeler();
    for (Connectivity connectivity : {Connectivity::TwentySix, Connectivity::Six}) {
        INFO("connectivity " << int(connectivity));
        REQUIRE(takesBundles(volume, connectivity));
        LabelOptions options;
        options.backend = Backend::Compute;
        options.connectivity = connectivity;
        labeler.label(texture.id(), options);
        GLint value = 0;
        glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &value);
        CHECK(GLuint(value) == buffers.back().id());
        for (int i = 0; i < kBindings; ++i) {
            GLint64 start = -1, size = -1;
            glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, GLuint(i), &value);
            glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, GLuint(i), &start);
            glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, GLuint(i), &size);
            CHECK(GLuint(value) == buffers[std::size_t(i)].id());
            CHECK(start == 0);
            CHECK(size == 16 + 16 * (i % 3));
        }
        for (int unit = 0; unit < 4; ++unit) {
            glGetIntegeri_v(GL_IMAGE_BINDING_NAME, GLuint(unit), &value);
            CHECK(GLuint(value) == other.id());
            glGetIntegeri_v(GL_IMAGE_BINDING_ACCESS, GLuint(unit), &value);
            CHECK(value == GL_READ_ONLY);
        }
        REQUIRE(glGetError() == GL_NO_ERROR);
        Labeling actual;
        labeler.result(actual);
        requireSameLabeling(labelReference(volume, connectivity, Criterion::binary()), actual);
    }
    for (int i = 0; i < kBindings; ++i) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GLuint(i), 0);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    for (int unit = 0; unit < 4; ++unit) glBindImageTexture(GLuint(unit), 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R8);
}
