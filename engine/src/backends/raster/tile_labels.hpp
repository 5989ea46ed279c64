#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// tile_labels (tile_labels_masks.frag, tile_labels_runs.frag,
// tile_labels.frag; Tuning::rasterLocal tiles): every node's first label,
// the root of its component within its tile (kTileWidth nodes across,
// tileRowsFor() rows), in three fragment passes instead of vertical_runs,
// column processing and the block borders' merge. The first packs each
// tile row's links and nodes into bit masks; the second finds each run's
// component in the tile and its first node by filling it over the masks, a
// fragment per group of TileTargets::runRows rows; the third gives every
// node its run's root in both draw buffers of `ids`
// (RasterResources::idsAndScratch: the labels and resolve_links' first link
// target), the roots marked in its depth buffer (RasterResources::rootMarks).
// The labels come out compressed, and resolve_links links them across the
// tiles' borders (ResolveLinksPass::Settings::tileRows).
class TileLabelsPass {
public:
    static constexpr const char* kStage = "tile_labels";
    void run(const PassContext& context, const gl::Texture& nodeGraph, const TileTargets& tiles,
             const gl::Framebuffer& ids);
};

}  // namespace glccl::raster
