#pragma once
// The grid of tiles an image is cut into for tiled labeling.
//
// Tiles are numbered in raster order; a band is one row of tiles. Every
// tile but those of the last column and the last band has the full tile
// size, so any width and height work (primes too):
//
//     x0=0        tileWidth   2*tileWidth  width
//     +-----------+-----------+------+  y=0
//     | 0         | 1         | 2    |  band 0
//     +-----------+-----------+------+  tileHeight
//     | 3         | 4         | 5    |  band 1 (the last band may be lower)
//     +-----------+-----------+------+  height

#include <cstdint>

namespace glccl {

struct TileRect {
    std::uint64_t index = 0;   // raster order of tiles: ty * tilesX + tx
    std::uint32_t tx = 0, ty = 0;
    std::uint32_t x0 = 0, y0 = 0;
    std::uint32_t width = 0, height = 0;
    std::uint64_t pixels() const { return std::uint64_t(width) * height; }
};

class TilePlan {
public:
    TilePlan() = default;
    // Throws glccl::Error ("glccl::TilePlan: ...") for an empty image or tile.
    TilePlan(std::uint32_t imageWidth, std::uint32_t imageHeight, std::uint32_t tileWidth, std::uint32_t tileHeight);

    std::uint32_t imageWidth() const { return imageWidth_; }
    std::uint32_t imageHeight() const { return imageHeight_; }
    std::uint32_t tileWidth() const { return tileWidth_; }
    std::uint32_t tileHeight() const { return tileHeight_; }
    std::uint32_t tilesX() const { return tilesX_; }
    std::uint32_t tilesY() const { return tilesY_; }
    std::uint64_t tileCount() const { return std::uint64_t(tilesX_) * tilesY_; }
    std::uint64_t pixelCount() const { return std::uint64_t(imageWidth_) * imageHeight_; }

    TileRect tile(std::uint32_t tx, std::uint32_t ty) const;
    TileRect tile(std::uint64_t index) const;
    std::uint32_t bandTop(std::uint32_t ty) const { return ty * tileHeight_; }
    std::uint32_t bandHeight(std::uint32_t ty) const;

    // Where a tile's labels start when every tile is stored whole, band
    // after band and tile after tile (the spill file): in pixels.
    std::uint64_t storageOffset(const TileRect& tile) const {
        return std::uint64_t(tile.y0) * imageWidth_ + std::uint64_t(tile.x0) * tile.height;
    }

private:
    std::uint32_t imageWidth_ = 0, imageHeight_ = 0;
    std::uint32_t tileWidth_ = 0, tileHeight_ = 0;
    std::uint32_t tilesX_ = 0, tilesY_ = 0;
};

}  // namespace glccl
