#pragma once
// The grid of tiles an image is cut into for tiled labeling, and of bricks
// a volume is cut into: a tile is a brick of depth 1.
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
//
// A volume's bricks are numbered in raster order too (z, then y, then x),
// and its band is one layer of bricks: every brick that shares a range of
// slices. The passes see any image as lines of `width` pixels, line
// z * height + y, so a band is always a run of whole lines: rows of an
// image, whole slices of a volume.

#include <cstdint>

#include "glccl/types.hpp"

namespace glccl {

struct TileRect {
    std::uint64_t index = 0;   // raster order of tiles: (tz * tilesY + ty) * tilesX + tx
    std::uint32_t tx = 0, ty = 0, tz = 0;
    std::uint32_t x0 = 0, y0 = 0, z0 = 0;
    std::uint32_t width = 0, height = 0, depth = 1;
    std::uint64_t pixels() const { return std::uint64_t(width) * height * depth; }
    std::uint64_t lines() const { return std::uint64_t(height) * depth; }
};

class TilePlan {
public:
    TilePlan() = default;
    // Throws glccl::Error ("glccl::TilePlan: ...") for an empty image or tile.
    TilePlan(std::uint32_t imageWidth, std::uint32_t imageHeight, std::uint32_t tileWidth, std::uint32_t tileHeight);
    // Bricks of a volume (Shape::volume; Shape::image is the plan above).
    TilePlan(const Shape& shape, std::uint32_t tileWidth, std::uint32_t tileHeight, std::uint32_t tileDepth);

    std::uint32_t imageWidth() const { return imageWidth_; }
    std::uint32_t imageHeight() const { return imageHeight_; }
    std::uint32_t imageDepth() const { return imageDepth_; }
    int dimensions() const { return dimensions_; }
    Shape shape() const { return {imageWidth_, imageHeight_, imageDepth_, dimensions_}; }
    std::uint32_t tileWidth() const { return tileWidth_; }
    std::uint32_t tileHeight() const { return tileHeight_; }
    std::uint32_t tileDepth() const { return tileDepth_; }
    std::uint32_t tilesX() const { return tilesX_; }
    std::uint32_t tilesY() const { return tilesY_; }
    std::uint32_t tilesZ() const { return tilesZ_; }
    std::uint64_t tileCount() const { return std::uint64_t(tilesX_) * tilesY_ * tilesZ_; }
    std::uint64_t pixelCount() const { return std::uint64_t(imageWidth_) * imageHeight_ * imageDepth_; }
    // Lines of the image: height, or height * depth for a volume.
    std::uint64_t lineCount() const { return std::uint64_t(imageHeight_) * imageDepth_; }

    TileRect tile(std::uint32_t tx, std::uint32_t ty, std::uint32_t tz = 0) const;
    TileRect tile(std::uint64_t index) const;

    // Bands: rows of tiles of an image, layers of bricks of a volume.
    bool isVolume() const { return dimensions_ == 3; }
    std::uint32_t bands() const { return isVolume() ? tilesZ_ : tilesY_; }
    std::uint32_t tilesPerBand() const { return isVolume() ? tilesX_ * tilesY_ : tilesX_; }
    // The band's first image line and its lines.
    std::uint32_t bandTop(std::uint32_t band) const;
    std::uint32_t bandHeight(std::uint32_t band) const;
    // Tile i of a band (0 .. tilesPerBand() - 1, raster order).
    TileRect bandTile(std::uint32_t band, std::uint32_t i) const {
        return tile(std::uint64_t(band) * tilesPerBand() + i);
    }

    // Where a tile's labels start when every tile is stored whole, band
    // after band and tile after tile (the spill file): in pixels.
    std::uint64_t storageOffset(const TileRect& tile) const {
        return std::uint64_t(tile.z0) * imageWidth_ * imageHeight_ +
               (std::uint64_t(tile.y0) * imageWidth_ + std::uint64_t(tile.x0) * tile.height) * tile.depth;
    }

private:
    std::uint32_t imageWidth_ = 0, imageHeight_ = 0, imageDepth_ = 1;
    int dimensions_ = 2;
    std::uint32_t tileWidth_ = 0, tileHeight_ = 0, tileDepth_ = 1;
    std::uint32_t tilesX_ = 0, tilesY_ = 0, tilesZ_ = 1;
};

}  // namespace glccl
