// Every GL entry refuses what it does not take yet, by name, before any
// labeling: the connectivities of volumes (6, 18, 26) on a 2-D image, and
// volumes themselves. And the table of a 2-D labeling keeps its z fields at
// their 2-D values (front 0, depth 1, centroidZ 0) in caller storage that
// held other values.

#include <catch2/catch.hpp>

#include <string>

#include "gl_objects.hpp"
#include "gl_support.hpp"
#include "glccl/generate.hpp"
#include "glccl/texture.hpp"
#include "volume_support.hpp"

using namespace glccl;
using Catch::Matchers::StartsWith;
using Catch::Matchers::Contains;
using glccl::test::backendsHere;
using glccl::test::offscreen;
using glccl::test::session;

using glccl::test::kVolumeConnectivities;

namespace {

std::string forVolumes(Connectivity connectivity) {
    return "connectivity " + std::to_string(neighbourCount(connectivity)) +
           " is for volumes; a 2-D image takes 4 or 8";
}

}  // namespace

TEST_CASE("connectivity: Labeler::label() and reserve() refuse 6, 18 and 26 on a 2-D texture", "[gl]") {
    const Image image = generateFamily("noise50", 33, 17, 3);
    for (Backend backend : backendsHere()) {
        offscreen().makeCurrent();
        const ImageTexture texture(image);
        Labeler& labeler = offscreen().labeler();
        for (Connectivity connectivity : kVolumeConnectivities) {
            INFO(backendName(backend) << " connectivity " << neighbourCount(connectivity));
            LabelOptions options;
            options.backend = backend;
            options.connectivity = connectivity;
            CHECK_THROWS_WITH(labeler.label(texture.id(), options),
                              "glccl::Labeler::label(): " + forVolumes(connectivity));
            CHECK_THROWS_WITH(labeler.reserve(image.width, image.height, options),
                              "glccl::Labeler::reserve(): " + forVolumes(connectivity));
            CHECK(glGetError() == GL_NO_ERROR);
        }
    }
}

TEST_CASE("connectivity: the Session refuses 6, 18 and 26 on a 2-D image, and labels volumes where they go", "[gl]") {
    const Image image = generateFamily("noise50", 33, 17, 3);
    for (Backend backend : backendsHere()) {
        for (Connectivity connectivity : kVolumeConnectivities) {
            INFO(backendName(backend) << " connectivity " << neighbourCount(connectivity));
            LabelOptions options;
            options.backend = backend;
            options.connectivity = connectivity;
            Labeling out;
            CHECK_THROWS_WITH(session().label(image, options, out),
                              "glccl::Session::label(): " + forVolumes(connectivity));
        }
    }
    // A volume goes where the router sends it (the reference takes any);
    // an engine that labels 2-D images only refuses it when named.
    Image volume(Shape::volume(8, 8, 2));
    volume.pixels[3] = 1;
    volume.pixels[8 * 8 + 4] = 1;
    LabelOptions options;
    options.connectivity = Connectivity::TwentySix;
    Labeling out;
    session().label(volume, options, out);
    const Labeling expected = labelReference(volume, Connectivity::TwentySix, Criterion::binary());
    CHECK(out.shape() == volume.shape());
    CHECK(out.labels == expected.labels);
    CHECK(out.components == expected.components);
    options.backend = Backend::Raster;
    CHECK_THROWS_WITH(session().label(volume, options, out),
                      StartsWith("glccl::Session::label(): ") && Contains("raster backend"));
    offscreen().makeCurrent();
    CHECK_THROWS_WITH(ImageTexture(volume), StartsWith("glccl::ImageTexture: the image is a volume (8x8x2)"));
}

TEST_CASE("connectivity: a 2-D table in caller storage gets front 0, depth 1, centroidZ 0", "[gl]") {
    const Image image = generateFamily("sparse_disks", 97, 61, 5);
    const Labeling expected = labelReference(image, Connectivity::Eight, Criterion::binary());
    REQUIRE(expected.count() > 0);
    for (Backend backend : backendsHere()) {
        INFO(backendName(backend));
        LabelOptions options;
        options.backend = backend;
        offscreen().makeCurrent();
        const ImageTexture texture(image);
        Labeler& labeler = offscreen().labeler();
        labeler.label(texture.id(), options);
        Component volumeRow;
        volumeRow.front = 5;
        volumeRow.depth = 9;
        volumeRow.centroidZ = 3.5;
        std::vector<Component> table(expected.count(), volumeRow);
        labeler.components(table);
        CHECK(table == expected.components);
    }
}
