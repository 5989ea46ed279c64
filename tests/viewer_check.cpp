// Checks one frame of glccl_viewer against the CPU reference:
//   viewer_check SHOT.png MASK.png LABELS.npy COUNT CONNECTIVITY CRITERION [SLICE]
// For a volume, MASK is its file (.npy) and SLICE the slice the frame shows:
// the labels are checked whole, the picture against that slice.
// MASK.png and LABELS.npy are the frame's input and labels (--dump), SHOT.png
// its window (--screenshot), COUNT the component count the viewer printed.
// Requires: the labels equal labelReference(MASK) exactly, COUNT is its
// count, and the picture area of the screenshot (the top-left WxH pixels)
// shows every pixel in the color glccl::labelColor gives its label, apart
// from the white box outlines, which may only lie on the components' box
// borders; so equal labels have equal colors and different labels
// different colors. Exit 0 when all holds, 1 with the reason otherwise.
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/reference.hpp"

using namespace glccl;

namespace {

std::string where(int x, int y) { return "(" + std::to_string(x) + ", " + std::to_string(y) + ")"; }

int check(int argc, char** argv) {
    if (argc != 7 && argc != 8)
        throw Error("usage: viewer_check SHOT.png MASK.png LABELS.npy COUNT CONNECTIVITY CRITERION [SLICE]");
    const Image shot = readImage(argv[1], ChannelMode::Natural);
    const Image mask = readImage(argv[2], ChannelMode::Natural);
    const Labeling dumped = readLabelsNpy(argv[3]);
    if (dumped.shape().count() != mask.shape().count() || dumped.width != mask.width || dumped.height != mask.height)
        throw Error("the labels are " + std::to_string(dumped.width) + "x" + std::to_string(dumped.height) + "x" +
                    std::to_string(dumped.depth) + ", the mask " + std::to_string(mask.width) + "x" +
                    std::to_string(mask.height) + "x" + std::to_string(mask.depth));
    const int slice = argc == 8 ? std::stoi(argv[7]) : 0;
    if (slice < 0 || slice >= mask.depth) throw Error("slice " + std::to_string(slice) + " is outside the volume");
    const std::vector<std::uint32_t>& labels = dumped.labels;
    const unsigned long printed = std::stoul(argv[4]);
    const Connectivity connectivity = parseConnectivity(argv[5]);
    const Criterion criterion = Criterion::parse(argv[6]);

    const Labeling expected = labelReference(mask, connectivity, criterion);
    if (printed != expected.count())
        throw Error("the viewer printed " + std::to_string(printed) + " components, the reference finds " +
                    std::to_string(expected.count()));
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (labels[i] != expected.labels[i])
            throw Error("label at " + where(int(i % mask.width), int(i / mask.width % mask.height)) + " of slice " +
                        std::to_string(i / (std::size_t(mask.width) * mask.height)) + " is " +
                        std::to_string(labels[i]) + ", the reference has " + std::to_string(expected.labels[i]));

    const int width = mask.width, height = mask.height;
    if (shot.channels != 4 || shot.width < width || shot.height < height)
        throw Error("the screenshot is " + std::to_string(shot.width) + "x" + std::to_string(shot.height) +
                    "; its picture area should show the " + std::to_string(width) + "x" +
                    std::to_string(height) + " labels at full size");

    // Pixels a box outline may cover: each box border, one pixel either side
    // (line rasterization may round to a neighbour at corners).
    std::vector<std::uint8_t> nearBorder(std::size_t(width) * height, 0);
    auto mark = [&](int x, int y) {
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                if (x + dx >= 0 && x + dx < width && y + dy >= 0 && y + dy < height)
                    nearBorder[std::size_t(y + dy) * width + x + dx] = 1;
    };
    for (const Component& c : expected.components) {
        if (std::uint32_t(slice) < c.front || std::uint32_t(slice) >= c.front + c.depth) continue;  // not cut by the slice
        const int left = int(c.left), top = int(c.top), right = int(c.left + c.width) - 1, bottom = int(c.top + c.height) - 1;
        for (int x = left; x <= right; ++x) mark(x, top), mark(x, bottom);
        for (int y = top; y <= bottom; ++y) mark(left, y), mark(right, y);
    }

    std::map<std::uint32_t, std::uint32_t> labelOfColor;
    std::size_t outlinePixels = 0, colorPixels = 0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const std::uint32_t label = labels[(std::size_t(slice) * height + y) * width + x];
            const std::uint8_t r = shot.at(x, y, 0), g = shot.at(x, y, 1), b = shot.at(x, y, 2);
            if (r == 255 && g == 255 && b == 255) {
                // labelColor is never white (value 190..255, saturation 150..255).
                if (!nearBorder[std::size_t(y) * width + x])
                    throw Error("white pixel at " + where(x, y) + " is not on a component's box outline");
                ++outlinePixels;
                continue;
            }
            std::uint8_t color[3];
            labelColor(label, color);
            if (r != color[0] || g != color[1] || b != color[2])
                throw Error("pixel " + where(x, y) + " of label " + std::to_string(label) + " shows " +
                            std::to_string(r) + "," + std::to_string(g) + "," + std::to_string(b) + ", expected " +
                            std::to_string(color[0]) + "," + std::to_string(color[1]) + "," + std::to_string(color[2]));
            const std::uint32_t key = std::uint32_t(r) << 16 | std::uint32_t(g) << 8 | b;
            const auto [entry, added] = labelOfColor.emplace(key, label);
            if (!added && entry->second != label)
                throw Error("labels " + std::to_string(entry->second) + " and " + std::to_string(label) +
                            " are shown in the same color");
            ++colorPixels;
        }
    if (expected.count() > 0 && outlinePixels == 0) throw Error("no box outline is drawn");
    std::printf("viewer_check: %zu components match the reference; %zu pixels in label colors, %zu on box outlines, "
                "%zu distinct colors\n",
                expected.count(), colorPixels, outlinePixels, labelOfColor.size());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return check(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "viewer_check: FAILED: %s\n", error.what());
        return 1;
    }
}
