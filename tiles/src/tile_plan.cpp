#include "glccl/tile_plan.hpp"

#include <string>

#include "glccl/error.hpp"

namespace glccl {

TilePlan::TilePlan(std::uint32_t imageWidth, std::uint32_t imageHeight, std::uint32_t tileWidth,
                   std::uint32_t tileHeight)
    : imageWidth_(imageWidth), imageHeight_(imageHeight) {
    if (imageWidth == 0 || imageHeight == 0)
        throw Error("glccl::TilePlan: the image is empty (" + std::to_string(imageWidth) + "x" +
                    std::to_string(imageHeight) + ")");
    if (tileWidth == 0 || tileHeight == 0)
        throw Error("glccl::TilePlan: the tile is empty (" + std::to_string(tileWidth) + "x" +
                    std::to_string(tileHeight) + ")");
    // A tile never reaches past the image: a larger tile is the image.
    tileWidth_ = tileWidth < imageWidth ? tileWidth : imageWidth;
    tileHeight_ = tileHeight < imageHeight ? tileHeight : imageHeight;
    tilesX_ = (imageWidth - 1) / tileWidth_ + 1;
    tilesY_ = (imageHeight - 1) / tileHeight_ + 1;
}

std::uint32_t TilePlan::bandHeight(std::uint32_t ty) const {
    const std::uint32_t top = bandTop(ty);
    return imageHeight_ - top < tileHeight_ ? imageHeight_ - top : tileHeight_;
}

TileRect TilePlan::tile(std::uint32_t tx, std::uint32_t ty) const {
    TileRect rect;
    rect.index = std::uint64_t(ty) * tilesX_ + tx;
    rect.tx = tx;
    rect.ty = ty;
    rect.x0 = tx * tileWidth_;
    rect.y0 = bandTop(ty);
    rect.width = imageWidth_ - rect.x0 < tileWidth_ ? imageWidth_ - rect.x0 : tileWidth_;
    rect.height = bandHeight(ty);
    return rect;
}

TileRect TilePlan::tile(std::uint64_t index) const {
    return tile(std::uint32_t(index % tilesX_), std::uint32_t(index / tilesX_));
}

}  // namespace glccl
