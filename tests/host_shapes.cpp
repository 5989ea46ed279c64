// The vocabulary of every dimension: shapes of images and volumes, the
// connectivities 4/8 and 6/18/26 and the one rule of which fits which, and
// the entries that refuse what they do not take yet.

#include <catch2/catch.hpp>

#include <string>

#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "glccl/types.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using glccl::Component;
using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::ImageView;
using glccl::Labeling;
using glccl::Shape;

TEST_CASE("shapes: an Image, ImageView and Labeling say their shape, x fastest, then y, then z", "[host]") {
    const Image flat(5, 3);
    CHECK(flat.shape() == Shape::image(5, 3));
    CHECK(flat.depth == 1);
    CHECK(flat.dimensions == 2);
    CHECK(flat.isConsistent());

    Image volume(Shape::volume(4, 3, 2), 1, 16);
    CHECK(volume.shape() == Shape::volume(4, 3, 2));
    CHECK(volume.pixels.size() == std::size_t(4 * 3 * 2 * 2));
    CHECK(Image::byteCount(Shape::volume(4, 3, 2), 4, 8) == std::size_t(4 * 3 * 2 * 4));
    CHECK(volume.isConsistent());
    volume.setSample(std::size_t((1 * 3 + 2) * 4 + 3), 0, 0xBEEF);  // (x 3, y 2, z 1)
    CHECK(volume.sampleAt(3, 2, 1) == 0xBEEF);
    CHECK(volume.sampleAt(3, 2, 0) == 0);

    const ImageView view(volume);
    CHECK(view.shape() == volume.shape());
    CHECK(view.byteCount() == volume.pixels.size());
    const ImageView fromShape(Shape::volume(4, 3, 2), 1, 16, volume.pixels.data());
    CHECK(fromShape.shape() == volume.shape());
    CHECK(ImageView(flat).shape() == Shape::image(5, 3));

    // A 2-D image of depth 2 contradicts itself.
    Image contradiction(Shape::volume(2, 2, 2));
    contradiction.dimensions = 2;
    CHECK_FALSE(contradiction.isConsistent());

    Labeling labeling;
    labeling.width = 2;
    labeling.height = 2;
    labeling.depth = 3;
    labeling.dimensions = 3;
    labeling.labels = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    CHECK(labeling.shape() == Shape::volume(2, 2, 3));
    CHECK(labeling.at(1, 0) == 2);
    CHECK(labeling.at(1, 0, 0) == 2);
    CHECK(labeling.at(0, 1, 2) == 11);
}

TEST_CASE("shapes: a component of a 2-D image has front 0, depth 1, centroidZ 0; == compares z", "[host]") {
    const Component flat{1, 2, 3, 4, 5, 6.0, 7.0};
    CHECK(flat.front == 0);
    CHECK(flat.depth == 1);
    CHECK(flat.centroidZ == 0.0);
    Component deeper = flat;
    deeper.depth = 2;
    CHECK(deeper != flat);
    deeper = flat;
    deeper.centroidZ = 0.5;
    CHECK(deeper != flat);
    deeper = flat;
    deeper.front = 1;
    CHECK(deeper != flat);

    const Labeling labeling = glccl::labelReference(Image(3, 3, 1), Connectivity::Eight, Criterion::binary());
    CHECK(labeling.count() == 0);
    Image dots(5, 1);
    dots.at(0, 0) = dots.at(4, 0) = 1;
    for (const Component& c : glccl::labelReference(dots, Connectivity::Four, Criterion::binary()).components) {
        CHECK(c.front == 0);
        CHECK(c.depth == 1);
        CHECK(c.centroidZ == 0.0);
    }
}

TEST_CASE("shapes: parseConnectivity takes 4, 8, 6, 18 and 26 and names them in its refusal", "[host]") {
    CHECK(glccl::parseConnectivity("4") == Connectivity::Four);
    CHECK(glccl::parseConnectivity("8") == Connectivity::Eight);
    CHECK(glccl::parseConnectivity("6") == Connectivity::Six);
    CHECK(glccl::parseConnectivity("18") == Connectivity::Eighteen);
    CHECK(glccl::parseConnectivity("26") == Connectivity::TwentySix);
    for (const char* text : {"", "5", "08", "1", "2", "3", "twenty-six", "26 "}) {
        INFO(text);
        CHECK_THROWS_WITH(glccl::parseConnectivity(text),
                          StartsWith("glccl::parseConnectivity(): unknown connectivity") &&
                              Contains("\"18\""));
    }
    CHECK(glccl::neighbourCount(Connectivity::Eighteen) == 18);
    CHECK(glccl::dimensionsOf(Connectivity::Six) == 3);
    CHECK(glccl::dimensionsOf(Connectivity::Eight) == 2);
}

TEST_CASE("shapes: whyConnectivityDoesNotFit is the one rule of connectivity and dimensions", "[host]") {
    for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
        CHECK(glccl::whyConnectivityDoesNotFit(c, Shape::image(7, 5)).empty());
        CHECK(glccl::whyConnectivityDoesNotFit(c, Shape::volume(7, 5, 3)) ==
              "connectivity " + std::to_string(glccl::neighbourCount(c)) +
                  " is for 2-D images; a volume takes 6, 18 or 26");
    }
    for (Connectivity c : {Connectivity::Six, Connectivity::Eighteen, Connectivity::TwentySix}) {
        CHECK(glccl::whyConnectivityDoesNotFit(c, Shape::volume(7, 5, 1)).empty());
        CHECK(glccl::whyConnectivityDoesNotFit(c, Shape::image(7, 5)) ==
              "connectivity " + std::to_string(glccl::neighbourCount(c)) +
                  " is for volumes; a 2-D image takes 4 or 8");
    }
    CHECK_THAT(glccl::whyConnectivityDoesNotFit(static_cast<Connectivity>(5), Shape::image(7, 5)),
               StartsWith("connectivity 5 is none of"));
}

TEST_CASE("shapes: the reference refuses 3-D connectivities on 2-D images and 2-D ones on volumes, by name", "[host]") {
    Image image(4, 4);
    image.at(1, 1) = 1;
    for (Connectivity c : {Connectivity::Six, Connectivity::Eighteen, Connectivity::TwentySix}) {
        CHECK_THROWS_AS(glccl::labelReference(image, c, Criterion::binary()), glccl::Error);
        CHECK_THROWS_WITH(glccl::labelReference(image, c, Criterion::binary()),
                          "glccl::labelReference(): connectivity " + std::to_string(glccl::neighbourCount(c)) +
                              " is for volumes; a 2-D image takes 4 or 8");
    }
    const Image volume(Shape::volume(4, 4, 2));
    for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
        CHECK_THROWS_WITH(glccl::labelReference(volume, c, Criterion::binary()),
                          "glccl::labelReference(): connectivity " + std::to_string(glccl::neighbourCount(c)) +
                              " is for 2-D images; a volume takes 6, 18 or 26");
    }
}
