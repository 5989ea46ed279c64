#include "glccl/tile_plan.hpp"

#include <string>

#include "glccl/error.hpp"

namespace glccl {

namespace {
// A tile never reaches past the image: a larger tile is the image.
std::uint32_t clamped(std::uint32_t tile, std::uint32_t image) { return tile < image ? tile : image; }
}  // namespace

TilePlan::TilePlan(std::uint32_t imageWidth, std::uint32_t imageHeight, std::uint32_t tileWidth,
                   std::uint32_t tileHeight)
    : imageWidth_(imageWidth), imageHeight_(imageHeight) {
    if (imageWidth == 0 || imageHeight == 0)
        throw Error("glccl::TilePlan: the image is empty (" + std::to_string(imageWidth) + "x" +
                    std::to_string(imageHeight) + ")");
    if (tileWidth == 0 || tileHeight == 0)
        throw Error("glccl::TilePlan: the tile is empty (" + std::to_string(tileWidth) + "x" +
                    std::to_string(tileHeight) + ")");
    tileWidth_ = clamped(tileWidth, imageWidth);
    tileHeight_ = clamped(tileHeight, imageHeight);
    tilesX_ = (imageWidth - 1) / tileWidth_ + 1;
    tilesY_ = (imageHeight - 1) / tileHeight_ + 1;
}

TilePlan::TilePlan(const Shape& shape, std::uint32_t tileWidth, std::uint32_t tileHeight, std::uint32_t tileDepth)
    : TilePlan(std::uint32_t(shape.width), std::uint32_t(shape.height), tileWidth, tileHeight) {
    if (shape.dimensions != 3) return;
    const std::string size = std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" +
                             std::to_string(shape.depth);
    if (shape.depth <= 0 || shape.depth > INT32_MAX)
        throw Error("glccl::TilePlan: the volume is " + size + "; expected 1 to 2^31 - 1 slices");
    if (tileDepth == 0) throw Error("glccl::TilePlan: the brick of the " + size + " volume has no depth");
    if (std::uint64_t(shape.height) * std::uint64_t(shape.depth) > UINT32_MAX)
        throw Error("glccl::TilePlan: the volume is " + size + "; height x depth must stay below 2^32 lines");
    dimensions_ = 3;
    imageDepth_ = std::uint32_t(shape.depth);
    tileDepth_ = clamped(tileDepth, imageDepth_);
    tilesZ_ = (imageDepth_ - 1) / tileDepth_ + 1;
}

std::uint32_t TilePlan::bandTop(std::uint32_t band) const {
    return isVolume() ? band * tileDepth_ * imageHeight_ : band * tileHeight_;
}

std::uint32_t TilePlan::bandHeight(std::uint32_t band) const {
    const std::uint32_t extent = isVolume() ? imageDepth_ : imageHeight_;
    const std::uint32_t side = isVolume() ? tileDepth_ : tileHeight_;
    const std::uint32_t first = band * side;
    const std::uint32_t sides = extent - first < side ? extent - first : side;
    return isVolume() ? sides * imageHeight_ : sides;
}

TileRect TilePlan::tile(std::uint32_t tx, std::uint32_t ty, std::uint32_t tz) const {
    TileRect rect;
    rect.index = (std::uint64_t(tz) * tilesY_ + ty) * tilesX_ + tx;
    rect.tx = tx;
    rect.ty = ty;
    rect.tz = tz;
    rect.x0 = tx * tileWidth_;
    rect.y0 = ty * tileHeight_;
    rect.z0 = tz * tileDepth_;
    rect.width = clamped(tileWidth_, imageWidth_ - rect.x0);
    rect.height = clamped(tileHeight_, imageHeight_ - rect.y0);
    rect.depth = clamped(tileDepth_, imageDepth_ - rect.z0);
    return rect;
}

TileRect TilePlan::tile(std::uint64_t index) const {
    const std::uint64_t perSlice = std::uint64_t(tilesX_) * tilesY_;
    const std::uint64_t inSlice = index % perSlice;
    return tile(std::uint32_t(inSlice % tilesX_), std::uint32_t(inSlice / tilesX_), std::uint32_t(index / perSlice));
}

}  // namespace glccl
